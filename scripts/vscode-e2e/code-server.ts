/**
 * Starts code-server (VS Code's server, on Node 24) on loopback for one
 * workbench, and stops it for good: it runs in its own process group (a
 * file-watcher child outlives the parent), and the whole group is killed.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, mkdirSync, type WriteStream } from 'node:fs';
import { get } from 'node:http';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { HarnessError } from './harness-error';
import { ARTIFACTS_DIR, CODE_SERVER_ENTRY, NODE_BIN } from './paths';
import type { Sandbox } from './sandbox';

const READY_TIMEOUT_MS = 60_000;
const STOP_GRACE_MS = 5_000;
const OUTPUT_TAIL_LINES = 30;

export interface CodeServer {
  /** e.g. http://127.0.0.1:40123 */
  url: string;
  /** Where its stdout and stderr go (kept in the artifacts folder). */
  logFile: string;
  /** The last lines it printed, for error messages. */
  tail(): string;
  /** Kills the process group; idempotent. */
  stop(): Promise<void>;
}

/** `workspaceTrust`: VS Code's Workspace Trust on, so the opened folder starts untrusted (Restricted Mode). */
export async function startCodeServer(sandbox: Sandbox, name: string, options: { workspaceTrust?: boolean } = {}): Promise<CodeServer> {
  const port = await freePort();
  mkdirSync(ARTIFACTS_DIR, { recursive: true });
  const logFile = join(ARTIFACTS_DIR, `code-server-${name}.log`);
  const log = createWriteStream(logFile);
  const args = [
    CODE_SERVER_ENTRY,
    '--bind-addr', `127.0.0.1:${port}`,
    '--auth', 'none',
    '--config', '/dev/null',
    '--disable-telemetry',
    '--disable-update-check',
    ...(options.workspaceTrust ? [] : ['--disable-workspace-trust']),
    '--disable-getting-started-override',
    '--user-data-dir', sandbox.userDataDir,
    '--extensions-dir', sandbox.extensionsDir,
    // Makes the workbench honour the URL's `payload` (extension development and tests paths).
    '--vscode-option', 'enable-smoke-test-driver',
  ];
  // `detached` puts code-server in a new session and process group (setsid), so the group can be killed whole.
  const child = spawn(NODE_BIN, args, { cwd: sandbox.workspace, env: sandbox.env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  const lines: string[] = [];
  const record = (chunk: Buffer): void => {
    log.write(chunk);
    lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
    lines.splice(0, Math.max(0, lines.length - OUTPUT_TAIL_LINES));
  };
  child.stdout!.on('data', record);
  child.stderr!.on('data', record);
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  // If the runner exits early, the group dies first (before the sandbox under it is removed).
  const killOnExit = (): void => killGroup(child, 'SIGKILL');
  process.prependOnceListener('exit', killOnExit);

  let stopped: Promise<void> | undefined;
  const server: CodeServer = {
    url: `http://127.0.0.1:${port}`,
    logFile,
    tail: () => lines.join('\n'),
    stop: () => {
      stopped ??= stop(child, exited, log).finally(() => process.off('exit', killOnExit));
      return stopped;
    },
  };
  try {
    await waitUntilHealthy(server, exited);
  } catch (error) {
    await server.stop();
    throw error;
  }
  return server;
}

async function stop(child: ChildProcess, exited: Promise<number | null>, log: WriteStream): Promise<void> {
  killGroup(child, 'SIGTERM');
  await Promise.race([exited, sleep(STOP_GRACE_MS)]);
  // Whatever is left of the group (the file watcher, a stubborn parent) goes now.
  killGroup(child, 'SIGKILL');
  await new Promise<void>((resolve) => log.end(resolve));
}

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, signal);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
  }
}

async function waitUntilHealthy(server: CodeServer, exited: Promise<number | null>): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  let exitCode: number | null | undefined;
  void exited.then((code) => (exitCode = code));
  while (Date.now() < deadline) {
    if (exitCode !== undefined) {
      throw new HarnessError(`code-server exited with ${exitCode} before it was ready. Its last lines:\n${server.tail()}`);
    }
    if (await healthy(`${server.url}/healthz`)) return;
    await sleep(200);
  }
  throw new HarnessError(
    `code-server did not answer ${server.url}/healthz within ${READY_TIMEOUT_MS / 1000} s. Its last lines:\n${server.tail()}`,
  );
}

function healthy(url: string): Promise<boolean> {
  return new Promise((resolve) => {
    const request = get(url, (response) => {
      response.resume();
      resolve(response.statusCode === 200);
    });
    request.setTimeout(2_000, () => request.destroy());
    request.once('error', () => resolve(false));
  });
}

/** A port nobody listens on right now (the OS picks it; code-server binds it a moment later). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}
