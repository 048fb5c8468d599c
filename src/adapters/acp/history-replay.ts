import { randomUUID } from 'node:crypto';
import { resolve } from 'node:path';
import type { ContentBlock, SessionUpdate } from '@agentclientprotocol/sdk';
import type { UserBlock } from '../../llm/types';
import type { ACPSession, SessionRole } from '../../session/acp-session';
import type { HistoryEntry } from '../../session/history';
import { builtinTools } from '../../tools/registry';
import type { ToolKind } from '../../tools/tool';
import { hunkDiffs, resultContent } from './tool-call-content';
import { quote } from './client-text';
import { callKey, type ToolCallIds } from './update-translator';
import { argumentsForDisplay, userText } from '../../session/history';

interface Step {
  role: SessionRole;
  agent: string;
  entry: HistoryEntry;
}

/**
 * A session's history as the updates a client replays on session/load: the
 * user's prompts, the primary agents' answers, everyone else's words as
 * labelled thoughts, handoffs and system events as thoughts, and tool calls
 * with their results. The internal sessions are merged in time order. Diffs
 * show the changed hunks: the files have moved on since.
 */
export function replayUpdates(session: ACPSession, ids: ToolCallIds): SessionUpdate[] {
  const replay = new Replay(session.cwd, ids);
  return session
    .internalSessions()
    .flatMap(({ role, session: internal }) => internal.entries.map((entry): Step => ({ role, agent: internal.agentName, entry })))
    .sort((a, b) => a.entry.at - b.entry.at)
    .flatMap((step) => replay.step(step));
}

/** The state of one replay: tool calls seen so far, by agent and the model's id. */
class Replay {
  private readonly tools = new Map(builtinTools().map((tool) => [tool.name, tool]));
  private readonly calls = new Map<string, { id: string; kind: ToolKind }>();

  constructor(
    private readonly cwd: string,
    private readonly ids: ToolCallIds,
  ) {}

  step({ role, agent, entry }: Step): SessionUpdate[] {
    const label = role === 'primary' ? '' : `[${agent}] `;
    const messageId = randomUUID();
    switch (entry.kind) {
      case 'user':
        if (entry.from === undefined && role === 'primary') {
          return entry.content.map((block) => ({ sessionUpdate: 'user_message_chunk', content: contentBlock(block), messageId }));
        }
        return [thought(`${entry.from ?? 'user'} → ${agent}:\n${quote(userText(entry.content))}`, messageId)];
      case 'assistant_text':
        return role === 'primary'
          ? [{ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: entry.text }, messageId }]
          : [thought(`${label}${entry.text}`, messageId)];
      case 'thinking':
        return [thought(`${label}${entry.text}`, messageId)];
      case 'redacted_thinking':
      case 'trim_tool_outputs':
        return [];
      case 'compaction':
        return [thought(`${agent} compacted its history to fit the context window.`, messageId)];
      case 'system':
        return [thought(`${agent}: ${entry.message}`, messageId)];
      case 'tool_call':
        return [this.toolCall(agent, label, entry)];
      case 'tool_result':
        return this.toolResult(agent, entry);
    }
  }

  private toolCall(agent: string, label: string, entry: Extract<HistoryEntry, { kind: 'tool_call' }>): SessionUpdate {
    const tool = this.tools.get(entry.name);
    const args = argumentsForDisplay(entry.arguments);
    const call = { id: this.ids.allocate(entry.id), kind: tool?.kind ?? 'other' };
    this.calls.set(callKey(agent, entry.id), call);
    return {
      sessionUpdate: 'tool_call',
      toolCallId: call.id,
      title: `${label}${entry.name} ${tool ? tool.summarize(args) : ''}`.trim(),
      kind: call.kind,
      status: 'in_progress',
      locations: (tool?.locations(args) ?? []).map((location) => ({ ...location, path: resolve(this.cwd, location.path) })),
      rawInput: args,
    };
  }

  private toolResult(agent: string, entry: Extract<HistoryEntry, { kind: 'tool_result' }>): SessionUpdate[] {
    const call = this.calls.get(callKey(agent, entry.callId));
    if (!call) return [];
    const { images: _images, at: _at, kind: _kind, callId: _callId, ...rawOutput } = entry;
    const diffs = entry.metadata.diff ? hunkDiffs(entry.metadata.diff, this.cwd) : [];
    return [
      {
        sessionUpdate: 'tool_call_update',
        toolCallId: call.id,
        status: entry.status === 'success' ? 'completed' : 'failed',
        content: [...diffs, ...resultContent(call.kind, entry, diffs.length > 0)],
        rawOutput,
      },
    ];
  }
}

function thought(text: string, messageId: string): SessionUpdate {
  return { sessionUpdate: 'agent_thought_chunk', content: { type: 'text', text }, messageId };
}

function contentBlock(block: UserBlock): ContentBlock {
  return block.type === 'text' ? { type: 'text', text: block.text } : { type: 'image', data: block.data, mimeType: block.mimeType };
}
