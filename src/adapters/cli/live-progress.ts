/**
 * How `crow run` shows a tool call that is still running, and that it
 * waits for a model. On a terminal: a few lines under the call's line (the
 * end of its output, then how long it has run), or a spinner with the time
 * waited so far, redrawn in place and erased before anything else is
 * written. On a pipe or in a file, where nothing can be redrawn: a line
 * now and then saying the call is still running, with its last output line.
 */
import type { TranscriptEntry } from '../../transcript/entries';
import { plainLine } from '../../engine/output-tail';
import { count, duration } from '../../telemetry/readable';
import type { Style } from './terminal-style';
import { oneLine } from '../../vocabulary/text';
import type { CallWords } from '../../vocabulary/tool-story';

/** A running call's progress as the transcript model words it (its step in words). */
export type ProgressEntry = Pick<Extract<TranscriptEntry, { type: 'tool_progress' }>, 'callId' | 'elapsedMs' | 'tail' | 'lines' | 'step'>;

/** Lines of output shown under a running call on a terminal. */
export const TAIL_ROWS = 5;
/** On a pipe, a running call is mentioned once per this much of its time. */
export const PIPE_EVERY_MS = 30_000;

export interface ProgressView {
  /** The latest progress of a running call, with its words as its start line said them. */
  update(event: ProgressEntry, words?: CallWords): void;
  /** The call ended (every call, when none is named): its lines go. */
  end(callId?: string): void;
  /** Erases the live lines before something else is written. */
  clear(): void;
  /** Draws them again under what was written. */
  redraw(): void;
  /** A question is on screen: no live lines until it is answered (resume). */
  suspend(): void;
  resume(): void;
  /** Nothing has come from `who` yet: a spinner and the time waited, until stopWaiting (or a call's progress). */
  wait(who: string): void;
  stopWaiting(): void;
}

/** The spinner's frames, one per SPIN_MS. */
const SPINNER = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
export const SPIN_MS = 100;

/** The live lines on a terminal whose width `columns` tells; one call at a time, the one that reported last. */
export class TerminalProgress implements ProgressView {
  private latest: ProgressEntry | undefined;
  private rows = 0;
  private suspended = false;
  private waiting: { who: string; since: number; timer: NodeJS.Timeout } | undefined;

  constructor(
    private readonly err: { write(text: string): unknown },
    private readonly style: Style,
    private readonly columns: () => number,
  ) {}

  update(event: ProgressEntry): void {
    this.latest = event;
    this.redraw();
  }

  end(callId?: string): void {
    if (callId !== undefined && this.latest?.callId !== callId) return;
    this.clear();
    this.latest = undefined;
  }

  clear(): void {
    const erase = this.erase();
    if (erase !== '') this.err.write(erase);
  }

  /** Erases and draws in one write, so the lines do not flicker. */
  redraw(): void {
    const erase = this.erase();
    const lines = this.suspended
      ? []
      : this.latest
        ? progressLines(this.latest, this.style, Math.max(10, this.columns() - 1))
        : this.waiting
          ? [this.spinnerLine(this.waiting)]
          : [];
    if (lines.length === 0) {
      if (erase !== '') this.err.write(erase);
      return;
    }
    this.err.write(erase + lines.map((line) => `${line}\n`).join(''));
    this.rows = lines.length;
  }

  /** Cursor up over the live lines, then erase to the end of the screen; '' when none are drawn. */
  private erase(): string {
    const rows = this.rows;
    this.rows = 0;
    return rows === 0 ? '' : `\x1b[${rows}A\r\x1b[J`;
  }

  wait(who: string): void {
    if (this.waiting?.who === who) return;
    this.stopWaiting();
    // Not a reason to keep the process alive.
    const timer = setInterval(() => this.redraw(), SPIN_MS).unref();
    this.waiting = { who, since: Date.now(), timer };
    this.redraw();
  }

  stopWaiting(): void {
    if (!this.waiting) return;
    clearInterval(this.waiting.timer);
    this.waiting = undefined;
    if (!this.latest) this.clear();
  }

  private spinnerLine({ who, since }: { who: string; since: number }): string {
    const waited = Date.now() - since;
    const frame = SPINNER[Math.floor(waited / SPIN_MS) % SPINNER.length]!;
    return `${this.style.cyan(frame)} ${this.style.dim(`${fit(who, Math.max(10, this.columns() - 20))} · ${Math.floor(waited / 1000)}s`)}`;
  }

  suspend(): void {
    this.clear();
    this.suspended = true;
  }

  resume(): void {
    this.suspended = false;
  }
}

/** On a pipe: a line per PIPE_EVERY_MS of a call's time, through `say`. */
export class PipeProgress implements ProgressView {
  private readonly told = new Map<string, number>();

  constructor(
    private readonly say: (line: string) => void,
    private readonly style: Style,
  ) {}

  update(event: ProgressEntry, words?: CallWords): void {
    const period = Math.floor(event.elapsedMs / PIPE_EVERY_MS);
    if (period <= (this.told.get(event.callId) ?? 0)) return;
    this.told.set(event.callId, period);
    const last = event.tail?.split('\n').at(-1)?.trim();
    // In the person's words, as the call's start line: "still running npm test", not the tool's name.
    const what = words ? `${words.doing.toLowerCase()}${words.target ? ` ${oneLine(words.target, 80)}` : ''}` : 'working';
    this.say(this.style.dim(`  ⋯ still ${what} (${duration(event.elapsedMs)})${last ? `: ${fit(last, 160)}` : ''}`));
  }

  end(callId?: string): void {
    if (callId === undefined) this.told.clear();
    else this.told.delete(callId);
  }

  clear(): void {}
  redraw(): void {}
  suspend(): void {}
  resume(): void {}
  wait(): void {}
  stopWaiting(): void {}
}

/** The lines under a running call: the last TAIL_ROWS lines of output, then its time, line count and step; each fits `width`. */
export function progressLines(event: ProgressEntry, style: Style, width: number): string[] {
  const tail = (event.tail ?? '').split('\n').slice(-TAIL_ROWS);
  const facts = [duration(event.elapsedMs)];
  if (event.lines !== undefined) facts.push(`${count(event.lines)} ${event.lines === 1 ? 'line' : 'lines'}`);
  const step = event.step ?? '';
  if (step !== '') facts.push(step);
  return [
    ...(event.tail ? tail.map((line) => style.dim(`  │ ${fit(line, width - 4)}`)) : []),
    style.dim(`  ⋯ ${fit(facts.join(' · '), width - 4)}`),
  ];
}

/** A line cut to `width` terminal columns (wide characters count two), plain text only. */
function fit(line: string, width: number): string {
  const chars = [...plainLine(line).replace(/\t/g, '  ')];
  const columns = (char: string): number => ((char.codePointAt(0) ?? 0) >= 0x1100 ? 2 : 1);
  if (chars.reduce((sum, char) => sum + columns(char), 0) <= width) return chars.join('');
  let out = '';
  let used = 0;
  for (const char of chars) {
    if (used + columns(char) > width - 1) break;
    out += char;
    used += columns(char);
  }
  return `${out}…`;
}

/** Entries that end a wait for the model: something came, or the run is over. */
export function endsWait(entry: TranscriptEntry): boolean {
  switch (entry.type) {
    case 'text':
    case 'thinking':
    case 'tool_start':
    case 'stopped':
    case 'task_complete':
    case 'prompt_end':
    case 'turn_end':
      return true;
    case 'notice':
      return entry.about === 'doom_loop' || entry.about === 'ended_short';
    default:
      return false;
  }
}
