import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { grepTool } from '../../../src/tools/builtin/grep';
import { tempWorkspace, toolContext } from './temp-workspace';

describe('grep', () => {
  let ws: ReturnType<typeof tempWorkspace>;
  const grep = (args: unknown, signal?: AbortSignal) => grepTool.run(JSON.stringify(args), toolContext(ws.workspace, signal));

  beforeEach(() => {
    ws = tempWorkspace({
      '.gitignore': 'dist/\n',
      'src/a.ts': ['import x from "y";', 'const value = compute();', 'export default value;'].join('\n'),
      'src/b.ts': 'const other = compute(1);\n',
      'notes.md': 'Compute things.\n',
      'dist/a.js': 'compute();\n',
    });
  });
  afterEach(() => ws.remove());

  it('prints matches grouped by file with a summary', async () => {
    const result = await grep({ pattern: 'compute\\(' });
    assert.equal(result.status, 'success');
    assert.equal(
      result.output,
      ['src/a.ts:2: const value = compute();', '', 'src/b.ts:1: const other = compute(1);', '', '[2 matches in 2 files]'].join('\n'),
    );
    assert.deepEqual(result.metadata.extra, { matches: 2, files: 2, truncated: false });
  });

  it('shows context lines with "-" and separates runs that are apart', async () => {
    fs.writeFileSync(path.join(ws.root, 'long.txt'), ['hit', 'a', 'b', 'c', 'd', 'hit', 'e', 'hit'].join('\n'));
    const result = await grep({ pattern: 'hit', path: 'long.txt', context: 1 });
    assert.equal(
      result.output,
      ['long.txt:1: hit', 'long.txt:2- a', '--', 'long.txt:5- d', 'long.txt:6: hit', 'long.txt:7- e', 'long.txt:8: hit', '', '[3 matches in 1 file]'].join(
        '\n',
      ),
    );
  });

  it('filters by file name and ignores case when asked', async () => {
    const result = await grep({ pattern: 'COMPUTE', ignore_case: true, include: '*.md' });
    assert.equal(result.output, 'notes.md:1: Compute things.\n\n[1 match in 1 file]');
    assert.deepEqual(grepTool.locations({ pattern: 'x', path: 'src' }), [{ path: 'src' }]);
    assert.equal(grepTool.summarize({ pattern: 'x', path: 'src', include: '*.ts' }), '/x/ in src (*.ts)');
  });

  it('searches literal text with fixed_strings', async () => {
    const result = await grep({ pattern: 'compute(1)', fixed_strings: true });
    assert.equal(result.output, 'src/b.ts:1: const other = compute(1);\n\n[1 match in 1 file]');
  });

  it('says when nothing matches', async () => {
    const result = await grep({ pattern: 'nowhere', path: 'src', include: '*.ts' });
    assert.equal(result.status, 'success');
    assert.equal(result.output, 'No matches for /nowhere/ in src (files named *.ts).');
  });

  it('stops at max_results and says how to narrow', async () => {
    fs.writeFileSync(path.join(ws.root, 'many.txt'), 'compute\n'.repeat(50));
    const result = await grep({ pattern: 'compute', path: 'many.txt', max_results: 10 });
    const rows = result.output.split('\n');
    assert.equal(rows.filter((row) => row.startsWith('many.txt:')).length, 10);
    assert.equal(
      rows.at(-1),
      '[Stopped at 10 matches in 1 file; there are more. Narrow the search with path, include or a more specific pattern, or raise max_results (up to 500)]',
    );
    assert.equal(result.metadata.extra.truncated, true);
  });

  it('reports invalid patterns and arguments as errors', async () => {
    const bad = await grep({ pattern: 'compute(' });
    assert.equal(bad.status, 'error');
    assert.match(bad.error ?? '', /Search failed: .*unclosed group/s);
    assert.match((await grep({ pattern: 'x', context: 11 })).error ?? '', /context:/);
    assert.match((await grep({ pattern: 'x', max_results: 501 })).error ?? '', /max_results:/);
    assert.match((await grep({ pattern: 'x', path: '../' })).error ?? '', /must stay inside the workspace root/);
  });

  it('is cancelled when the signal fires', async () => {
    const controller = new AbortController();
    controller.abort();
    const result = await grep({ pattern: 'compute' }, controller.signal);
    assert.equal(result.status, 'cancelled');
  });
});
