/**
 * Glob patterns in the syntax of .gitignore and ripgrep's --glob, over paths
 * with forward slashes: `*` and `?` stay within one folder, `**` as a whole
 * segment spans any number of folders, `[abc]` and `[!a-z]` are classes,
 * `{a,b}` are alternatives (ripgrep's extension) and `\` escapes.
 */
import { errorText } from '../vocabulary/text';

/** The regular expression for a whole path matching `glob`; throws naming the glob when it is malformed. */
export function globToRegExp(glob: string): RegExp {
  try {
    return new RegExp(`^${globSource(glob)}$`, 's');
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
  const anchored = glob.includes('/');
  const regex = globToRegExp(glob.replace(/^\.?\//, ''));
  if (anchored) return (path) => regex.test(path);
  return (path) => regex.test(path.slice(path.lastIndexOf('/') + 1));
}

function globSource(glob: string): string {
  let source = '';
  let openBraces = 0;
  for (let i = 0; i < glob.length; i++) {
    const char = glob[i]!;
    if (char === '*' && isFolderWildcard(glob, i)) {
      const folders = glob[i + 2] === '/';
      source += folders ? '(?:.*/)?' : '.*';
      i += folders ? 2 : 1;
    } else if (char === '*') {
      source += '[^/]*';
      while (glob[i + 1] === '*') i++;
    } else if (char === '?') {
      source += '[^/]';
    } else if (char === '[' && classEnd(glob, i) > 0) {
      const end = classEnd(glob, i);
      source += classSource(glob.slice(i + 1, end));
      i = end;
    } else if (char === '{') {
      openBraces++;
      source += '(?:';
    } else if (char === '}' && openBraces > 0) {
      openBraces--;
      source += ')';
    } else if (char === ',' && openBraces > 0) {
      source += '|';
    } else if (char === '\\' && i + 1 < glob.length) {
      source += escapeRegExp(glob[++i]!);
    } else {
      source += escapeRegExp(char);
    }
  }
  if (openBraces > 0) throw new Error('a "{" is never closed');
  return source;
}

/** Whether a `**` starts at `index` as a whole path segment. */
function isFolderWildcard(glob: string, index: number): boolean {
  const atStart = index === 0 || glob[index - 1] === '/';
  const atEnd = index + 2 === glob.length || glob[index + 2] === '/';
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
