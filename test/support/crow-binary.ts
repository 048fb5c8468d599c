import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { Readable, Writable } from 'node:stream';
import * as acp from '@agentclientprotocol/sdk';
import { TestClient, type TestClientOptions } from './acp-client';
import { isolatedEnv } from './isolated-env';

/** The built binary (npm run build). */
export const CROW = resolve(__dirname, '../../dist/crow.js');

/** A running `node dist/crow.js …`: its output so far, and its end. */
export interface CrowProcess {
  child: ChildProcessWithoutNullStreams;
  stdout(): string;
  stderr(): string;
  /** How it ended: its exit code, or the signal that killed it. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Starts the binary with exactly `env` (see isolatedEnv) in `cwd`; stdin is a pipe left open. */
export function startCrow(args: string[], env: NodeJS.ProcessEnv, cwd: string): CrowProcess {
  const child = spawn(process.execPath, [CROW, ...args], { cwd, env });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((done) =>
    child.on('close', (code, signal) => done({ code, signal })),
  );
  return { child, stdout: () => stdout, stderr: () => stderr, exited };
}

/** Runs the binary to its end with stdin closed. */
export async function runCrow(args: string[], env: NodeJS.ProcessEnv, cwd: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const crow = startCrow(args, env, cwd);
  crow.child.stdin.end();
  const { code } = await crow.exited;
  return { code, stdout: crow.stdout(), stderr: crow.stderr() };
}

/** Polls `condition` every 20 ms; rejects naming `what` after `timeoutMs`. */
export async function until(condition: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((done) => setTimeout(done, 20));
  }
}

/** `crow acp` as a subprocess, driven by the SDK client. */
export interface AcpProcess {
  child: ChildProcessWithoutNullStreams;
  client: TestClient;
  stderr(): string;
  exited: Promise<number | null>;
  /** Ends its input and waits for it to exit; its exit code. */
  stop(): Promise<number | null>;
}

/** Starts `crow acp` in `cwd` with config, data and state under `home`, plus `env`. */
export function startAcp(cwd: string, home: string, env: Record<string, string>, options: TestClientOptions = {}): AcpProcess {
  const child = spawn(process.execPath, [CROW, 'acp'], { cwd, env: isolatedEnv(home, env) });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((done) => child.on('close', (code) => done(code)));
  const stream = acp.ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout) as unknown as ReadableStream<Uint8Array>);
  const client = new TestClient(stream, options);
  return {
    child,
    client,
    stderr: () => stderr,
    exited,
    stop: () => {
      client.close();
      child.stdin.end();
      return exited;
    },
  };
}
