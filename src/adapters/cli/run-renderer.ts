import { oneLine } from '../../vocabulary/text';
import { count, duration } from '../../telemetry/readable';
import { userText } from '../../session/history';
import type { AgentEvent, ReviewVerdict } from '../../engine/events';
import { endedShort, unreachable } from '../../engine/events';
import type { Usage } from '../../llm/types';
import type { ToolKind } from '../../tools/tool';
import { addUsage, emptyUsage } from '../../llm/types';
import { callWords, type CallWords } from '../../vocabulary/tool-story';
import { TASK_COMPLETE } from '../../vocabulary/tool-names';
import { endLine, startLine } from './call-lines';
import { diffLines } from './diff-lines';
import { PipeProgress, type ProgressEvent, type ProgressView, TerminalProgress } from './live-progress';
import { MarkdownStream, type MarkdownRender, type MarkdownScreen } from './markdown-stream';
import { headerLine, type RunHeader } from './run-header';
import type { Style } from './terminal-style';
import { changedLine, changedList } from '../../vocabulary/changed-file';

/** Where the renderer writes: the answer to `out`, everything about the work to `err`. */
export interface RenderTarget {
  out: { write(text: string): unknown };
  err: { write(text: string): unknown };
  outStyle: Style;
  errStyle: Style;
  /** Renders the answer's markdown for a terminal; without it the answer is written as it came (pipes, files). */
  markdown?: MarkdownRender;
  /** stdout is a terminal that takes cursor moves, this big: the line still arriving is shown raw, then redrawn rendered. */
  screen?: MarkdownScreen;
  /** stderr is a terminal that takes cursor moves, this wide: a running call's output is shown under it, redrawn in place. */
  live?: { columns(): number };
}

type Channel = 'none' | 'text' | 'thinking' | 'status';

/** What the tools and the loop say when the run's signal aborted them. */
const CANCELLED_BY_USER = 'Cancelled by the user.';

/** Marks each line of thinking, so it stays apart from the answer without colour too. */
export const THINKING_PREFIX = '┊ ';

/** "◔ builder's context: 12.3k of 200k tokens (6%)": how full an agent's window is after its turn. */
export function contextLine({ agent, used, window }: { agent: string; used: number; window: number }): string {
  const share = Math.round((used / window) * 100);
  return `◔ ${agent}'s context: ${count(used)} of ${count(window)} tokens (${share}%)${share >= 80 ? ' · /compact frees it' : ''}`;
}

/**
 * Turns agent events into what a person wants to read in a terminal: the
 * answer streams to stdout as it arrives (markdown rendered on a terminal);
 * thinking (marked ┊), tool calls with status, duration and the diff of an
 * edit, the live tail of a running call, reviews, retries and the closing
 * usage line go to stderr, so `crow run … > answer.md` captures only the answer.
 */
export class RunRenderer {
  private channel: Channel = 'none';
  private lineOpen = false;
  private readonly usage: Usage = emptyUsage();
  private readonly started = Date.now();
  private readonly kinds = new Map<string, ToolKind>();
  /** Each running call's words, for its closing line. */
  private readonly words = new Map<string, CallWords>();
  private speaker: string | undefined;
  private labelFirstSpeaker = false;
  private toolCalls = 0;
  private readonly markdown: MarkdownStream | undefined;
  /** Tool calls whose line is on screen, and who waits for one to be. */
  private readonly shown = new Set<string>();
  private readonly showing = new Map<string, () => void>();
  /** Calls whose change a person already saw in an approval: not shown twice. */
  private readonly previewed = new Set<string>();
  /** A review is under way: `task_complete` waits for the verdict, which comes first on screen. */
  private reviewing = false;
  private readonly held: AgentEvent[] = [];
  private readonly progress: ProgressView;
  /** The text of the last ✖ line, so the run's end does not repeat it. */
  private shownError: string | undefined;
  /** The signal stopping the run, when one is (see stoppedBy). */
  private stopSignal: string | undefined;

  /**
   * `replaying`: a stored session shown again (crow sessions show): each prompt opens with what the person sent.
   * `verbose`: each call's line also names its tool.
   */
  constructor(
    private readonly target: RenderTarget,
    private readonly options: { replaying?: boolean; verbose?: boolean } = {},
  ) {
    this.progress = target.live
      ? new TerminalProgress(target.err, target.errStyle, target.live.columns)
      : new PipeProgress((line) => this.status(line), target.errStyle);
    if (target.markdown) {
      const render = target.markdown;
      this.markdown = new MarkdownStream((text) => target.out.write(text), render, target.screen);
    }
  }

