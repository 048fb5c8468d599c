import { PassThrough } from 'node:stream';
import type { CliIO } from '../../src/adapters/cli/cli-io';

/** A CliIO for running commands in-process: no TTY, captured output, scripted answers on stdin. */
export function fakeIO(options: { env?: NodeJS.ProcessEnv; cwd?: string; answers?: string[] } = {}): CliIO & {
  out(): string;
  err(): string;
} {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (d: Buffer) => (out += d.toString()));
  stderr.on('data', (d: Buffer) => (err += d.toString()));
  const answers = [...(options.answers ?? [])];
  return {
    stdout: stdout as unknown as NodeJS.WriteStream,
    stderr: stderr as unknown as NodeJS.WriteStream,
    env: { PATH: process.env.PATH, ...options.env },
    cwd: options.cwd ?? process.cwd(),
    stdinIsTTY: false,
    readStdin: async () => '',
    readLine: async () => answers.shift(),
    onInterrupt: () => () => undefined,
    out: () => out,
    err: () => err,
  };
}
