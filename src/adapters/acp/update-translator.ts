import { randomUUID } from 'node:crypto';
import { resolve } from 'node:path';
import type { ContentBlock, SessionUpdate, ToolCallContent, ToolCallUpdate } from '@agentclientprotocol/sdk';
import { type AgentEvent, type NoticeLevel, type RunStatus, type TurnStopReason, unreachable } from '../../engine/events';
import type { TranscriptEntry } from '../../transcript/entries';
import { TranscriptModel } from '../../transcript/transcript-model';
import { helperHeadline } from '../../transcript/words';
import type { Usage, UserBlock } from '../../llm/types';
import type { TodoItem } from '../../tools/todos';
import type { ToolKind, ToolResult } from '../../tools/tool';
import { agentLabel, quote } from './client-text';
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
  private readonly calls = new Map<string, CallState>();
  private open: CallState | undefined;
  private primaryStop: TurnStopReason | undefined;
  /** What is shown and in which words (who speaks the answer comes with prompt_start). */
  private readonly model: TranscriptModel;

  constructor(private readonly options: TranslatorOptions) {
    this.model = new TranscriptModel({ replaying: options.replaying });
    this.text = new TextChunks(() => this.primary, options.sink);
  }

  /** Who speaks the answer: named by the prompt's prompt_start. */
  private get primary(): string {
    return this.model.primaryAgent ?? '';
  }

  /** How the primary's last turn ended, e.g. to tell `max_tokens` apart from a plain answer. */
  get lastPrimaryStop(): TurnStopReason | undefined {
    return this.primaryStop;
  }

  handle(event: AgentEvent): void {
    for (const entry of this.model.handle(event)) this.render(entry);
    // A complete block ends a run of deltas: what is pending goes out now.
    if (event.type === 'text_complete' || event.type === 'thinking_complete') this.flush();
  }

  /** One entry of the transcript model as session updates: the model decides what is shown and its words, this only their wire shape. */
  private render(entry: TranscriptEntry): void {
    switch (entry.type) {
      // The client showed the person's message when it was sent: only a stored one is shown again.
      case 'prompt':
        return this.options.replaying ? this.userMessage(entry.content) : undefined;
      // A client rewinds with /rewind, which lists the checkpoints itself.
      case 'checkpoint':
        return undefined;
      // usage_update told how full the window is after every call already.
      case 'context':
        return undefined;
      case 'plan':
        return this.plan(entry.items);
      case 'text':
        return this.text.append(this.channelOf(entry.actor.agent), entry.actor.agent, entry.delta);
      case 'thinking':
        return this.text.append('thought', entry.actor.agent, entry.delta);
      case 'summary':
        return this.say('message', entry.actor.agent, entry.text);
      case 'tool_start':
        return this.toolCallStart(entry);
      case 'tool_progress':
        return this.toolProgress(entry);
      case 'tool_end':
        return this.toolCallEnd(entry);
      // A subagent's tokens are not this session's context; its cost is in the session's (see sessionCost).
      case 'cost':
        return entry.subagent ? undefined : this.usage(entry.usage, entry.model, entry.context);
      case 'notice':
        if (entry.about === 'host') return this.notice(entry.level, entry.text, entry.title);
        if (entry.about === 'ended_short') return this.say('message', entry.actor?.agent, `⚠ ${entry.text}`);
        return this.note(entry.text);
      case 'review_start':
        return this.note(`${entry.roundText}: ${entry.text}.`);
      // The reviewer's summary is written for the person: it is part of the answer, after the verdict.
      case 'verdict': {
        const summary = entry.verdict === 'cancelled' ? '' : entry.summary.trim();
        return this.say('message', undefined, `${entry.mark} ${entry.text}${entry.colon && summary ? ':' : '.'}${summary ? `\n\n${summary}` : ''}`);
      }
      case 'handoff':
        return this.note(`${entry.words}:\n${quote(entry.text)}`);
      case 'subagent':
        return this.subagentProgress(entry.parent.agent, entry.callId, subagentLine(entry));
      case 'prompt_end':
        return this.runComplete(entry.status, entry.status === 'completed' ? entry.said : entry.message, entry.changes);
      case 'turn_end':
        if (entry.actor.role === 'primary') this.primaryStop = entry.reason;
        return this.boundary();
      // Each ends the message under way; an error or a cancel is told by the run's end, in words: one message, not two.
      case 'turn_start':
      case 'files_changed':
      case 'stopped':
      // The summary is its own entry where it is the answer.
      case 'task_complete':
        return this.boundary();
      default:
        return unreachable(entry);
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

  /** Something worth seeing about the work, as a thought. */
  private note(text: string): void {
    this.say('thought', undefined, text);
  }

  private toolCallStart(entry: Extract<TranscriptEntry, { type: 'tool_start' }>): void {
    this.boundary();
    const call: CallState = {
      id: this.options.toolCallIds.allocate(entry.callId),
      title: this.titled(entry.actor.agent, entry.title),
      kind: entry.kind,
      terminals: [],
    };
    this.calls.set(callKey(entry.actor.agent, entry.callId), call);
    this.open = call;
    this.options.sink.send({
      sessionUpdate: 'tool_call',
      toolCallId: call.id,
      title: call.title,
      kind: call.kind,
      status: 'in_progress',
      locations: entry.locations.map((location) => ({ ...location, path: resolve(this.options.cwd, location.path) })),
      rawInput: entry.arguments,
    });
  }

  /** A call's title as the client shows it: the model's words, after the agent's label for anyone but the primary. */
  private titled(agent: string, title: string): string {
    return `${agentLabel(agent, this.primary)}${title}`.trim();
  }

  private toolCallEnd(entry: Extract<TranscriptEntry, { type: 'tool_end' }>): void {
    this.boundary();
    const call = this.calls.get(callKey(entry.actor.agent, entry.callId));
    if (!call) return;
    if (this.open === call) this.open = undefined;
    // The title says what the call did once it is done ("Read greet.ts").
    call.title = this.titled(entry.actor.agent, entry.title);
    this.options.sink.send(this.finishedCall(call, entry.result));
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
      title: call.title,
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
  private toolProgress(entry: Extract<TranscriptEntry, { type: 'tool_progress' }>): void {
    const call = this.calls.get(callKey(entry.actor.agent, entry.callId));
    if (!call || call.terminals.length > 0 || call.progress) return;
    const content = progressContent(entry);
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
    if (level !== 'info') this.note(`${level === 'error' ? 'Error' : 'Warning'}: ${message}`);
  }

  private runComplete(status: RunStatus, message: string, changes: readonly ChangedFile[] | undefined): void {
    // What the journal says the prompt changed (what /undo would put back), before how the run ended.
    if (changes && changes.length > 0) this.note(`${changedLine(changes)}: ${changedList(changes)}`);
    switch (status) {
      case 'limit':
      case 'budget':
        return this.say('message', undefined, message);
      // The prompt request fails with the message (see LiveSession.answer): not glued to the agents' answer.
      case 'error':
        return this.boundary();
      case 'completed':
        return this.note(message);
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

/** A helper's step, as a line of its task call's content. */
function subagentLine(entry: Extract<TranscriptEntry, { type: 'subagent' }>): string {
  const headline = helperHeadline(entry.subagent, entry.state, entry.status);
  if (entry.state === 'started') return `→ ${headline}`;
  return `${headline}: ${entry.text}`;
}
