/**
 * Glob patterns in the syntax of .gitignore and ripgrep's --glob, over paths
 * with forward slashes: `*` and `?` stay within one folder, `**` as a whole
 * segment spans any number of folders, `[abc]` and `[!a-z]` are classes,
 * `{a,b}` are alternatives (ripgrep's extension) and `\` escapes.
 */
import { HOST_PATHS, type PathSemantics } from '../vocabulary/path-semantics';
import { errorText } from '../vocabulary/text';

/**
 * A glob a person or model gave for a file search, as ripgrep reads it on
 * the platform: on Windows `\` is a path separator there, not an escape
 * (globset's backslash_escape is off where `\` separates), so it becomes
 * "/"; elsewhere the glob is unchanged. Ignore files are git's syntax,
 * where `\` escapes everywhere: they do not go through this.
 */
export function platformGlob(glob: string, semantics: PathSemantics = HOST_PATHS): string {
  return semantics.windowsNames ? glob.replaceAll('\\', '/') : glob;
}

/** One piece of a parsed glob. */
export type GlobPart =
  /** Characters matched as they are (escapes resolved), never a "/". */
  | { kind: 'text'; text: string }
  /** A "/" between folders. */
  | { kind: 'slash' }
  /** `*` (or `**` inside a name): any characters within one folder. */
  | { kind: 'star' }
  /** A `**` segment: any number of folders; `slash`: it took the "/" after it (so zero folders match too). */
  | { kind: 'folders'; slash: boolean }
  /** `?`: one character other than "/". */
  | { kind: 'one' }
  /** `[...]`: its body as written, "!" or "^" first when negated. */
  | { kind: 'class'; body: string }
  /** `{`, `,` and `}` of alternatives. */
  | { kind: 'open' }
  | { kind: 'or' }
  | { kind: 'close' };

/** The regular expression for a whole path matching `glob`; throws naming the glob when it is malformed. */
export function globToRegExp(glob: string): RegExp {
  try {
    return new RegExp(`^${parseGlob(glob).map(partSource).join('')}$`, 's');
  } catch (err) {
    throw new Error(`Invalid glob "${glob}": ${errorText(err)}.`);
  }
}

/**
 * A test for relative paths, placed the way .gitignore places patterns: a
 * glob without "/" matches the last name of the path (so at any depth), any
 * other is matched against the whole path, a leading "/" or "./" only
 * anchoring it.
 */
export function pathGlob(glob: string): (path: string) => boolean {
  const anchored = isAnchored(glob);
  const regex = globToRegExp(anchoredGlob(glob));
  if (anchored) return (path) => regex.test(path);
  return (path) => regex.test(path.slice(path.lastIndexOf('/') + 1));
}

/** Whether pathGlob matches `glob` against whole paths (it has a "/") rather than names. */
export function isAnchored(glob: string): boolean {
  return glob.includes('/');
}

/** The glob without the leading "/" or "./" that only anchors it. */
export function anchoredGlob(glob: string): string {
  return glob.replace(/^\.?\//, '');
}

/** The pieces of `glob`; throws when a "{" is never closed. */
export function parseGlob(glob: string): GlobPart[] {
  const parts: GlobPart[] = [];
  const text = (char: string) => {
    const last = parts.at(-1);
    if (last?.kind === 'text') last.text += char;
    else parts.push({ kind: 'text', text: char });
  };
  let openBraces = 0;
  for (let i = 0; i < glob.length; i++) {
    const char = glob[i]!;
    if (char === '*' && isFolderWildcard(glob, i, openBraces > 0)) {
      const slash = glob[i + 2] === '/';
      parts.push({ kind: 'folders', slash });
      i += slash ? 2 : 1;
    } else if (char === '*') {
      parts.push({ kind: 'star' });
      while (glob[i + 1] === '*') i++;
    } else if (char === '?') {
      parts.push({ kind: 'one' });
    } else if (char === '[' && classEnd(glob, i) > 0) {
      const end = classEnd(glob, i);
      parts.push({ kind: 'class', body: glob.slice(i + 1, end) });
      i = end;
    } else if (char === '{') {
      openBraces++;
      parts.push({ kind: 'open' });
    } else if (char === '}' && openBraces > 0) {
      openBraces--;
      parts.push({ kind: 'close' });
    } else if (char === ',' && openBraces > 0) {
      parts.push({ kind: 'or' });
    } else {
      const literal = char === '\\' && i + 1 < glob.length ? glob[++i]! : char;
      if (literal === '/') parts.push({ kind: 'slash' });
      else text(literal);
    }
  }
  if (openBraces > 0) throw new Error('a "{" is never closed');
  return parts;
}

function partSource(part: GlobPart): string {
  switch (part.kind) {
    case 'text':
      return escapeRegExp(part.text);
    case 'slash':
      return '\\/';
    case 'star':
      return '[^/]*';
    case 'folders':
      return part.slash ? '(?:.*/)?' : '.*';
    case 'one':
      return '[^/]';
    case 'class':
      return classSource(part.body);
    case 'open':
      return '(?:';
    case 'or':
      return '|';
    case 'close':
      return ')';
  }
}

/**
 * Whether a `**` starts at `index` as a whole path segment; inside
 * alternatives, each alternative's start and end bound a segment too:
 * both `**` in `{docs/**,**}` span folders, as brace expansion would make them.
 */
function isFolderWildcard(glob: string, index: number, inBraces: boolean): boolean {
  const before = glob[index - 1];
  const after = glob[index + 2];
  const atStart = index === 0 || before === '/' || (inBraces && (before === '{' || before === ','));
  const atEnd = index + 2 === glob.length || after === '/' || (inBraces && (after === '}' || after === ','));
  return glob[index + 1] === '*' && atStart && atEnd;
}

/** Index of the "]" closing the class opened at `open`, or -1; a "]" right after the opening (and "!") is literal. */
function classEnd(glob: string, open: number): number {
  let first = open + 1;
  if (glob[first] === '!' || glob[first] === '^') first++;
  return glob.indexOf(']', first + 1);
}

function classSource(body: string): string {
  const negated = body[0] === '!' || body[0] === '^';
  const members = (negated ? body.slice(1) : body).replace(/[\\\]^[]/g, '\\$&');
  return negated ? `[^/${members}]` : `[${members}]`;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}
