import { lstatSync, promises as fs } from 'node:fs';
import * as path from 'node:path';
import { pathGlob, platformGlob } from './glob-pattern';
import { walkNarrowingArgs } from './glob-walk';
import { MAX_RECORD_CHARS, runRipgrep } from './run-ripgrep';
import {
  type FindFilesOptions,
  type FindFilesResult,
  type GrepLine,
  type GrepMatch,
  type GrepOptions,
  type GrepResult,
  type Workspace,
  WorkspaceError,
} from './workspace';

/** What the searches need from a workspace: confinement and display paths. */
export type SearchRoot = Pick<Workspace, 'root' | 'resolve' | 'relative'>;

/**
 * Flags of every search: hidden files in, .git out, ignore files honoured
 * even outside a git repository. Symlinks are never followed (no --follow),
 * so a link cannot lead a search out of the workspace.
 */
const SELECTION_ARGS = ['--hidden', '--glob=!.git', '--no-require-git'];
/** Lines longer than this (minified code) are cut around the match; JSON output ignores --max-columns. */
const MAX_LINE_CHARS = 400;
/** Characters kept before the match when a long line is cut. */
const LEAD_CHARS = 100;
const MAX_WARNINGS = 5;

/**
 * Workspace.findFiles on ripgrep's --files: the walk narrowed by the globs
 * (glob-walk.ts), each path it lists tested with pathGlob as it streams
 * in, rg stopped once one match more than `limit` arrives. Sorted by path
 * the walk itself goes in path order (one thread), so the first `limit`
 * are exact; by modification time the walk runs on every core, and only
 * when every match fits are they looked at (a stat each) to order them.
 */
