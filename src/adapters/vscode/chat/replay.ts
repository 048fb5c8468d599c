/**
 * A stored session as the chat view's transcript: the user's prompts, every
 * agent's words and thinking with its badge, handoffs, tool cards with their
 * results and diffs, and system notes, in time order across the internal
 * agents. What the view shows when a session is resumed.
 */
import type { Actor, TranscriptEvent } from '../../../../webview/chat/protocol';
import type { ACPSession, AgentRole } from '../../../session/acp-session';
import type { HistoryEntry } from '../../../session/history';
import { builtinTools } from '../../../tools/registry';
import { argumentsText, capText, notice, toolEnd } from './transcript';
import { argumentsForDisplay, userText } from '../../../session/history';

interface Step {
  role: AgentRole;
  agent: string;
  entry: HistoryEntry;
}

export function replayTranscript(session: ACPSession): TranscriptEvent[] {
  const tools = new Map(builtinTools().map((tool) => [tool.name, tool]));
  const steps = session
    .internalSessions()
    .flatMap(({ role, session: internal }) => internal.entries.map((entry): Step => ({ role, agent: internal.agentName, entry })))
    .sort((a, b) => a.entry.at - b.entry.at);
  const agentsByName = new Map(steps.map((step) => [step.agent, step.role]));
  const actorOf = (agent: string): Actor => {
    const role = agentsByName.get(agent);
    return { agent, role: role === 'coagent' ? 'reviewer' : role === 'primary' ? 'primary' : 'subagent' };
  };
  return steps.flatMap(({ agent, role, entry }): TranscriptEvent[] => {
    const actor = actorOf(agent);
    switch (entry.kind) {
      case 'user':
        if (entry.from === undefined && role === 'primary') return [{ type: 'user_message', text: userText(entry.content) }];
        return [{ type: 'handoff', from: actorOf(entry.from ?? 'user'), to: actor, purpose: 'handoff', text: capText(userText(entry.content)) }];
      case 'assistant_text':
        return [{ type: 'text_delta', actor, delta: entry.text }];
      case 'thinking':
        return [{ type: 'thinking_delta', actor, delta: entry.text }];
      case 'tool_call': {
        const tool = tools.get(entry.name);
        const args = argumentsForDisplay(entry.arguments);
        const summary = tool ? tool.summarize(args) : '';
        return [
          {
            type: 'tool_start',
            actor,
            callId: entry.id,
            tool: entry.name,
            kind: tool?.kind ?? 'other',
            title: `${entry.name} ${summary}`.trim(),
            argumentsText: argumentsText(args),
          },
        ];
      }
      case 'tool_result':
        return [toolEnd(entry.callId, entry, entry.metadata.durationMs)];
      case 'system':
        return [notice('info', `${agent}: ${entry.message}`)];
      case 'compaction':
        return [notice('info', `${agent} compacted its history to fit the context window.`)];
      case 'redacted_thinking':
      case 'trim_tool_outputs':
        return [];
    }
  });
}
