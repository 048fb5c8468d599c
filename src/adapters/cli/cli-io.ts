import { createInterface } from 'node:readline';

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
}

export type StopSignal = 'SIGINT' | 'SIGTERM' | 'SIGHUP';

const STOP_SIGNALS: readonly StopSignal[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];

/** How a command stopped by a signal exits: 128 + the signal's number, as shells report it. */
export const STOP_EXIT_CODES: Record<StopSignal, number> = { SIGINT: 130, SIGTERM: 143, SIGHUP: 129 };

/** A mistake in how the command was called; printed without a stack, exit code 2. */
export class UsageError extends Error {
  override name = 'UsageError';
}

export function processIO(): CliIO {
  return {
    stdout: process.stdout,
    stderr: process.stderr,
    env: process.env,
    cwd: process.cwd(),
    stdinIsTTY: process.stdin.isTTY === true,
    async readStdin() {
      const chunks: Buffer[] = [];
      for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
      return Buffer.concat(chunks).toString('utf8');
    },
    readLine(signal) {
      return readOneLine(process.stdin, signal);
    },
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

function readOneLine(input: NodeJS.ReadableStream, signal: AbortSignal): Promise<string | undefined> {
  if (signal.aborted) return Promise.resolve(undefined);
  return new Promise((resolve) => {
    const lines = createInterface({ input, terminal: false });
    const finish = (line: string | undefined): void => {
      signal.removeEventListener('abort', onAbort);
      lines.close();
      resolve(line);
    };
    const onAbort = (): void => finish(undefined);
    lines.once('line', (line) => finish(line));
    lines.once('close', () => finish(undefined));
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
