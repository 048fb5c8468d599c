import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { Readable, Writable } from 'node:stream';
import * as acp from '@agentclientprotocol/sdk';
import { TestClient, type TestClientOptions } from './acp-client';
import { isolatedEnv } from './isolated-env';

/** The built binary (npm run build). */
export const CROW = resolve(__dirname, '../../dist/crow.js');

export interface CrowRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `crow ARGS` to its end with config, data and state under `home`, plus `env`. */
export function runCrow(args: string[], home: string, env: Record<string, string> = {}): Promise<CrowRun> {
  const child = spawn(process.execPath, [CROW, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: isolatedEnv(home, env) });
  const output = { stdout: '', stderr: '' };
  child.stdout.on('data', (data: Buffer) => (output.stdout += data.toString()));
  child.stderr.on('data', (data: Buffer) => (output.stderr += data.toString()));
  return new Promise((done) => child.on('close', (code) => done({ code, ...output })));
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
