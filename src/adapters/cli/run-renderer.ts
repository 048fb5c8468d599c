import { oneLine } from '../../vocabulary/text';
import { count, duration } from '../../telemetry/readable';
import type { AgentEvent } from '../../engine/events';
import { unreachable } from '../../engine/events';
import type { Usage } from '../../llm/types';
import type { ToolKind } from '../../tools/tool';
import { addUsage, emptyUsage } from '../../llm/types';
import type { CallWords } from '../../vocabulary/tool-story';
import type { TranscriptEntry } from '../../transcript/entries';
import { TranscriptModel } from '../../transcript/transcript-model';
import { endLine, helperLine, startLine, toolTime } from './call-lines';
import { diffLines } from './diff-lines';
import { endsWait, PipeProgress, type ProgressEntry, type ProgressView, TerminalProgress } from './live-progress';
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
 * Draws the transcript model's entries (src/transcript/: what is shown and
 * in which words) as what a person wants to read in a terminal: the
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
  private readonly held: TranscriptEntry[] = [];
  /** What is shown and in which words. */
  private readonly model: TranscriptModel;
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
    this.model = new TranscriptModel({ replaying: options.replaying });
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
    for (const entry of this.model.handle(event)) this.draw(entry);
  }

  /** One entry of the transcript model as terminal lines: the model decides what is shown and its words, this only their marks and colours. */
  private draw(entry: TranscriptEntry): void {
    if (this.reviewing && entry.type === 'task_complete') {
      this.held.push(entry);
      return;
    }
    if (endsWait(entry)) this.progress.stopWaiting();
    this.noteSpeaker(entry);
    const { errStyle: s } = this.target;
    switch (entry.type) {
      case 'prompt':
        if (entry.steered) return this.status(`${s.bold(`› ${oneLine(entry.text, 400)}`)} ${s.dim(`(sent while the agents worked; ${entry.steered.agent} has it now)`)}`);
        this.labelFirstSpeaker = entry.reviewer !== undefined;
        this.speaker = undefined;
        return entry.sent ? undefined : this.status(s.bold(`› ${oneLine(entry.text, 400)}`));
      // crow sessions checkpoints lists them; a line per change would bury the work.
      case 'checkpoint':
        return undefined;
      case 'context':
        return this.status(s.dim(contextLine(entry)));
      // The todo tool's own line shows the list as it changes.
      case 'plan':
      case 'turn_start':
      case 'turn_end':
      case 'files_changed':
        return;
      case 'text':
        return this.streamText(entry.delta);
      case 'thinking':
        return this.streamThinking(entry.delta);
      // The answer streamed already; the summary has its own ✔ line (see task_complete).
      case 'summary':
        return;
      case 'tool_start':
        this.kinds.set(entry.callId, entry.kind);
        this.words.set(entry.callId, entry.words);
        this.status(startLine(entry.words, entry.tool, s, this.options.verbose ?? false));
        return this.markShown(entry.callId);
      case 'tool_progress':
        return this.toolProgress(entry);
      case 'tool_end':
        this.toolEnd(entry);
        // The last running call ended: the model is asked again.
        return this.kinds.size === 0 ? this.waitFor(entry.actor.agent) : undefined;
      case 'cost':
        addUsage(this.usage, entry.usage);
        return;
      case 'notice':
        return this.notice(entry);
      case 'task_complete':
        return this.status(s.green(`✔ Task complete: ${entry.summary}`));
      case 'stopped':
        // run_complete tells a cancel, with who was at work and how to go on: one line, not two.
        if (entry.why === 'cancelled') return;
        this.shownError = entry.message;
        return this.status(s.red(`✖ ${entry.message}`));
      case 'review_start':
        this.reviewing = true;
        this.status(s.cyan(`⇄ ${entry.roundText}: ${entry.text}`));
        return this.waitFor(entry.reviewer.agent);
      case 'verdict':
        return this.verdict(entry);
      case 'handoff':
        // A review and its feedback are told by the review's lines around them.
        if (entry.purpose === 'review' || entry.purpose === 'feedback') return;
        this.status(s.dim(`→ ${entry.words}`));
        return this.waitFor(entry.to.agent);
      case 'subagent':
        return this.status(helperLine(entry, s));
      case 'prompt_end':
        return this.promptEnd(entry);
      default:
        unreachable(entry);
    }
  }

  private verdict(entry: Extract<TranscriptEntry, { type: 'verdict' }>): void {
    const s = this.target.errStyle;
    this.reviewing = false;
    const paint = entry.verdict === 'approved' ? s.green : entry.verdict === 'error' ? s.red : s.yellow;
    this.status(paint(`${entry.mark} ${entry.text}`));
    for (const held of this.held.splice(0)) this.draw(held);
    // Sent back: the primary's model is asked again.
    if (entry.verdict === 'feedback') this.waitFor(entry.primary.agent);
  }

  private promptEnd(entry: Extract<TranscriptEntry, { type: 'prompt_end' }>): void {
    const s = this.target.errStyle;
    for (const held of this.held.splice(0)) this.draw(held);
    // What the journal says the prompt changed: what `crow undo` would put back.
    if (entry.changes && entry.changes.length > 0) this.status(`${s.bold(changedLine(entry.changes))}: ${changedList(entry.changes)}`);
    if (entry.status === 'completed' || entry.status === 'needs_input') return;
    // The error that stopped the run is on screen already, under what it stopped.
    if (entry.status === 'error' && this.shownError !== undefined && entry.message.includes(this.shownError)) return;
    this.status((entry.status === 'error' ? s.red : s.yellow)(`⚠ ${this.cancelledBy(entry.status, entry.message)}`));
  }

  /** A notice: the host's as it always read in a terminal, the work's (a retry, a stuck loop, a compaction, a turn cut short) with its mark. */
  private notice(entry: Extract<TranscriptEntry, { type: 'notice' }>): void {
    const s = this.target.errStyle;
    switch (entry.about) {
      case 'host': {
        const paint = entry.level === 'error' ? s.red : entry.level === 'warning' ? s.yellow : s.dim;
        return this.status(paint(entry.level === 'info' ? entry.text : `crow: ${entry.level}: ${entry.text}`));
      }
      case 'retry':
        this.status(s.yellow(`↻ ${entry.text}`));
        return entry.actor ? this.waitFor(entry.actor.agent) : undefined;
      case 'doom_loop':
      case 'ended_short':
        return this.status(s.yellow(`⚠ ${entry.text}`));
      case 'compaction':
        return this.status(s.dim(`⤓ ${entry.text}`));
      default:
        unreachable(entry.about);
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
  private noteSpeaker(entry: TranscriptEntry): void {
    if (entry.type !== 'text' && entry.type !== 'thinking' && entry.type !== 'tool_start') return;
    const { agent } = entry.actor;
    const first = this.speaker === undefined;
    if ((first && this.labelFirstSpeaker) || (!first && this.speaker !== agent)) {
      this.status(this.target.errStyle.bold(`[${agent}]`));
    }
    this.speaker = agent;
  }

  private markShown(callId: string): void {
    this.shown.add(callId);
    const waiting = this.showing.get(callId);
    this.showing.delete(callId);
    waiting?.();
  }

  private toolProgress(entry: ProgressEntry): void {
    this.breakLine();
    this.channel = 'status';
    this.progress.update(entry, this.words.get(entry.callId));
  }

  private toolEnd(entry: Extract<TranscriptEntry, { type: 'tool_end' }>): void {
    const s = this.target.errStyle;
    this.progress.end(entry.callId);
    this.toolCalls += 1;
    this.shown.delete(entry.callId);
    const { result } = entry;
    const time = s.dim(toolTime(entry));
    const kind = this.kinds.get(entry.callId);
    this.kinds.delete(entry.callId);
    this.words.delete(entry.callId);
    if (entry.status === 'cancelled') {
      // The generic reason only repeats the mark; a signal is named instead of a person.
      const why = this.stopSignal ? `by ${this.stopSignal}` : result.error === CANCELLED_BY_USER ? '' : oneLine(result.error ?? '', 160);
      return this.status(`  ${s.yellow('⊘ cancelled')}${why ? ` ${why}` : ''} ${time}`);
    }
    this.status(endLine(entry.title, entry.words, entry.tool, kind, result, time, s));
    const diff = result.metadata.diff;
    if (result.status === 'success' && diff && !this.previewed.delete(entry.callId)) for (const line of diffLines(diff, s)) this.status(line);
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
