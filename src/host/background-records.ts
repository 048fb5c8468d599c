/**
 * The records of background runs, shared by every door that starts or
 * lists them (the CLI's `crow run --background`, the VS Code chat's "Run in
 * background"): `background/ID/` of the data folder, beside the session of
 * the same id (0700, files 0600). `background.json` says who runs it (pid,
 * folder, prompt, start, which door); `background-end.json` how it ended,
 * written as it ends; `background.log` what a CLI run printed.
 *
 * The folder is read as hostile input (anything may have been put there):
 * a record is read only when its folder and file are plain (no symlink),
 * small, and well formed, and its id is its folder's name; anything else
 * is skipped, with a line saying why for whoever lists them.
 */
import { closeSync, constants, fstatSync, lstatSync, mkdirSync, openSync, readdirSync, readFileSync, readSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from '../config/paths';

export const BACKGROUND_RECORD = 'background.json';
export const BACKGROUND_END = 'background-end.json';
export const BACKGROUND_LOG = 'background.log';
/** A record or an end is a few hundred bytes (the prompt is kept whole, so allow for a long one). */
const MAX_RECORD_BYTES = 256 * 1024;
/** What a run's id (its folder's name) may be: a session id. */
const ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/;

export interface BackgroundRecord {
  id: string;
  pid: number;
  cwd: string;
  prompt: string;
  /** N for attempts. */
  attempts?: number;
  startedAt: number;
  /** Who runs it: the CLI's detached child (the default), or a VS Code window's extension host. */
  door?: 'cli' | 'vscode';
  /** When its process started (Linux: /proc/PID/stat's start time), so a pid reused after a crash is not taken for it. */
  pidStart?: string;
}

export interface BackgroundEnd {
  endedAt: number;
  exitCode: number;
}

export type BackgroundState =
  | { state: 'running'; record: BackgroundRecord }
  | { state: 'finished'; record: BackgroundRecord; end: BackgroundEnd }
  /** Its process is gone and it wrote no end: killed (SIGKILL), or the machine stopped. */
  | { state: 'gone'; record: BackgroundRecord };

/** Says why a record was skipped (never throws). */
export type RecordWarning = (message: string) => void;

export function backgroundFolder(data: string, id: string): string {
  return join(data, 'background', id);
}

/** Writes a run's record, making its folder (0700) when it is new. */
export function writeRecord(data: string, record: BackgroundRecord): void {
  if (!ID.test(record.id)) throw new Error(`Not a background run id: ${JSON.stringify(record.id)}`);
  mkdirSync(join(data, 'background'), { recursive: true, mode: PRIVATE_DIR_MODE });
  mkdirSync(backgroundFolder(data, record.id), { recursive: true, mode: PRIVATE_DIR_MODE });
  writeFileSync(join(backgroundFolder(data, record.id), BACKGROUND_RECORD), `${JSON.stringify(record)}\n`, { mode: PRIVATE_FILE_MODE });
}

/** Writes how run `id` ended, when it has a folder (a plain one: never through a symlink). */
export function writeEnd(data: string, id: string, end: BackgroundEnd): boolean {
  if (!ID.test(id) || !plainFolder(backgroundFolder(data, id))) return false;
  const fd = openSync(join(backgroundFolder(data, id), BACKGROUND_END), constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW, PRIVATE_FILE_MODE);
  try {
    writeSync(fd, `${JSON.stringify(end)}\n`);
  } finally {
    closeSync(fd);
  }
  return true;
}

/** The background run `id`, if that session was (or is) one and its record reads. */
export function backgroundState(data: string, id: string, warn: RecordWarning = () => undefined): BackgroundState | undefined {
  if (!ID.test(id)) return undefined;
  const folder = backgroundFolder(data, id);
  if (!plainFolder(folder)) {
    if (existsAtAll(folder)) warn(`Skipped the background run ${id}: ${folder} is not a plain folder.`);
    return undefined;
  }
  const read = readSmall(join(folder, BACKGROUND_RECORD));
  if (read.problem !== undefined) {
    if (read.problem !== 'missing') warn(`Skipped the background run ${id}: its ${BACKGROUND_RECORD} ${read.problem}.`);
    return undefined;
  }
  const record = recordOf(read.value, id);
  if (typeof record === 'string') {
    warn(`Skipped the background run ${id}: its ${BACKGROUND_RECORD} ${record}.`);
    return undefined;
  }
  const ended = readSmall(join(folder, BACKGROUND_END));
  const end = ended.problem === undefined ? endOf(ended.value) : undefined;
  if (ended.problem !== undefined && ended.problem !== 'missing') warn(`The background run ${id}'s ${BACKGROUND_END} ${ended.problem}: taken as not written.`);
  if (end) return { state: 'finished', record, end };
  return alive(record) ? { state: 'running', record } : { state: 'gone', record };
}

/** Every readable background run, of the folder `cwd` (exactly) or of all, newest first. */
export function listBackground(data: string, options: { cwd?: string; warn?: RecordWarning } = {}): BackgroundState[] {
  const root = join(data, 'background');
  if (!plainFolder(root)) return [];
  let names: string[];
  try {
    names = readdirSync(root);
  } catch {
    return [];
  }
  return names
    .flatMap((name) => {
      if (!ID.test(name)) {
        options.warn?.(`Skipped ${join(root, name)}: not a background run's folder.`);
        return [];
      }
      const state = backgroundState(data, name, options.warn);
      return state && (options.cwd === undefined || state.record.cwd === options.cwd) ? [state] : [];
    })
    .sort((a, b) => b.record.startedAt - a.record.startedAt);
}

/** This process's start time where the system tells it (Linux), to name it in a record. */
export function processStart(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The fields after the command name (which may hold spaces and parentheses) start after its last ")".
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    return undefined;
  }
}

