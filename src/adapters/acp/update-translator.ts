import { randomUUID } from 'node:crypto';
import { resolve } from 'node:path';
import type { ContentBlock, SessionUpdate, ToolCallContent, ToolCallUpdate } from '@agentclientprotocol/sdk';
import { type AgentEvent, endedShort, type NoticeLevel, type RunStatus, type TurnStopReason, unreachable } from '../../engine/events';
import type { Usage, UserBlock } from '../../llm/types';
import type { TodoItem } from '../../tools/todos';
import type { ToolKind, ToolResult } from '../../tools/tool';
import { agentLabel, quote, verdictText } from './client-text';
import { type Channel, TextChunks } from './text-chunks';
import { diffContent, hunkDiffs, progressContent, type ReadText, resultContent } from './tool-call-content';
import type { UpdateSink } from './update-sink';
import { changedLine, changedList, type ChangedFile } from '../../vocabulary/changed-file';

export interface TranslatorOptions {
  /**
   * Showing a stored prompt again (session/load): its prompt_start sends the
   * person's message, which live the client showed when it was sent.
   */
  replaying?: boolean;
  /** The session folder: locations and diff paths are made absolute against it. */
  cwd: string;
  sink: UpdateSink;
  toolCallIds: ToolCallIds;
  contextWindow(model: string): number | undefined;
  /** Reads a file as the tools see it, for whole-file diffs. */
  readText: ReadText;
  /** Whether the client shows `notice` updates; otherwise warnings become thoughts. */
  notices: boolean;
  /** The session's cost so far in US dollars, when every call had prices. */
  sessionCost(): number | undefined;
}

/**
 * Tool call ids unique within a session. Models' call ids are kept when
 * free; a repeated one (two agents, or a model that reuses ids) gets a suffix.
 */
export class ToolCallIds {
  private readonly used = new Set<string>();

  allocate(callId: string): string {
    let id = callId;
    for (let n = 2; this.used.has(id); n++) id = `${callId}~${n}`;
    this.used.add(id);
    return id;
  }
}

interface CallState {
  id: string;
  title: string;
  kind: ToolKind;
  terminals: string[];
  /** The steps of a subagent this call runs, newest last. */
  progress?: string[];
  /** The running call's content as last sent (its output so far), so that an update without news sends nothing. */
  live?: string;
}

/** Steps of a subagent shown in its task's tool call. */
const MAX_PROGRESS_LINES = 12;

/**
 * Turns one prompt's AgentEvents into session/update notifications, live or
 * stored (the same way both times). Text goes through TextChunks
 * (coalesced; any other event ends the message); the primary's text is the
 * answer, everyone else's a labelled thought, and tool titles name any
 * agent but the primary (named by prompt_start). `handle` updates all state
 * synchronously, so once the events emitted so far have been handled, tool
 * calls can be looked up by the engine's ids.
 */
export class UpdateTranslator {
  private readonly text: TextChunks;
  /** `text:agent` and `thinking:agent` that streamed deltas since their last complete event. */
  private readonly streamed = new Set<string>();
  /** The block and agent the last delta marked in `streamed`. */
  private lastStreamed: { block: 'text' | 'thinking'; agent: string } | undefined;
  private readonly calls = new Map<string, CallState>();
  private open: CallState | undefined;
  private primaryStop: TurnStopReason | undefined;
  /** Who speaks the answer: set by prompt_start. */
  private primary = '';

  constructor(private readonly options: TranslatorOptions) {
    this.text = new TextChunks(() => this.primary, options.sink);
  }

  /** How the primary's last turn ended, e.g. to tell `max_tokens` apart from a plain answer. */
  get lastPrimaryStop(): TurnStopReason | undefined {
    return this.primaryStop;
  }

