import { isatty } from 'node:tty';
import type { LineOptions, TypedLine } from './terminal-line';

/** The process surface the CLI uses, injectable so commands can be tested in-process. */
export interface CliIO {
  stdout: NodeJS.WriteStream;
  stderr: NodeJS.WriteStream;
  env: NodeJS.ProcessEnv;
  cwd: string;
  stdinIsTTY: boolean;
  readStdin(): Promise<string>;
  /** One line typed on stdin; undefined at end of input or when the signal aborts. */
  readLine(signal: AbortSignal): Promise<string | undefined>;
  /**
   * Subscribes to the signals that ask crow to stop: Ctrl-C (SIGINT),
   * SIGTERM and SIGHUP (what editors and terminals send). The handler gets
   * the signal and should wind the command down, stopping what it started;
   * a second signal ends the process at once (the commands it runs are
   * killed on the way out). Returns the unsubscribe function.
   */
  onInterrupt(handler: (signal: StopSignal) => void): () => void;
  /** One line typed at the terminal, shown as typed or not at all (terminal-line.ts); absent where stdin is no terminal. */
  readTerminalLine?(options: LineOptions): Promise<TypedLine>;
}

export type StopSignal = 'SIGINT' | 'SIGTERM' | 'SIGHUP';

const STOP_SIGNALS: readonly StopSignal[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];

/** How a command stopped by a signal exits: 128 + the signal's number, as shells report it. */
export const STOP_EXIT_CODES: Record<StopSignal, number> = { SIGINT: 130, SIGTERM: 143, SIGHUP: 129 };

/** A mistake in how the command was called; printed without a stack, exit code 2. */
export class UsageError extends Error {
  override name = 'UsageError';
}

let stdinLines: LineReader | undefined;

export function processIO(): CliIO {
  return {
    stdout: process.stdout,
    stderr: process.stderr,
    env: process.env,
    cwd: process.cwd(),
    // Asked of the descriptor: touching process.stdin would open a stream on it (and load the fs stream modules) in every run.
    stdinIsTTY: isatty(0),
    async readStdin() {
      const chunks: Buffer[] = [];
      for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
      return Buffer.concat(chunks).toString('utf8');
    },
    readLine(signal) {
      stdinLines ??= new LineReader(process.stdin);
      return stdinLines.next(signal);
    },
    ...(isatty(0)
      ? {
          readTerminalLine(options: LineOptions) {
            const { readTerminalLine } = require('./terminal-line') as typeof import('./terminal-line');
            return readTerminalLine(process.stdin, process.stderr, options);
          },
        }
      : {}),
    onInterrupt(handler) {
      let interrupts = 0;
      const listener = (signal: StopSignal): void => {
        interrupts += 1;
        if (interrupts > 1) process.exit(STOP_EXIT_CODES[signal]);
        handler(signal);
      };
      for (const signal of STOP_SIGNALS) process.on(signal, listener);
      return () => {
        for (const signal of STOP_SIGNALS) process.off(signal, listener);
      };
    },
  };
}

/**
 * Lines typed on a stream, one at a time, for the life of the process. One
 * reader owns the stream: a readline made per question would be closed with
 * the answer still in flight, and would swallow lines typed ahead.
 */
export class LineReader {
  private readonly lines: string[] = [];
  private readonly waiting: ((line: string | undefined) => void)[] = [];
  private ended = false;
  private started = false;

  constructor(private readonly input: NodeJS.ReadableStream) {}

  /** The next line; undefined at end of input or when the signal aborts (the line stays for the next reader). */
  next(signal: AbortSignal): Promise<string | undefined> {
    if (signal.aborted) return Promise.resolve(undefined);
    this.start();
    const ready = this.lines.shift();
    if (ready !== undefined) return Promise.resolve(ready);
    if (this.ended) return Promise.resolve(undefined);
    return new Promise((resolve) => {
      const deliver = (line: string | undefined): void => {
        signal.removeEventListener('abort', onAbort);
        resolve(line);
      };
      const onAbort = (): void => {
        this.waiting.splice(this.waiting.indexOf(deliver), 1);
        this.pauseIfIdle();
        resolve(undefined);
      };
      this.waiting.push(deliver);
      signal.addEventListener('abort', onAbort, { once: true });
      this.input.resume();
    });
  }

  private start(): void {
    if (this.started) return;
    this.started = true;
    if ((this.input as NodeJS.ReadableStream & { readableEnded?: boolean }).readableEnded) {
      this.ended = true;
      return;
    }
    // node:readline is required once something reads lines, not in every run.
    const { createInterface } = require('node:readline') as typeof import('node:readline');
    const reader = createInterface({ input: this.input, terminal: false, crlfDelay: Infinity });
    reader.on('line', (line) => {
      const waiter = this.waiting.shift();
      if (waiter) waiter(line);
      else this.lines.push(line);
      this.pauseIfIdle();
    });
    reader.on('close', () => {
      this.ended = true;
      for (const waiter of this.waiting.splice(0)) waiter(undefined);
    });
  }

  /** Nobody waits: stop reading, so an idle prompt does not keep the process alive or eat input. */
  private pauseIfIdle(): void {
    if (this.waiting.length === 0) this.input.pause();
  }
}