export async function findFilesWithRipgrep(workspace: SearchRoot, options: FindFilesOptions): Promise<FindFilesResult> {
  const target = await existingTarget(workspace, options.path);
  const tests = searchGlobs(options).map((glob) => pathGlob(glob));
  const matches = (relative: string) => tests.length === 0 || tests.some((test) => test(relative));
  if (!target.isFolder) {
    // A file given as the path is listed as rg lists a file it is given (ignore files do not apply); the globs see its name.
    const files = matches(path.basename(target.path)) ? [workspace.relative(target.path)] : [];
    return { files, truncated: false, warnings: [] };
  }
  const folder = target.path;
  const found: string[] = [];
  let truncated = false;
  const run = await runRipgrep(findArgs(options), {
    separator: '\0',
    cwd: folder,
    signal: options.signal,
    onRecord(record) {
      const relative = walkedPath(record);
      if (!matches(relative)) return true;
      if (found.length === options.limit) {
        truncated = true;
        return false;
      }
      found.push(relative);
      return true;
    },
  });
  // Newest first only where it is true: past the limit the newest is unknown, so no file is looked at.
  const files = options.sort === 'path' ? found : truncated ? found.sort() : newestFirst(folder, found);
  // rg lists normalized paths under ".": the folder's own workspace path before each is the whole conversion.
  const prefix = folderPrefix(workspace, folder);
  const message = cleanMessage(run.stderr, workspace.root).replace(/^\.\//gm, prefix);
  return {
    files: files.map((file) => prefix + file),
    truncated,
    warnings: run.exitCode === 2 && message !== '' ? message.split('\n').slice(0, MAX_WARNINGS) : [],
  };
}

/** The search's globs as ripgrep reads them on this platform ("\\" a separator on Windows). */
function searchGlobs(options: FindFilesOptions): string[] {
  return (options.globs ?? []).map((glob) => platformGlob(glob));
}

/**
 * rg's arguments for a --files walk of the current folder ("."), the searched one.
 * --line-buffered: rg writes what it found as it goes (about a write per folder)
 * instead of in 8 KB blocks, so a capped search reads its cap after walking
 * about that many files, not the 500 or so a block holds; a whole walk costs the same.
 */
function findArgs(options: FindFilesOptions): string[] {
  const sort = options.sort === 'path' ? ['--sort=path'] : [];
  return ['--files', '--null', '--line-buffered', ...SELECTION_ARGS, ...sort, ...walkNarrowingArgs(searchGlobs(options)), '--', '.'];
}

/** A path rg listed under "." as relative to it, forward slashes. */
function walkedPath(record: string): string {
  const relative = record.startsWith(`.${path.sep}`) ? record.slice(2) : record;
  return path.sep === '/' ? relative : relative.split(path.sep).join('/');
}

/** The workspace-relative folder, with its "/", that rg's "./" stood for; empty at the root. */
function folderPrefix(workspace: SearchRoot, folder: string): string {
  const relative = workspace.relative(folder);
  return relative === '' || relative === '.' ? '' : `${relative}/`;
}

/**
 * `files` (relative to `folder`) newest first, ties by path; one that is gone since it was listed is left out.
 * At most `limit` files, each a cached lstat: done in place, not queued behind whatever else holds the
 * thread pool (under load, tens of ms for ten files).
 */
function newestFirst(folder: string, files: string[]): string[] {
  const stamped = files.map((file) => ({ file, mtimeMs: modifiedMs(path.join(folder, file)) }));
  return stamped
    .filter((entry): entry is { file: string; mtimeMs: number } => entry.mtimeMs !== undefined)
    .sort((a, b) => b.mtimeMs - a.mtimeMs || (a.file < b.file ? -1 : a.file > b.file ? 1 : 0))
    .map((entry) => entry.file);
}

/** When the file was last modified; undefined when it cannot be looked at (gone, or a folder on its path replaced). */
function modifiedMs(file: string): number | undefined {
  try {
    return lstatSync(file).mtimeMs;
  } catch {
    return undefined;
  }
}

/** Workspace.grep on ripgrep's --json output, read as it streams; rg is stopped once the cap is passed. */
export async function grepWithRipgrep(workspace: SearchRoot, options: GrepOptions): Promise<GrepResult> {
  checkInclude(options.include ?? []);
  const target = (await existingTarget(workspace, options.path)).path;
  const collector = new MatchCollector(options.context ?? 0, options.maxMatches, (file) => workspace.relative(file));
  const run = await runRipgrep(grepArgs(options, target), {
    separator: '\n',
    signal: options.signal,
    onRecord: (line) => collector.add(JSON.parse(line) as RgMessage),
  });
  const message = cleanMessage(run.stderr, workspace.root);
  // rg exits with 2 both when it cannot start searching (a bad pattern) and
  // when some files failed along the way; only a finished search has a summary.
  if (run.exitCode === 2 && !collector.finished) throw new WorkspaceError(`Search failed: ${message}`);
  return {
    matches: collector.matches.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)),
    truncated: collector.truncated,
    warnings: [...(message === '' ? [] : message.split('\n').slice(0, MAX_WARNINGS)), ...oversizedWarning(run.oversized)],
  };
}

/** What the search left out for its size, said so the model can narrow it. */
function oversizedWarning(oversized: number): string[] {
  if (oversized === 0) return [];
  const lines = oversized === 1 ? 'a matching line' : `${oversized} matching lines`;
  return [`${lines} longer than ${MAX_RECORD_CHARS / (1024 * 1024)} MiB (a data or minified file) left out; narrow the path or the include glob to skip such files`];
}

function checkInclude(include: string[]): void {
  const withFolder = include.find((glob) => glob.includes('/'));
  if (withFolder !== undefined) {
    throw new WorkspaceError(
      `The include glob "${withFolder}" has a "/": it matches file names only; give the folder as the path instead.`,
    );
  }
}

function grepArgs(options: GrepOptions, target: string): string[] {
  const include = options.include ?? [];
  return [
    '--json',
    ...SELECTION_ARGS,
    // Picks PCRE2 when the pattern needs look-around or backreferences.
    '--engine=auto',
    ...(options.ignoreCase ? ['--ignore-case'] : []),
    ...(options.fixedStrings ? ['--fixed-strings'] : []),
    ...(options.context ? [`--context=${options.context}`] : []),
    // A file type rather than --glob: ripgrep lets a --glob override ignore
    // files, a type only narrows what they leave.
    ...include.map((glob) => `--type-add=include:${glob}`),
    ...(include.length > 0 ? ['--type=include'] : []),
    '--regexp',
    options.pattern,
    '--',
    target,
  ];
}