  handle(event: AgentEvent): void {
    switch (event.type) {
      case 'prompt_start':
        this.primary = event.primary;
        return this.options.replaying ? this.userMessage(event.content) : undefined;
      // A client rewinds with /rewind, which lists the checkpoints itself.
      case 'checkpoint':
        return undefined;
      // usage_update told how full the window is after every call already.
      case 'context':
        return undefined;
      // A message sent while the agents worked, as prompt_start's: the client showed it when it was sent.
      case 'steer':
        return this.options.replaying ? this.userMessage(event.content) : undefined;
      case 'plan':
        return this.plan(event.items);
      case 'text_delta':
        return this.delta(this.channelOf(event.agent), event.agent, 'text', event.delta);
      case 'thinking_delta':
        return this.delta('thought', event.agent, 'thinking', event.delta);
      case 'text_complete':
        return this.complete(this.channelOf(event.agent), event.agent, 'text', event.text);
      case 'thinking_complete':
        return this.complete('thought', event.agent, 'thinking', event.text);
      case 'tool_call_start':
        return this.toolCallStart(event);
      case 'tool_progress':
        return this.toolProgress(event);
      case 'tool_call_end':
        return this.toolCallEnd(event.agent, event.callId, event.result);
      case 'usage':
        return this.usage(event.usage, event.model, event.context);
      case 'notice':
        return this.notice(event.level, event.message, event.title);
      case 'retry':
        return this.note(undefined, `${event.agent}'s model request failed (${event.reason}); retrying in ${seconds(event.delayMs)}, attempt ${event.attempt}.`);
      case 'task_complete':
        return this.say('message', event.agent, event.summary);
      case 'doom_loop':
        return this.note(event.agent, `made the same ${event.tool} call ${event.repeats} times in a row; stopping this turn.`);
      case 'compaction':
        return this.note(event.agent, `compacted its history to fit the context window (${event.how}, about ${event.tokensBefore} → ${event.tokensAfter} tokens).`);
      case 'coagent_start':
        return this.note(undefined, `${event.agent} is reviewing ${event.primary}'s work (round ${event.round}).`);
      case 'coagent_end':
        return this.note(undefined, verdictText(event.agent, event.primary, event.round, event.verdict));
      case 'handoff':
        return this.note(undefined, `${event.agent} → ${event.to} (${event.purpose.replace('_', ' ')}):\n${quote(event.text)}`);
      case 'run_complete':
        return this.runComplete(event.status, event.message, event.changes);
      case 'subagent_start':
        return this.subagentProgress(event.agent, event.callId, `→ Running ${event.subagent}…`);
      case 'subagent_progress':
        return this.subagentProgress(event.agent, event.callId, `${event.subagent}: ${event.text}`);
      case 'subagent_end':
        return this.subagentProgress(event.agent, event.callId, `${event.subagent} ${event.status}: ${event.summary}`);
      // A subagent's tokens are not this session's context; its cost is in the session's (see sessionCost).
      case 'subagent_usage':
        return;
      case 'turn_start':
      case 'files_changed':
        return this.boundary();
      case 'turn_complete':
        if (event.agent === this.primary) this.primaryStop = event.reason;
        return endedShort(event.reason) ? this.say('message', event.agent, `⚠ ${event.message}`) : this.boundary();
      // Both end the run, whose run_complete says so in words: one message, not two.
      case 'error':
      case 'cancelled':
        return this.boundary();
      default:
        return unreachable(event);
    }
  }

  /** Sends any pending text. Call before the prompt is answered. */
  flush(): void {
    this.text.flush();
  }

  /** The person's message, as the client shows its own (a stored prompt shown again). */
  private userMessage(content: readonly UserBlock[]): void {
    this.boundary();
    const messageId = randomUUID();
    for (const block of content) {
      const shown: ContentBlock = block.type === 'text' ? { type: 'text', text: block.text } : { type: 'image', data: block.data, mimeType: block.mimeType };
      this.options.sink.send({ sessionUpdate: 'user_message_chunk', content: shown, messageId });
    }
  }