/** Whether the run's process lives and is this run's: a CLI run's command line names the run's id; a VS Code run's process started when its record says. */
export function alive(record: BackgroundRecord): boolean {
  try {
    process.kill(record.pid, 0);
  } catch {
    // ESRCH: gone; EPERM: a process of another user has the pid now, so not this run.
    return false;
  }
  if (record.door === 'vscode') {
    const start = processStart(record.pid);
    return start === undefined ? process.platform !== 'linux' : start === record.pidStart;
  }
  try {
    return readFileSync(`/proc/${record.pid}/cmdline`, 'utf8').split('\0').includes(record.id);
  } catch {
    return process.platform !== 'linux';
  }
}

function recordOf(value: unknown, id: string): BackgroundRecord | string {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return 'is not a JSON object';
  const r = value as Record<string, unknown>;
  if (r['id'] !== id) return 'names another run than its folder';
  if (!Number.isInteger(r['pid']) || (r['pid'] as number) <= 0) return 'has no valid pid';
  if (typeof r['cwd'] !== 'string' || typeof r['prompt'] !== 'string') return 'has no folder or prompt';
  if (typeof r['startedAt'] !== 'number' || !Number.isFinite(r['startedAt'])) return 'has no start time';
  if (r['attempts'] !== undefined && !(Number.isInteger(r['attempts']) && (r['attempts'] as number) > 0)) return 'has a bad attempts count';
  if (r['door'] !== undefined && r['door'] !== 'cli' && r['door'] !== 'vscode') return 'names an unknown door';
  if (r['pidStart'] !== undefined && typeof r['pidStart'] !== 'string') return 'has a bad process start';
  return {
    id,
    pid: r['pid'] as number,
    cwd: r['cwd'],
    prompt: r['prompt'],
    startedAt: r['startedAt'],
    ...(r['attempts'] !== undefined ? { attempts: r['attempts'] as number } : {}),
    ...(r['door'] !== undefined ? { door: r['door'] as 'cli' | 'vscode' } : {}),
    ...(r['pidStart'] !== undefined ? { pidStart: r['pidStart'] as string } : {}),
  };
}

