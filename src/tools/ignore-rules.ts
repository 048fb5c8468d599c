import { pathGlob } from './glob-pattern';

/** Ignore files read in every folder, weakest first: ripgrep's .ignore overrides .gitignore. */
export const IGNORE_FILE_NAMES = ['.gitignore', '.ignore'] as const;

interface Rule {
  /** Workspace-relative folder of the ignore file ('.' for the root); the pattern is relative to it. */
  folder: string;
  matches: (relativePath: string) => boolean;
  /** A "!" pattern: re-includes what an earlier one ignored. */
  negated: boolean;
  /** A pattern ending in "/": folders only. */
  foldersOnly: boolean;
}

/**
 * The .gitignore and .ignore patterns in force inside one folder, for code
 * that walks the tree itself (ripgrep applies the same rules to searches).
 * As in git, the last matching pattern wins and deeper ignore files come
 * later, so they override shallower ones. A folder that is ignored should
 * not be entered: nothing inside it can be re-included.
 */
export class IgnoreRules {
  static readonly none = new IgnoreRules([]);

  private constructor(private readonly rules: readonly Rule[]) {}

  /** These rules plus the patterns of an ignore file in `folder` (workspace-relative), which take precedence. */
  extend(folder: string, fileText: string): IgnoreRules {
    const added = fileText.split(/\r?\n/).flatMap((line) => parseRule(folder, line));
    return added.length === 0 ? this : new IgnoreRules([...this.rules, ...added]);
  }

  /** Whether the entry at the workspace-relative `path` is ignored. */
  ignores(path: string, isFolder: boolean): boolean {
    for (let index = this.rules.length - 1; index >= 0; index--) {
      const rule = this.rules[index]!;
      if (rule.foldersOnly && !isFolder) continue;
      const relative = relativeTo(rule.folder, path);
      if (relative !== undefined && rule.matches(relative)) return !rule.negated;
    }
    return false;
  }
}

/** One line of an ignore file: nothing for blanks, comments and malformed globs. */
function parseRule(folder: string, line: string): Rule[] {
  let pattern = line.replace(/(?<!\\)\s+$/, '');
  if (pattern === '' || pattern.startsWith('#')) return [];
  const negated = pattern.startsWith('!');
  if (negated) pattern = pattern.slice(1);
  else if (pattern.startsWith('\\#') || pattern.startsWith('\\!')) pattern = pattern.slice(1);
  const foldersOnly = pattern.endsWith('/');
  if (foldersOnly) pattern = pattern.slice(0, -1);
  if (pattern === '') return [];
  try {
    return [{ folder, matches: pathGlob(pattern), negated, foldersOnly }];
  } catch {
    return [];
  }
}

function relativeTo(folder: string, path: string): string | undefined {
  if (folder === '.' || folder === '') return path;
  return path.startsWith(`${folder}/`) ? path.slice(folder.length + 1) : undefined;
}