  /** The todo list changed: the client's plan follows it. */
  private plan(items: readonly TodoItem[]): void {
    this.boundary();
    const entries = items.map(({ content, priority, status }) => ({ content, priority, status }));
    this.options.sink.send({ sessionUpdate: 'plan', entries });
  }

  /** The client's id and title of an announced tool call. */
  toolCall(agent: string, callId: string): { toolCallId: string; title: string } | undefined {
    const call = this.calls.get(callKey(agent, callId));
    return call && { toolCallId: call.id, title: call.title };
  }

  /** Embeds a client terminal in the tool call now running; false when none is. */
  attachTerminal(terminalId: string): boolean {
    const call = this.open;
    if (!call) return false;
    call.terminals.push(terminalId);
    this.options.sink.send({ sessionUpdate: 'tool_call_update', toolCallId: call.id, content: terminalContent(call) });
    return true;
  }

  private channelOf(agent: string): Channel {
    return agent === this.primary ? 'message' : 'thought';
  }

  private delta(channel: Channel, agent: string, block: 'text' | 'thinking', delta: string): void {
    // Deltas come by the thousand: the block is marked once per run of them, not once per delta.
    if (this.lastStreamed?.block !== block || this.lastStreamed.agent !== agent) {
      this.streamed.add(`${block}:${agent}`);
      this.lastStreamed = { block, agent };
    }
    this.text.append(channel, agent, delta);
  }

  /** A complete block: already streamed as deltas, unless the provider sent none. */
  private complete(channel: Channel, agent: string, block: 'text' | 'thinking', text: string): void {
    this.lastStreamed = undefined;
    if (!this.streamed.delete(`${block}:${agent}`)) this.text.append(channel, agent, text);
    this.flush();
  }

  /** Any event other than text: pending text goes first, and the next text starts a new message. */
  private boundary(): void {
    this.text.endMessage();
  }

  /** A whole message or thought of its own. */
  private say(channel: Channel, agent: string | undefined, text: string): void {
    if (text.trim() === '') return;
    this.boundary();
    this.text.append(channel, agent ?? this.primary, text);
    this.boundary();
  }

  /** Something worth seeing about the work, as a thought; `agent` names who it is about. */
  private note(agent: string | undefined, text: string): void {
    this.say('thought', undefined, agent === undefined ? text : `${agent} ${text}`);
  }

  private toolCallStart(event: Extract<AgentEvent, { type: 'tool_call_start' }>): void {
    this.boundary();
    const call: CallState = {
      id: this.options.toolCallIds.allocate(event.callId),
      title: `${agentLabel(event.agent, this.primary)}${event.tool} ${event.summary}`.trim(),
      kind: event.kind,
      terminals: [],
    };
    this.calls.set(callKey(event.agent, event.callId), call);
    this.open = call;
    this.options.sink.send({
      sessionUpdate: 'tool_call',
      toolCallId: call.id,
      title: call.title,
      kind: call.kind,
      status: 'in_progress',
      locations: event.locations.map((location) => ({ ...location, path: resolve(this.options.cwd, location.path) })),
      rawInput: event.arguments,
    });
  }

  private toolCallEnd(agent: string, callId: string, result: ToolResult): void {
    this.boundary();
    const call = this.calls.get(callKey(agent, callId));
    if (!call) return;
    if (this.open === call) this.open = undefined;
    this.options.sink.send(this.finishedCall(call, result));
  }

  private async finishedCall(call: CallState, result: ToolResult): Promise<SessionUpdate> {
    const { diff } = result.metadata;
    // A stored call's files have moved on since: it shows the changed hunks, not today's whole files.
    const diffs = !diff ? [] : this.options.replaying ? hunkDiffs(diff, this.options.cwd) : await diffContent(diff, this.options.cwd, this.options.readText);
    const content: ToolCallContent[] = [...terminalContent(call), ...diffs];
    if (call.terminals.length === 0) content.push(...resultContent(call.kind, result, diffs.length > 0));
    const { images: _images, ...rawOutput } = result;
    const update: ToolCallUpdate = {
      toolCallId: call.id,
      status: result.status === 'success' ? 'completed' : 'failed',
      content,
      rawOutput,
    };
    return { sessionUpdate: 'tool_call_update', ...update };
  }

