/**
 * Turns what one running tool call reports (ToolProgress) into updates a
 * door can show without being flooded: the first change at once, then at
 * most one update per interval carrying the latest state (the tail of the
 * output, the last step), and while nothing changes a heartbeat so the
 * elapsed time moves. Nothing is sent after close(), so a call's progress
 * never arrives after its end.
 */
import type { ToolProgress, ToolStep } from '../tools/tool';
import { OutputTail, plainLine } from './output-tail';

/** What one update says; the engine adds who and which call. */
export interface ProgressUpdate {
  elapsedMs: number;
  tail?: string;
  lines?: number;
  step?: ToolStep;
}

/** Timers the feed runs on; a test passes its own clock. */
export interface ProgressClock {
  now(): number;
  setTimeout(run: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export interface ProgressFeedOptions {
  /** Shortest time between two updates of one call. Default 250 ms. */
  intervalMs?: number;
  /** Time after which a quiet call sends its elapsed time again. Default 1 s. */
  heartbeatMs?: number;
  clock?: ProgressClock;
}

/** Characters of a step's message a door is given. */
const MAX_STEP_CHARS = 200;

const SYSTEM_CLOCK: ProgressClock = {
  now: () => performance.now(),
  setTimeout: (run, ms) => setTimeout(run, ms).unref(),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

export class ToolProgressFeed implements ToolProgress {
  private readonly tail = new OutputTail();
  private readonly intervalMs: number;
  private readonly heartbeatMs: number;
  private readonly clock: ProgressClock;
  private startedAt: number | undefined;
  private lastStep: ToolStep | undefined;
  private hasOutput = false;
  private changed = false;
  private lastSent = -Infinity;
  private timer: { handle: unknown; due: number } | undefined;
  private closed = false;

  constructor(
    private readonly send: (update: ProgressUpdate) => void,
    options: ProgressFeedOptions = {},
  ) {
    this.intervalMs = options.intervalMs ?? 250;
    this.heartbeatMs = options.heartbeatMs ?? 1_000;
    this.clock = options.clock ?? SYSTEM_CLOCK;
  }

  start(): void {
    if (this.closed || this.startedAt !== undefined) return;
    this.startedAt = this.clock.now();
    this.schedule();
  }

  output(chunk: string): void {
    if (this.closed || chunk === '') return;
    this.tail.push(chunk);
    this.hasOutput = true;
    this.touch();
  }

  step(step: ToolStep): void {
    if (this.closed) return;
    this.lastStep = sanitized(step);
    this.touch();
  }

  /** The call ended: nothing more is sent. */
  close(): void {
    this.closed = true;
    if (this.timer) this.clock.clearTimeout(this.timer.handle);
    this.timer = undefined;
  }

  private touch(): void {
    this.changed = true;
    this.schedule();
  }

  /** When the next update is due: soon after a change, a heartbeat later when quiet, never before the work started unless something changed. */
  private due(): number | undefined {
    if (this.changed) return this.lastSent + this.intervalMs;
    if (this.startedAt === undefined) return undefined;
    return Math.max(this.lastSent, this.startedAt) + this.heartbeatMs;
  }

  private schedule(): void {
    const due = this.due();
    if (this.closed || due === undefined) return;
    if (this.timer && this.timer.due <= due) return;
    if (this.timer) this.clock.clearTimeout(this.timer.handle);
    this.timer = undefined;
    const wait = due - this.clock.now();
    if (wait <= 0) return this.flush();
    this.timer = { due, handle: this.clock.setTimeout(() => this.flush(), wait) };
  }

  private flush(): void {
    if (this.timer) this.clock.clearTimeout(this.timer.handle);
    this.timer = undefined;
    if (this.closed) return;
    const now = this.clock.now();
    this.lastSent = now;
    this.changed = false;
    this.send({
      elapsedMs: this.startedAt === undefined ? 0 : Math.round(now - this.startedAt),
      ...(this.hasOutput ? { tail: this.tail.text(), lines: this.tail.lines } : {}),
      ...(this.lastStep ? { step: this.lastStep } : {}),
    });
    this.schedule();
  }
}

/** A step as a door may show it: one plain line of bounded length, finite numbers only (its source may be an MCP server). */
function sanitized(step: ToolStep): ToolStep {
  const message = typeof step.message === 'string' ? plainLine(step.message.replace(/\s*\n\s*/g, ' ')).trim().slice(0, MAX_STEP_CHARS) : '';
  const number = (value: unknown): number | undefined => (typeof value === 'number' && Number.isFinite(value) ? value : undefined);
  const done = number(step.done);
  const total = number(step.total);
  return { ...(message !== '' ? { message } : {}), ...(done !== undefined ? { done } : {}), ...(total !== undefined ? { total } : {}) };
}

/** A step in a few words for people: `Indexing (3/10)`, `Indexing`, `(3)`; '' for none. */
export function stepText(step: ToolStep | undefined): string {
  if (!step) return '';
  const amount = step.done === undefined ? '' : step.total !== undefined ? `(${step.done}/${step.total})` : `(${step.done})`;
  return [step.message ?? '', amount].filter((part) => part !== '').join(' ');
}