  /** The run's first line; a reviewed composition also gets its first speaker named. */
  header(header: RunHeader): void {
    this.labelFirstSpeaker = header.composition.coagent !== undefined;
    this.status(headerLine(header, this.target.errStyle));
    this.waitFor(header.composition.primary.name);
  }

  render(event: AgentEvent): void {
    if (this.reviewing && event.type === 'task_complete') {
      this.held.push(event);
      return;
    }
    if (ENDS_WAIT.has(event.type)) this.progress.stopWaiting();
    this.noteSpeaker(event);
    const { errStyle: s } = this.target;
    switch (event.type) {
      case 'prompt_start':
        this.labelFirstSpeaker = event.coagent !== undefined;
        this.speaker = undefined;
        return this.options.replaying ? this.status(s.bold(`› ${oneLine(userText(event.content), 400)}`)) : undefined;
      // crow sessions checkpoints lists them; a line per change would bury the work.
      case 'checkpoint':
        return undefined;
      case 'steer':
        return this.status(`${s.bold(`› ${oneLine(userText(event.content), 400)}`)} ${s.dim(`(sent while the agents worked; ${event.agent} has it now)`)}`);
      case 'turn_complete':
        return endedShort(event.reason) ? this.status(s.yellow(`⚠ ${event.agent}: ${event.message}`)) : undefined;
      case 'context':
        return this.status(s.dim(contextLine(event)));
      // The todo tool's own line shows the list as it changes.
      case 'plan':
      case 'turn_start':
      case 'text_complete':
      case 'thinking_complete':
      case 'files_changed':
        return;
      case 'text_delta':
        return this.streamText(event.delta);
      case 'thinking_delta':
        return this.streamThinking(event.delta);
      case 'tool_call_start': {
        this.kinds.set(event.callId, event.kind);
        const words = callWords(event.tool, event.arguments, event.summary);
        this.words.set(event.callId, words);
        // Finishing is no work to show: its summary is the answer (task_complete's own line).
        if (event.tool !== TASK_COMPLETE || this.options.verbose) this.status(startLine(words, event.tool, s, this.options.verbose ?? false));
        return this.markShown(event.callId);
      }
      case 'tool_progress':
        return this.toolProgress(event);
      case 'tool_call_end':
        this.toolEnd(event);
        // The last running call ended: the model is asked again.
        return this.kinds.size === 0 ? this.waitFor(event.agent) : undefined;
      case 'usage':
      case 'subagent_usage':
        addUsage(this.usage, event.usage);
        return;
      case 'retry':
        this.status(s.yellow(`↻ ${event.reason} — retrying in ${duration(event.delayMs)} (attempt ${event.attempt})`));
        return this.waitFor(event.agent);
      case 'task_complete':
        return this.status(s.green(`✔ Task complete: ${event.summary}`));
      case 'doom_loop':
        return this.status(s.yellow(`⚠ Stopped: ${event.tool} was called with the same arguments ${event.repeats} times in a row.`));
      case 'error':
        this.shownError = event.message;
        return this.status(s.red(`✖ ${event.message}`));
      // run_complete tells the cancel, with who was at work and how to go on: one line, not two.
      case 'cancelled':
        return;
      case 'coagent_start':
        this.reviewing = true;
        this.status(s.cyan(`⇄ ${event.agent} reviews ${event.primary}'s work (round ${event.round})`));
        return this.waitFor(event.agent);
      case 'coagent_end':
        this.reviewing = false;
        this.status(REVIEW_LINES[event.verdict](event.agent, s));
        for (const held of this.held.splice(0)) this.render(held);
        // Sent back: the primary's model is asked again.
        return event.verdict === 'feedback' ? this.waitFor(event.primary) : undefined;
      case 'handoff':
        // A review and its feedback are told by the coagent_start/coagent_end lines around them.
        if (event.purpose === 'review' || event.purpose === 'feedback') return;
        this.status(s.dim(`→ ${event.agent} hands over to ${event.to} (${event.purpose.replace('_', ' ')})`));
        return this.waitFor(event.to);
      case 'compaction':
        return this.status(
          s.dim(`⤓ ${event.agent}'s history compacted to fit the context window (~${count(event.tokensBefore)} → ~${count(event.tokensAfter)} tokens: ${event.how})`),
        );
      case 'subagent_start':
        return this.status(s.cyan(`→ Running ${event.subagent}… ${s.dim(oneLine(event.task, 160))}`));
      case 'subagent_progress':
        return this.status(s.dim(`  ${event.subagent}: ${oneLine(event.text, 160)}`));
      case 'subagent_end':
        return this.status(
          (event.status === 'completed' ? s.green : s.yellow)(`← ${event.subagent} ${event.status}: ${oneLine(event.summary, 160)}`),
        );
      case 'notice': {
        const paint = event.level === 'error' ? s.red : event.level === 'warning' ? s.yellow : s.dim;
        return this.status(paint(event.level === 'info' ? event.message : `crow: ${event.level}: ${event.message}`));
      }
      case 'run_complete':
        for (const held of this.held.splice(0)) this.render(held);
        // What the journal says the prompt changed: what `crow undo` would put back.
        if (event.changes && event.changes.length > 0) this.status(`${s.bold(changedLine(event.changes))}: ${changedList(event.changes)}`);
        if (event.status === 'completed' || event.status === 'needs_input') return;
        // The error that stopped the run is on screen already, under what it stopped.
        if (event.status === 'error' && this.shownError !== undefined && event.message.includes(this.shownError)) return;
        return this.status((event.status === 'error' ? s.red : s.yellow)(`⚠ ${this.cancelledBy(event.status, event.message)}`));
      default:
        unreachable(event);
    }
  }

