import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { CROW, until } from './crow-binary';

/** `crow acp-bridge` on a free port; `url` (with its token, as printed) once it listens. */
export interface Bridge {
  child: ChildProcessWithoutNullStreams;
  /** ws://127.0.0.1:PORT/?token=TOKEN, or ws://127.0.0.1:PORT/ when the token came from a file. */
  url: string;
  /** The URL without its token. */
  bare: string;
  token: string | undefined;
  stderr(): string;
  exited: Promise<number | null>;
}

export async function startBridge(args: string[], env: NodeJS.ProcessEnv, cwd: string): Promise<Bridge> {
  const child = spawn(process.execPath, [CROW, 'acp-bridge', '--port', '0', ...args], { cwd, env });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((done) => child.on('close', (code) => done(code)));
  await until(() => / on ws:\/\/\S+/.test(stderr), `the bridge to listen; stderr:\n${stderr}`, 5_000);
  const url = / on (ws:\/\/\S+)/.exec(stderr)![1]!;
  const parsed = new URL(url);
  const token = parsed.searchParams.get('token') ?? undefined;
  return { child, url, bare: `${parsed.origin}/`, token, stderr: () => stderr, exited };
}