/** The real path of a workspace path that exists, and whether it is a folder. */
async function existingTarget(workspace: SearchRoot, target = '.'): Promise<{ path: string; isFolder: boolean }> {
  const real = await workspace.resolve(target);
  try {
    return { path: real, isFolder: (await fs.stat(real)).isDirectory() };
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') throw new WorkspaceError(`Path not found: ${workspace.relative(target)}.`);
    throw err;
  }
}

/** rg's stderr for a person or a model: no "rg: " prefixes or ~~~ rulers, workspace paths relative. */
function cleanMessage(stderr: string, root: string): string {
  return stderr
    .split(`${root}${path.sep}`)
    .join('')
    .replace(/^rg: /gm, '')
    .replace(/^~+\n/gm, '')
    .trim();
}

/** One line of `rg --json`; the fields read here, not all rg sends. */
type RgMessage =
  | { type: 'begin' | 'end'; data: { path: RgData } }
  | { type: 'match' | 'context'; data: RgLines }
  | { type: 'summary'; data: unknown };

/** rg sends text as UTF-8 when it can, base64 bytes otherwise. */
type RgData = { text: string } | { bytes: string };

interface RgLines {
  path: RgData;
  lines: RgData;
  line_number: number;
  /** Byte offsets within the line. */
  submatches: { start: number }[];
}

/**
 * Turns the stream of rg messages into GrepMatches. rg sends each context
 * line once, between the matches it belongs to; a line goes to the match
 * before it and to the one after it when within `context` lines of each.
 */
class MatchCollector {
  readonly matches: GrepMatch[] = [];
  truncated = false;
  /** rg sent its summary: the search ran to the end. */
  finished = false;
  private file = '';
  private previous: GrepMatch | undefined;
  private pending: GrepLine[] = [];

  constructor(
    private readonly context: number,
    private readonly max: number,
    private readonly display: (file: string) => string,
  ) {}

  /** Takes one message; false when a match beyond the cap arrives and the search should stop. */
  add(message: RgMessage): boolean {
    switch (message.type) {
      case 'begin':
        this.file = this.display(decode(message.data.path));
        this.previous = undefined;
        this.pending = [];
        return true;
      case 'context':
        this.addContext(grepLine(message.data));
        return true;
      case 'match':
        return this.addMatch(message.data);
      case 'summary':
        this.finished = true;
        return true;
      case 'end':
        return true;
    }
  }

  private addContext(line: GrepLine): void {
    if (this.previous && line.line - this.previous.line <= this.context) this.previous.after.push(line);
    this.pending.push(line);
  }

  private addMatch(data: RgLines): boolean {
    if (this.matches.length === this.max) {
      this.truncated = true;
      return false;
    }
    const line = grepLine(data);
    const before = this.pending.filter((candidate) => line.line - candidate.line <= this.context);
    const match: GrepMatch = { path: this.file, ...line, before, after: [] };
    this.matches.push(match);
    this.previous = match;
    this.pending = [];
    return true;
  }
}

function grepLine(data: RgLines): GrepLine {
  return { line: data.line_number, text: lineText(decode(data.lines), data.submatches[0]?.start ?? 0) };
}

function decode(data: RgData): string {
  return 'text' in data ? data.text : Buffer.from(data.bytes, 'base64').toString('utf8');
}

/** The line without its ending, cut around the byte offset `matchStart` when too long to show whole. */
function lineText(line: string, matchStart: number): string {
  const text = line.replace(/\r?\n$/, '');
  if (text.length <= MAX_LINE_CHARS) return text;
  const matchIndex = Buffer.from(text, 'utf8').subarray(0, matchStart).toString('utf8').length;
  const from = Math.max(0, matchIndex - LEAD_CHARS);
  const to = from + MAX_LINE_CHARS;
  return `${from > 0 ? '…' : ''}${text.slice(from, to)}${to < text.length ? '…' : ''}`;
}