  /**
   * Resolves once the line of tool call `callId` is on screen, so that a
   * question about the call comes under it. A question may be asked before
   * its tool_call_start event has come through the stream.
   */
  whenShown(callId: string): Promise<void> {
    if (this.shown.has(callId)) return Promise.resolve();
    return new Promise((resolve) => {
      const earlier = this.showing.get(callId);
      this.showing.set(callId, () => {
        earlier?.();
        resolve();
      });
    });
  }

  /** The change of `callId` was shown in its approval: its diff is not repeated when it ends. */
  markPreviewed(callId: string): void {
    this.previewed.add(callId);
  }

  /** Ends any open line (and writes pending markdown) before something else writes to the terminal; no live lines until resume(). */
  pause(): void {
    this.progress.suspend();
    this.breakLine();
    this.channel = 'status';
  }

  /** The terminal is the renderer's again (a question was answered). */
  resume(): void {
    this.progress.resume();
    this.progress.redraw();
  }

  /** A line the person typed was echoed at the cursor: the answer's line still arriving is not redrawn over it. */
  typedOver(): void {
    this.markdown?.detach();
  }

  /** The run is being stopped by `signal` (SIGTERM, SIGHUP), not by the person: its cancel lines say so. */
  stoppedBy(signal: string): void {
    this.stopSignal = signal;
  }

  /** A cancelled run's message, naming the signal that stopped it when one did. */
  private cancelledBy(status: string, message: string): string {
    if (status !== 'cancelled' || !this.stopSignal) return message;
    return /^Cancelled\b/.test(message) ? message.replace(/^Cancelled( by the user)?/, `Stopped by ${this.stopSignal}`) : `Stopped by ${this.stopSignal}. ${message}`;
  }

  /** The closing lines: tokens, tool calls, time, and how to continue the session or look into it. */
  finish(sessionId: string): void {
    this.progress.stopWaiting();
    this.progress.end();
    const s = this.target.errStyle;
    const u = this.usage;
    const tokens = [`${count(u.input + u.cacheRead + u.cacheWrite)} in`, `${count(u.output)} out`];
    if (u.cacheRead > 0) tokens.push(`${count(u.cacheRead)} cache read`);
    if (u.cacheWrite > 0) tokens.push(`${count(u.cacheWrite)} cache write`);
    if (u.reasoning > 0) tokens.push(`${count(u.reasoning)} reasoning`);
    const calls = `${this.toolCalls} tool call${this.toolCalls === 1 ? '' : 's'}`;
    this.status(s.dim(`${tokens.join(' · ')} · ${calls} · ${duration(Date.now() - this.started)}`));
    this.status(s.dim(`session ${sessionId} · continue: crow run --continue "..." · trace: crow trace ${sessionId.slice(0, 8)}`));
  }

  /** A spinner until `agent`'s model sends something (a live run on a terminal only). */
  private waitFor(agent: string): void {
    if (!this.options.replaying) this.progress.wait(`waiting for ${agent}`);
  }

  /** Names the agent whenever another one starts acting, so a person always knows who is at work. */
  private noteSpeaker(event: AgentEvent): void {
    if (!SPEAKING.has(event.type)) return;
    const first = this.speaker === undefined;
    if ((first && this.labelFirstSpeaker) || (!first && this.speaker !== event.agent)) {
      this.status(this.target.errStyle.bold(`[${event.agent}]`));
    }
    this.speaker = event.agent;
  }

