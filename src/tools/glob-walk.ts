/**
 * What ripgrep's own file walk may skip for the globs of a file search
 * (FindFilesOptions: placed as pathGlob places them), as rg flags.
 *
 * The globs are never handed to ripgrep as --glob: a matching --glob
 * brings back what ignore files leave out (`--glob '*.log'` lists an
 * ignored debug.log, `--glob '*'` walks into an ignored dist/), a "#"
 * glob is read as a comment (so it selects everything), trailing spaces
 * are trimmed and a lone "}" is an error. Instead the flags only ever
 * narrow what ignore files leave, and select a superset of the matches:
 * - the file name: a file type (types narrow, never re-include) made of
 *   the last segment with every wildcard widened to `*`;
 * - folders named literally at the start of an anchored glob: negative
 *   --globs naming every entry beside each of them, so the walk goes down
 *   that one path (negative globs only exclude: ignore files still decide
 *   about the path itself);
 * - a glob without a `**` segment: --max-depth.
 * The caller tests every path rg lists with pathGlob, which decides.
 */
import { anchoredGlob, type GlobPart, isAnchored, parseGlob } from './glob-pattern';

/** The file type our flags define; a name no built-in ripgrep type has. */
const TYPE_NAME = 'crowfindfiles';
/** Characters a type glob or an override glob may hold as themselves; any other literal is widened to `*`. */
const PLAIN_CHAR = /^[A-Za-z0-9._@+=~%#$&()^;'-]$/;
/** Folder names the walk may be narrowed to: plain characters only, not "." or "..". */
const PLAIN_NAME = /^[A-Za-z0-9._@+=~-]+$/;

/** How one glob narrows the walk. */
interface Narrowing {
  /** A type glob selecting a superset of the names the glob matches; undefined: any name. */
  name: string | undefined;
  /** The literal folders every match lies under, outermost first. */
  folders: string[];
  /** The deepest a match can lie (1: directly in the searched folder); undefined: any depth. */
  depth: number | undefined;
}

/** rg flags narrowing a `--files` walk of the searched folder (rg run there, on ".") to a superset of what `globs` match. */
export function walkNarrowingArgs(globs: readonly string[]): string[] {
  if (globs.length === 0) return [];
  const narrowings = globs.map(narrowing);
  const names = narrowings.map((one) => one.name);
  const depths = narrowings.map((one) => one.depth);
  const args: string[] = [];
  if (names.every((name) => name !== undefined)) {
    args.push(...[...new Set(names)].map((name) => `--type-add=${TYPE_NAME}:${name}`), `--type=${TYPE_NAME}`);
  }
  if (depths.every((depth) => depth !== undefined)) args.push(`--max-depth=${Math.max(...depths)}`);
  // Folders narrow one glob only: two globs under different folders would need both paths kept.
  if (narrowings.length === 1) args.push(...narrowings[0]!.folders.flatMap((_, index, folders) => besideGlobs(folders.slice(0, index + 1))));
  return args;
}

function narrowing(glob: string): Narrowing {
  if (!isAnchored(glob)) return { name: typeGlob(parseGlob(glob)), folders: [], depth: undefined };
  const segments = splitSegments(parseGlob(anchoredGlob(glob)));
  if (segments === undefined) return { name: undefined, folders: [], depth: undefined };
  const last = segments.at(-1)!;
  const anyDepth = segments.some((segment) => segment.some((part) => part.kind === 'folders'));
  const folders: string[] = [];
  for (const segment of segments.slice(0, -1)) {
    const name = literalName(segment);
    if (name === undefined) break;
    folders.push(name);
  }
  return {
    name: last.some((part) => part.kind === 'folders') ? undefined : typeGlob(last),
    folders,
    depth: anyDepth ? undefined : segments.length,
  };
}

/**
 * The glob's pieces by path segment; undefined when a segment boundary
 * cannot be told without matching (a "/" inside alternatives or a class).
 */
function splitSegments(parts: GlobPart[]): GlobPart[][] | undefined {
  const segments: GlobPart[][] = [[]];
  let depth = 0;
  for (const part of parts) {
    if (part.kind === 'open') depth++;
    if (part.kind === 'close') depth--;
    if (part.kind === 'class' && part.body.includes('/')) return undefined;
    const ends = part.kind === 'slash' || (part.kind === 'folders' && part.slash);
    if (ends && depth > 0) return undefined;
    if (part.kind !== 'slash') segments.at(-1)!.push(part);
    if (ends) segments.push([]);
  }
  return segments;
}

/** The segment's name when it is plain text the walk can be narrowed to. */
function literalName(segment: GlobPart[]): string | undefined {
  const [only] = segment;
  if (segment.length !== 1 || only?.kind !== 'text') return undefined;
  return PLAIN_NAME.test(only.text) && only.text !== '.' && only.text !== '..' ? only.text : undefined;
}

/**
 * A ripgrep type glob matching at least every name `parts` (one segment)
 * matches: its plain text and alternatives kept, everything else `*`.
 * Undefined when that would match any name.
 */
function typeGlob(parts: GlobPart[]): string | undefined {
  let glob = '';
  const star = () => {
    if (!glob.endsWith('*')) glob += '*';
  };
  for (const part of parts) {
    if (part.kind === 'text') {
      for (const char of part.text) {
        if (PLAIN_CHAR.test(char)) glob += char;
        else star();
      }
    } else if (part.kind === 'open') glob += '{';
    else if (part.kind === 'or') glob += ',';
    else if (part.kind === 'close') glob += '}';
    else star();
  }
  return /^[*{},]*$/.test(glob) ? undefined : glob;
}

/**
 * Negative --globs for every entry beside the last of `folders` in the
 * one before it (anchored at the searched folder): each name that differs
 * from it at some character, is a proper start of it, or goes on after it.
 */
function besideGlobs(folders: string[]): string[] {
  const name = folders.at(-1)!;
  const parent = folders.slice(0, -1).map((folder) => `/${folder}`).join('');
  const globs: string[] = [];
  for (let index = 0; index < name.length; index++) {
    const start = name.slice(0, index);
    globs.push(`--glob=!${parent}/${start}[!${name[index]}]*`);
    if (index > 0) globs.push(`--glob=!${parent}/${start}`);
  }
  globs.push(`--glob=!${parent}/${name}?*`);
  return globs;
}
