import type { FindFilesOptions, FindFilesResult } from '../../../tools/workspace';

/** The largest cap searched with again when hidden files are most of those found. */
const MAX_CAP = 100_000;

/**
 * A file search less the files a front door hides (VS Code's files.exclude),
 * stopping one past the limit as the search itself does: when hidden files
 * left no more than the limit while more match, it searches again with
 * twice the cap, until one past the limit are left or no more match.
 * Past the limit the files are by path, as the search gives them (the
 * newest of all is unknown there).
 */
export async function findVisibleFiles(
  options: Pick<FindFilesOptions, 'limit' | 'sort'>,
  find: (limit: number) => Promise<FindFilesResult>,
  hiddenAmong: (files: string[]) => Promise<ReadonlySet<string>>,
): Promise<FindFilesResult> {
  for (let cap = options.limit + 1; ; cap *= 2) {
    const found = await find(cap);
    const hidden = await hiddenAmong(found.files);
    const kept = found.files.filter((file) => !hidden.has(file));
    if (kept.length > options.limit || !found.truncated || cap >= MAX_CAP) {
      const truncated = found.truncated || kept.length > options.limit;
      const files = kept.slice(0, options.limit);
      return { files: truncated && options.sort !== 'path' ? files.sort() : files, truncated, warnings: found.warnings };
    }
  }
}