  private markShown(callId: string): void {
    this.shown.add(callId);
    const waiting = this.showing.get(callId);
    this.showing.delete(callId);
    waiting?.();
  }

  private toolProgress(event: ProgressEvent): void {
    this.breakLine();
    this.channel = 'status';
    this.progress.update(event, this.words.get(event.callId));
  }

  private toolEnd(event: Extract<AgentEvent, { type: 'tool_call_end' }>): void {
    const s = this.target.errStyle;
    this.progress.end(event.callId);
    this.toolCalls += 1;
    this.shown.delete(event.callId);
    const { result } = event;
    const time = s.dim(toolTime(event));
    const kind = this.kinds.get(event.callId);
    this.kinds.delete(event.callId);
    const words = this.words.get(event.callId) ?? callWords(event.tool, {}, '');
    this.words.delete(event.callId);
    if (result.status === 'cancelled') {
      // The generic reason only repeats the mark; a signal is named instead of a person.
      const why = this.stopSignal ? `by ${this.stopSignal}` : result.error === CANCELLED_BY_USER ? '' : oneLine(result.error ?? '', 160);
      return this.status(`  ${s.yellow('⊘ cancelled')}${why ? ` ${why}` : ''} ${time}`);
    }
    if (event.tool === TASK_COMPLETE && result.status === 'success' && !this.options.verbose) return;
    this.status(endLine(words, event.tool, kind, result, time, s));
    const diff = result.metadata.diff;
    if (result.status === 'success' && diff && !this.previewed.delete(event.callId)) for (const line of diffLines(diff, s)) this.status(line);
  }

  private streamText(delta: string): void {
    this.progress.clear();
    this.switchTo('text');
    if (this.markdown) {
      this.markdown.push(delta);
      return;
    }
    this.target.out.write(delta);
    this.lineOpen = !delta.endsWith('\n');
  }

  private streamThinking(delta: string): void {
    this.progress.clear();
    this.switchTo('thinking');
    const s = this.target.errStyle;
    const prefix = s.dim(THINKING_PREFIX);
    // Every line of thinking starts with the mark, including one that began in an earlier delta.
    const lines = delta.split('\n');
    const text = lines
      .map((line, i) => {
        const startsLine = i > 0 || !this.lineOpen;
        return line === '' && i === lines.length - 1 ? '' : `${startsLine ? prefix : ''}${s.dim(line)}`;
      })
      .join('\n');
    this.target.err.write(text);
    this.lineOpen = !delta.endsWith('\n');
  }

  private switchTo(channel: Channel): void {
    if (this.channel !== channel) this.breakLine();
    this.channel = channel;
  }

  private status(line: string): void {
    this.progress.clear();
    this.breakLine();
    this.channel = 'status';
    this.target.err.write(`${line}\n`);
    this.progress.redraw();
  }

  private breakLine(): void {
    if (this.channel === 'text') this.markdown?.flush();
    if (!this.lineOpen) return;
    if (this.channel === 'text') this.target.out.write('\n');
    else this.target.err.write('\n');
    this.lineOpen = false;
  }
}

/** The call's own time, and apart from it how long it waited for the person's answer: "1.2s (waited 8.0s for approval)". */
function toolTime(event: Extract<AgentEvent, { type: 'tool_call_end' }>): string {
  const { durationMs, waitedMs } = event.result.metadata;
  const own = duration(durationMs ?? event.durationMs);
  return waitedMs !== undefined ? `${own} (waited ${duration(waitedMs)} for approval)` : own;
}

/** Events that end a wait for the model: something came, or the run is over. */
const ENDS_WAIT = new Set<AgentEvent['type']>(['text_delta', 'thinking_delta', 'tool_call_start', 'error', 'cancelled', 'task_complete', 'doom_loop', 'run_complete', 'turn_complete']);

/** Events whose agent is the one visibly at work. */
const SPEAKING = new Set<AgentEvent['type']>(['text_delta', 'thinking_delta', 'tool_call_start']);

const REVIEW_LINES: Record<ReviewVerdict, (agent: string, s: Style) => string> = {
  approved: (agent, s) => s.green(`✓ ${agent} approved`),
  feedback: (agent, s) => s.yellow(`↩ ${agent} sent the work back with feedback`),
  cancelled: (agent, s) => s.yellow(`⊘ ${agent}'s review was cancelled`),
  error: (agent, s) => s.red(`✖ ${agent}'s review failed`),
};
