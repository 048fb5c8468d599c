/** The process surface the CLI uses, injectable so commands can be tested in-process. */
export interface CliIO {
  stdout: NodeJS.WriteStream;
  stderr: NodeJS.WriteStream;
  env: NodeJS.ProcessEnv;
  cwd: string;
  stdinIsTTY: boolean;
  readStdin(): Promise<string>;
  /** Subscribes to Ctrl-C; returns the unsubscribe function. */
  onInterrupt(handler: () => void): () => void;
}

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
    onInterrupt(handler) {
      let interrupts = 0;
      const listener = (): void => {
        interrupts += 1;
        if (interrupts > 1) process.exit(130);
        handler();
      };
      process.on('SIGINT', listener);
      return () => process.off('SIGINT', listener);
    },
  };
}