  /**
   * A running call's output so far, as its content (the client replaces the
   * content with each update). A command in a client terminal already shows
   * there, and a task's call shows its subagent's steps: neither gets more.
   */
  private toolProgress(event: Extract<AgentEvent, { type: 'tool_progress' }>): void {
    const call = this.calls.get(callKey(event.agent, event.callId));
    if (!call || call.terminals.length > 0 || call.progress) return;
    const content = progressContent(event);
    const live = JSON.stringify(content);
    if (content.length === 0 || live === call.live) return;
    call.live = live;
    this.boundary();
    this.options.sink.send({ sessionUpdate: 'tool_call_update', toolCallId: call.id, status: 'in_progress', content });
  }

  /** A subagent's step, shown inside the tool call of the task that runs it. */
  private subagentProgress(agent: string, callId: string, line: string): void {
    this.boundary();
    const call = this.calls.get(callKey(agent, callId));
    if (!call) return;
    call.progress = [...(call.progress ?? []), line].slice(-MAX_PROGRESS_LINES);
    const text = call.progress.join('\n');
    this.options.sink.send({ sessionUpdate: 'tool_call_update', toolCallId: call.id, status: 'in_progress', content: [{ type: 'content', content: { type: 'text', text } }] });
  }

  /** How full the window is after a call: by the agent's gauge (the server's count, checked), else by the server's count. */
  private usage(usage: Usage, model: string, context: number | undefined): void {
    this.boundary();
    const size = this.options.contextWindow(model);
    if (size === undefined) return;
    const used = context ?? usage.input + usage.cacheRead + usage.cacheWrite + usage.output;
    const cost = this.options.sessionCost();
    this.options.sink.send({ sessionUpdate: 'usage_update', used, size, ...(cost !== undefined ? { cost: { amount: cost, currency: 'USD' } } : {}) });
  }

  /** A notice of the host: a notice update where the client shows them, else warnings as a thought. */
  private notice(level: NoticeLevel, message: string, title?: string): void {
    this.boundary();
    if (this.options.notices) {
      this.options.sink.send({ sessionUpdate: 'notice', severity: level, ...noticeText(message, title) });
      return;
    }
    if (level !== 'info') this.note(undefined, `${level === 'error' ? 'Error' : 'Warning'}: ${message}`);
  }

  private runComplete(status: RunStatus, message: string, changes: readonly ChangedFile[] | undefined): void {
    // What the journal says the prompt changed (what /undo would put back), before how the run ended.
    if (changes && changes.length > 0) this.note(undefined, `${changedLine(changes)}: ${changedList(changes)}`);
    switch (status) {
      case 'limit':
      case 'budget':
        return this.say('message', undefined, message);
      // The prompt request fails with the message (see LiveSession.answer): not glued to the agents' answer.
      case 'error':
        return this.boundary();
      case 'completed':
        return this.note(undefined, message);
      // The answer speaks for itself; the client asked for the cancel.
      case 'needs_input':
      case 'cancelled':
        return this.boundary();
      default:
        return unreachable(status);
    }
  }
}

/** A notice's title and description: the title when there is one, else the message alone. */
export function noticeText(message: string, title: string | undefined): { title: string; description?: string } {
  return title ? { title, description: message } : { title: message };
}

export function callKey(agent: string, callId: string): string {
  return `${agent}\u0000${callId}`;
}

function terminalContent(call: CallState): ToolCallContent[] {
  return call.terminals.map((terminalId) => ({ type: 'terminal', terminalId }));
}

function seconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(1))} s`;
}
