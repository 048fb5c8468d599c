import { existsSync } from 'node:fs';
import { StringDecoder } from 'node:string_decoder';
import { commandEnvironment } from './node-exec';
import { WorkspaceError } from './workspace';
import { launch, NOT_STARTED_CODES, readyLaunch, sameEnvironment } from './prestarted-launch';

const MAX_STDERR_CHARS = 8_000;

/** Where a front door found rg when the npm package's binary is not beside the code (the packaged extension). */
let fallbackRipgrep: string | undefined;

/**
 * Uses this rg binary when the one of the @vscode/ripgrep package is missing:
 * a bundled build (the .vsix) has no node_modules, and VS Code ships its own rg.
 */
export function useRipgrepFallback(path: string): void {
  fallbackRipgrep = path;
}

/** The package's binary once looked for; null when it is not installed. */
let packaged: string | null | undefined;

/** The rg to run: CROW_RG_PATH, else the npm package's binary, else the front door's fallback, else rg on PATH. */
export function ripgrepPath(env: NodeJS.ProcessEnv = process.env): string {
  if (env.CROW_RG_PATH) return env.CROW_RG_PATH;
  packaged ??= packagedRipgrep() ?? null;
  return packaged ?? fallbackRipgrep ?? 'rg';
}

/**
 * The binary @vscode/ripgrep installs for this platform, found the way that
 * package finds it (its platform package) but without loading the package:
 * it is an ES module that cannot be bundled into our CommonJS builds.
 * Undefined where node_modules is absent (the .vsix).
 */
function packagedRipgrep(): string | undefined {
  const binary = process.platform === 'win32' ? 'rg.exe' : 'rg';
  try {
    const path = require.resolve(`@vscode/ripgrep-${process.platform}-${process.env.npm_config_arch || process.arch}/bin/${binary}`);
    return existsSync(path) ? path : undefined;
  } catch {
    return undefined;
  }
}

export interface RipgrepOptions {
  /** What ends each record on stdout. */
  separator: '\n' | '\0';
  /** Where rg runs (what "." and anchored --globs are relative to); this process's folder when absent. */
  cwd?: string;
  signal: AbortSignal;
  /** Gets each record as it arrives; returning false stops rg. */
  onRecord: (record: string) => boolean;
}

export interface RipgrepRun {
  /** null when rg was stopped. */
  exitCode: number | null;
  stderr: string;
  /** Records left out for being longer than MAX_RECORD_CHARS. */
  oversized: number;
}

/** The longest record read from rg: a path or a match's JSON is far shorter, unless the matched line is a file's worth of data. */
export const MAX_RECORD_CHARS = 16 * 1024 * 1024;

/**
 * Readies a process for the next search to become rg in (prestarted-launch.ts),
 * and looks up rg and its environment, which the search then finds made:
 * told while a search call still streams.
 */
export function readyRipgrep(): void {
  ripgrepPath();
  readyLaunch(searchEnvironment());
}

/**
 * Runs rg (no shell reads its arguments, no config file) and streams its
 * records to `onRecord`. Settles once rg has exited, or at once when
 * `onRecord` stops it: rg is killed then, and its exit (a parallel walk can
 * take tens of ms to wind down) is not waited for, since nothing it would
 * still send is read. Rejects with the signal's reason when aborted, with
 * the error when `onRecord` throws, and when rg could not start or was
 * killed by someone else.
 */
