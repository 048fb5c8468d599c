import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { Readable, Writable } from 'node:stream';
import * as acp from '@agentclientprotocol/sdk';
import { TestClient, type TestClientOptions } from './acp-client';

export const CROW = resolve(__dirname, '../../dist/crow.js');

/** `crow acp` as a subprocess, driven by the SDK client. */
export interface CrowAcp {
  child: ChildProcessWithoutNullStreams;
  client: TestClient;
  stderr(): string;
  /** Ends its input and waits for it to exit; returns the exit code. */
  stop(): Promise<number | null>;
}

/** Starts the built `crow acp` in `cwd` with exactly `env`, and initializes a client on it. */
export async function startCrowAcp(cwd: string, env: NodeJS.ProcessEnv, options: TestClientOptions = {}): Promise<CrowAcp> {
  const child = spawn(process.execPath, [CROW, 'acp'], { cwd, env });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((done) => child.on('close', (code) => done(code)));
  const stream = acp.ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout) as unknown as ReadableStream<Uint8Array>);
  const client = new TestClient(stream, options);
  await client.initialize();
  return {
    child,
    client,
    stderr: () => stderr,
    stop: async () => {
      client.close();
      child.stdin.end();
      return exited;
    },
  };
}
