/**
 * Glob patterns for asking VS Code's file search (workspace.findFiles)
 * about known paths. VS Code globs have no escape character, so a path
 * holding a glob character cannot be named literally: such paths are left
 * out of the question and the caller keeps them as they are.
 */

/** Characters with a meaning in VS Code globs (`,` separates alternatives inside braces). */
const GLOB_CHARS = /[*?[\]{},]/;

/** Whether a folder-relative path (forward slashes) can stand in a glob as itself. */
export function isGlobLiteral(relative: string): boolean {
  return !GLOB_CHARS.test(relative);
}

/** One pattern matching exactly the given folder-relative paths, or undefined when none can be named. */
export function exactly(relatives: readonly string[]): string | undefined {
  const named = [...new Set(relatives.filter(isGlobLiteral))];
  if (named.length === 0) return undefined;
  return named.length === 1 ? named[0] : `{${named.join(',')}}`;
}