export function runRipgrep(args: string[], options: RipgrepOptions): Promise<RipgrepRun> {
  const { signal } = options;
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise((resolve, reject) => {
    const command = ripgrepPath();
    const { child, prestarted } = launch(command, args, { cwd: options.cwd ?? process.cwd(), env: searchEnvironment() });
    const records = new RecordSplitter(options.separator, MAX_RECORD_CHARS);
    let stopped = false;
    let received = false;
    let settled = false;
    let failure: unknown;
    let stderr = '';
    const settle = (exitCode: number | null): void => {
      if (settled) return;
      settled = true;
      signal.removeEventListener('abort', abort);
      if (signal.aborted) reject(signal.reason);
      else if (failure !== undefined) reject(failure);
      else resolve({ exitCode, stderr, oversized: records.oversized });
    };
    const stop = (): void => {
      stopped = true;
      child.kill();
    };
    const abort = (): void => {
      stop();
      settle(null);
    };
    const deliver = (batch: string[]): void => {
      try {
        for (const record of batch) {
          if (stopped) return;
          if (!options.onRecord(record)) {
            stop();
            settle(null);
          }
        }
      } catch (err) {
        failure = err;
        stop();
        settle(null);
      }
    };
    signal.addEventListener('abort', abort, { once: true });
    child.stdout!.on('data', (chunk: Buffer) => {
      received = true;
      deliver(records.push(chunk));
    });
    child.stderr!.setEncoding('utf8');
    child.stderr!.on('data', (text: string) => {
      if (stderr.length < MAX_STDERR_CHARS) stderr += text;
    });
    const fail = (error: WorkspaceError): void => {
      if (settled) return;
      settled = true;
      signal.removeEventListener('abort', abort);
      reject(error);
    };
    const notStarted = (why: string) => new WorkspaceError(`Could not start ripgrep (${command}): ${why}. Install ripgrep, or set CROW_RG_PATH to an rg binary.`);
    child.on('error', (err) => fail(notStarted(err.message)));
    child.on('close', (exitCode, killedBy) => {
      if (stopped) return settle(exitCode);
      if (prestarted && exitCode !== null && NOT_STARTED_CODES.has(exitCode) && !received) return fail(notStarted(stderr.trim() || `exit code ${exitCode}`));
      // Killed by someone else (the system short of memory, a person's kill): what it listed is not the whole answer.
      if (killedBy !== null && !signal.aborted) return fail(new WorkspaceError(`ripgrep was stopped by ${killedBy} before it finished; search again.`));
      deliver(records.end());
      settle(exitCode);
    });
  });
}

/** The last environment made for rg, and a copy of the process environment it was made from. */
let made: { from: NodeJS.ProcessEnv; env: NodeJS.ProcessEnv } | undefined;

/**
 * The environment for rg: the commands' one, without a config file that
 * could change its flags. Made again only when the process environment
 * changed: finding its secrets reads every value.
 */
function searchEnvironment(): NodeJS.ProcessEnv {
  if (made && sameEnvironment(made.from, process.env)) return made.env;
  const env = commandEnvironment();
  delete env.RIPGREP_CONFIG_PATH;
  made = { from: { ...process.env }, env };
  return env;
}

/**
 * Splits a byte stream into separator-terminated UTF-8 records; a long
 * record costs time linear in its length. A record longer than `maxChars`
 * (a match on one enormous line of a data or minified file) is dropped as
 * it streams, never held whole, and counted.
 */
export class RecordSplitter {
  private readonly decoder = new StringDecoder('utf8');
  private partial: string[] = [];
  private partialChars = 0;
  /** The record being read is over the limit: what remains of it is dropped. */
  private skipping = false;
  /** Records dropped for their length. */
  oversized = 0;

  constructor(
    private readonly separator: string,
    private readonly maxChars: number,
  ) {}

  push(chunk: Buffer): string[] {
    const parts = this.decoder.write(chunk).split(this.separator);
    const last = parts.pop()!;
    const records: string[] = [];
    for (const [index, part] of parts.entries()) {
      // Past the first, a record lies whole in this chunk: nothing held to join.
      const record = index > 0 ? this.whole(part) : this.take(part);
      if (record !== undefined) records.push(record);
      if (index === 0) this.reset();
    }
    this.hold(last);
    return records;
  }

  /** The last record when the stream did not end with a separator. */
  end(): string[] {
    const record = this.take(this.decoder.end());
    this.reset();
    return record === undefined || record === '' ? [] : [record];
  }

  /** A record that arrived whole, or undefined when it is over the limit. */
  private whole(record: string): string | undefined {
    if (record.length <= this.maxChars) return record;
    this.oversized++;
    return undefined;
  }

  private reset(): void {
    this.partial = [];
    this.partialChars = 0;
    this.skipping = false;
  }

  /** The record ending with `tail`, or undefined when it was over the limit. */
  private take(tail: string): string | undefined {
    this.hold(tail);
    if (this.skipping) {
      this.oversized++;
      return undefined;
    }
    return this.partial.join('');
  }

  private hold(text: string): void {
    if (this.skipping || text === '') return;
    this.partialChars += text.length;
    if (this.partialChars <= this.maxChars) {
      this.partial.push(text);
      return;
    }
    this.skipping = true;
    this.partial = [];
  }
}
