import assert from 'node:assert/strict';
import { findVisibleFiles } from '../../../../src/adapters/vscode/workspace/visible-files';
import type { FindFilesResult } from '../../../../src/tools/workspace';

/**
 * A file search over `matches` (in walk order) held to FindFilesResult's
 * contract: at most `limit` files, truncated exactly when more match;
 * newest first when all fit (here, walk order reversed), else by path.
 */
function search(matches: string[], sort: 'modified' | 'path') {
  const caps: number[] = [];
  const find = async (limit: number): Promise<FindFilesResult> => {
    caps.push(limit);
    const truncated = matches.length > limit;
    const first = matches.slice(0, limit);
    const files = sort === 'path' || truncated ? [...first].sort() : [...first].reverse();
    return { files, truncated, warnings: [] };
  };
  return { find, caps };
}

const hiding = (pattern: RegExp) => async (files: string[]) => new Set(files.filter((file) => pattern.test(file)));
const names = (prefix: string, count: number) => Array.from({ length: count }, (_, index) => `${prefix}${String(index).padStart(3, '0')}.ts`);

describe('files a VS Code window shows', () => {
  it('asks once when little is hidden, and stops one past the limit', async () => {
    const { find, caps } = search([...names('a', 8), 'skip.ts', ...names('b', 8)], 'path');
    const result = await findVisibleFiles({ limit: 5, sort: 'path' }, find, hiding(/skip/));
    assert.deepEqual(result, { files: names('a', 5), truncated: true, warnings: [] });
    assert.deepEqual(caps, [6]);
  });

  it('searches again with twice the cap while hidden files leave too few', async () => {
    const { find, caps } = search([...names('hidden/', 30), ...names('shown', 7)], 'path');
    const result = await findVisibleFiles({ limit: 5, sort: 'path' }, find, hiding(/^hidden\//));
    assert.deepEqual(result, { files: names('shown', 5), truncated: true, warnings: [] });
    assert.deepEqual(caps, [6, 12, 24, 48]);
  });

  it('is not truncated when every file past the limit is hidden', async () => {
    const { find } = search([...names('shown', 5), ...names('hidden/', 3)], 'path');
    assert.deepEqual(await findVisibleFiles({ limit: 5, sort: 'path' }, find, hiding(/^hidden\//)), {
      files: names('shown', 5),
      truncated: false,
      warnings: [],
    });
  });

  it('keeps newest first when all fit, and lists by path past the limit', async () => {
    const few = search(names('a', 4), 'modified');
    assert.deepEqual((await findVisibleFiles({ limit: 5 }, few.find, hiding(/never/))).files, names('a', 4).reverse());
    const one = search(names('a', 6), 'modified');
    const past = await findVisibleFiles({ limit: 5 }, one.find, hiding(/never/));
    // All six fit the cap (newest first: a005 … a000); the five kept are listed by path, as the search lists a truncated result.
    assert.deepEqual(past, { files: names('a', 6).slice(1), truncated: true, warnings: [] });
  });
});