function endOf(value: unknown): BackgroundEnd | undefined {
  if (value === null || typeof value !== 'object') return undefined;
  const { endedAt, exitCode } = value as Record<string, unknown>;
  return typeof endedAt === 'number' && Number.isFinite(endedAt) && Number.isInteger(exitCode) ? { endedAt, exitCode: exitCode as number } : undefined;
}

function plainFolder(path: string): boolean {
  try {
    return lstatSync(path).isDirectory();
  } catch {
    return false;
  }
}

function existsAtAll(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}

/** A small regular file's JSON, never through a symlink (O_NOFOLLOW), or why not. */
function readSmall(path: string): { value: unknown; problem?: undefined } | { problem: string } {
  const read = readPlain(path, MAX_RECORD_BYTES);
  if (read.problem !== undefined) return read;
  try {
    return { value: JSON.parse(read.text) };
  } catch {
    return { problem: 'is not valid JSON' };
  }
}

/** What another file of a run may be named (a kept attempt's patch, its result): no folder, no dot first. */
const FILE_NAME = /^[a-z0-9][a-z0-9.-]{0,63}$/;

/**
 * Writes the file `name` of run `id`'s folder (0600), when the folder is
 * plain: never through a symlink, and never a file that is not plain.
 */
export function writeRunFile(data: string, id: string, name: string, text: string): void {
  if (!ID.test(id) || !FILE_NAME.test(name)) throw new Error(`Not a background run's file: ${JSON.stringify(id)}/${JSON.stringify(name)}`);
  const folder = backgroundFolder(data, id);
  if (!plainFolder(folder)) throw new Error(`${folder} is not a plain folder.`);
  const fd = openSync(join(folder, name), constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW, PRIVATE_FILE_MODE);
  try {
    writeSync(fd, text);
  } finally {
    closeSync(fd);
  }
}

/** Creates the file `name` of run `id`'s folder (0600) only if it is not there: false when it is (or the folder is not plain). */
export function createRunFile(data: string, id: string, name: string, text: string): boolean {
  if (!ID.test(id) || !FILE_NAME.test(name) || !plainFolder(backgroundFolder(data, id))) return false;
  let fd: number;
  try {
    fd = openSync(join(backgroundFolder(data, id), name), constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, PRIVATE_FILE_MODE);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  }
  try {
    writeSync(fd, text);
  } finally {
    closeSync(fd);
  }
  return true;
}

/** Removes the file `name` of run `id`'s folder, if there. */
export function removeRunFile(data: string, id: string, name: string): void {
  if (!ID.test(id) || !FILE_NAME.test(name)) return;
  rmSync(join(backgroundFolder(data, id), name), { force: true });
}

/** The text of the file `name` of run `id`'s folder, read as hostile input (plain folder and file, no symlink, at most `maxBytes`), or why not. */
export function readRunFile(data: string, id: string, name: string, maxBytes: number): { text: string; problem?: undefined } | { problem: string } {
  if (!ID.test(id) || !FILE_NAME.test(name)) return { problem: 'is not a background run\'s file' };
  const folder = backgroundFolder(data, id);
  if (!plainFolder(folder)) return { problem: existsAtAll(folder) ? 'is in a folder that is not plain' : 'missing' };
  return readPlain(join(folder, name), maxBytes);
}

/** A regular file's text, never through a symlink (O_NOFOLLOW), at most `maxBytes`, or why not. */
function readPlain(path: string, maxBytes: number): { text: string; problem?: undefined } | { problem: string } {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return { problem: code === 'ENOENT' ? 'missing' : code === 'ELOOP' ? 'is a symlink' : `could not be opened (${code ?? 'error'})` };
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) return { problem: 'is not a plain file' };
    if (stat.size > maxBytes) return { problem: `is too large (${stat.size} bytes; at most ${maxBytes} are read)` };
    const buffer = Buffer.alloc(stat.size);
    const got = stat.size === 0 ? 0 : readSync(fd, buffer, 0, stat.size, 0);
    return { text: buffer.subarray(0, got).toString('utf8') };
  } finally {
    closeSync(fd);
  }
}
