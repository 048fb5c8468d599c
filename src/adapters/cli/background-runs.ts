/**
 * `crow run --background`: the run goes on in a detached child process of
 * crow (its own process group, stdin closed, so the terminal's Ctrl-C and
 * hang-up do not reach it) while the person keeps their terminal. Its
 * files live in `background/ID/` of the data folder, beside the session
 * of the same id (0700, files 0600; not in the session's own folder, which
 * the store removes when a first prompt fails to start): `background.json` (its pid, folder, prompt, start), written by
 * the parent once the child runs; `background.log`, everything it prints;
 * `background-end.json`, how it ended, written by the child as it exits.
 *
 * A run is "running" while its pid is alive and is this run's own (on
 * Linux its command line names the run's id, so a pid reused by another
 * process after a crash is not taken for it); a pid that is gone with no
 * end written is a run that was killed or crashed. `crow sessions stop ID`
 * sends SIGTERM, which the run handles as a foreground run does (its
 * commands stopped first, exit 143).
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { closeSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from '../../config/paths';
import { BACKGROUND_LOG, BACKGROUND_RECORD, backgroundFolder as folderOf, type BackgroundRecord, type BackgroundState, backgroundState, listBackground, writeEnd, writeRecord } from '../../host/background-records';
import { type CliIO, UsageError } from './cli-io';

export { BACKGROUND_LOG, type BackgroundState, backgroundState } from '../../host/background-records';

/** The hidden flag that makes a `crow run` the child of a background run, naming its id. */
export const BACKGROUND_ID_FLAG = '--background-id';

/**
 * Starts the run in the background: `argv` is the `crow run` arguments
 * without --background. Prints the id and how to follow it; exit code 0
 * once the child runs.
 */
export function startBackground(argv: readonly string[], details: { root: string; prompt: string; attempts?: number }, data: string, io: CliIO): number {
  const script = process.argv[1];
  if (script === undefined || !isAbsolute(script)) throw new UsageError('--background needs crow started as a script (node crow.js): run it as the crow command.');
  const id = randomUUID();
  const folder = folderOf(data, id);
  mkdirSync(join(data, 'background'), { recursive: true, mode: PRIVATE_DIR_MODE });
  mkdirSync(folder, { mode: PRIVATE_DIR_MODE });
  const log = openSync(join(folder, BACKGROUND_LOG), 'a', PRIVATE_FILE_MODE);
  let pid: number | undefined;
  try {
    const child = spawn(process.execPath, [script, 'run', BACKGROUND_ID_FLAG, id, ...argv], { cwd: io.cwd, env: io.env, detached: true, stdio: ['ignore', log, log] });
    pid = child.pid;
    child.unref();
  } finally {
    closeSync(log);
  }
  if (pid === undefined) throw new UsageError(`Could not start the background run (see ${join(folder, BACKGROUND_LOG)}).`);
  const record: BackgroundRecord = { id, pid, cwd: details.root, prompt: details.prompt, ...(details.attempts !== undefined ? { attempts: details.attempts } : {}), startedAt: Date.now() };
  writeRecord(data, record);
  io.stdout.write(`${id}\n`);
  const what = details.attempts !== undefined ? `${details.attempts} attempts run` : 'The run goes on';
  io.stderr.write(
    `${what} in the background (pid ${pid}). Follow it with: crow sessions show ${id}\n` +
      `crow sessions list shows it as running until it ends; crow sessions stop ${id} stops it.\n`,
  );
  return 0;
}

/** Written by the background child as it exits. */
export function recordEnd(data: string, id: string, exitCode: number): void {
  // Only a run started by --background has a folder: a --background-id typed by hand records nothing.
  writeEnd(data, id, { endedAt: Date.now(), exitCode });
}

/** Background runs with no stored session of their own (attempts that applied nothing), of the folder `cwd` or all. */
export function backgroundOnly(data: string, cwd: string | undefined, stored: ReadonlySet<string>): BackgroundState[] {
  return listBackground(data, cwd === undefined ? {} : { cwd }).filter((state) => !stored.has(state.record.id));
}

/** The id of a background run `given` names (a unique start of one), or undefined. */
export function resolveBackground(data: string, given: string): string | undefined {
  const root = join(data, 'background');
  if (!/^[A-Za-z0-9_-]+$/.test(given) || !existsSync(root)) return undefined;
  const matches = readdirSync(root).filter((id) => id.startsWith(given) && existsSync(join(root, id, BACKGROUND_RECORD)));
  return matches.length === 1 ? matches[0] : undefined;
}

/** What `crow sessions list` and `show` say of a background run. */
export function stateText(state: BackgroundState): string {
  switch (state.state) {
    case 'running':
      return state.record.door === 'vscode' ? 'running in the background in a VS Code window' : `running in the background (pid ${state.record.pid})`;
    case 'finished':
      return `background run ${endText(state.end.exitCode)} at ${when(state.end.endedAt)}`;
    case 'gone':
      return 'background run ended without saying how (its process is gone: killed, or the machine stopped)';
  }
}

function endText(code: number): string {
  switch (code) {
    case 0:
      return 'finished';
    case 3:
      return 'stopped by a limit (exit 3)';
    case 130:
    case 143:
    case 129:
      return `stopped (exit ${code})`;
    default:
      return `failed (exit ${code})`;
  }
}

/** `crow sessions stop ID`: SIGTERM to a running background run; the exit code. */
export function stopBackground(data: string, id: string, io: CliIO): number {
  const state = backgroundState(data, id);
  if (!state) throw new UsageError(`Session ${id} is not a background run: only runs started with crow run --background can be stopped this way.`);
  if (state.state !== 'running') {
    io.stdout.write(`Session ${id} is not running: ${stateText(state)}.\n`);
    return 0;
  }
  // A VS Code window's run lives in that window's extension host: a signal would end the whole window's Crow.
  if (state.record.door === 'vscode') throw new UsageError(`Session ${id} runs in a VS Code window: stop it there (the chat's Background runs list, Stop).`);
  try {
    process.kill(state.record.pid, 'SIGTERM');
  } catch (err) {
    throw new UsageError(`Could not stop pid ${state.record.pid}: ${err instanceof Error ? err.message : String(err)}`);
  }
  io.stdout.write(`Sent SIGTERM to the background run ${id} (pid ${state.record.pid}): its commands stop first, then it ends. crow sessions show ${id} shows how.\n`);
  return 0;
}

/** Removes a background run's files (crow sessions delete), unless it runs. */
export function forgetBackground(data: string, id: string): boolean {
  const state = backgroundState(data, id);
  if (state?.state === 'running') throw new UsageError(`Session ${id} is running in the background: stop it first (crow sessions stop ${id}).`);
  rmSync(folderOf(data, id), { recursive: true, force: true });
  return state !== undefined;
}

export function backgroundLog(data: string, id: string): string {
  try {
    return readFileSync(join(folderOf(data, id), BACKGROUND_LOG), 'utf8');
  } catch {
    return '';
  }
}

function when(ms: number): string {
  return new Date(ms).toISOString().replace('T', ' ').slice(0, 16);
}
