import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { globTool } from '../../../src/tools/builtin/glob';
import { tempWorkspace, toolContext } from './temp-workspace';

describe('glob', () => {
  let ws: ReturnType<typeof tempWorkspace>;
  const glob = (args: unknown) => globTool.run(JSON.stringify(args), toolContext(ws.workspace));
  const age = (file: string, minutes: number) => {
    const time = new Date(Date.now() - minutes * 60_000);
    fs.utimesSync(path.join(ws.root, file), time, time);
  };

  beforeEach(() => {
    ws = tempWorkspace({
      '.gitignore': 'dist/\n',
      'src/old.ts': '',
      'src/new.ts': '',
      'src/lib/mid.ts': '',
      'src/readme.md': '',
      'dist/out.ts': '',
    });
    age('src/old.ts', 30);
    age('src/lib/mid.ts', 20);
    age('src/new.ts', 10);
  });
  afterEach(() => ws.remove());

  it('lists matching files newest first, leaving ignored ones out', async () => {
    const result = await glob({ pattern: '**/*.ts' });
    assert.equal(result.status, 'success');
    assert.equal(result.output, ['src/new.ts', 'src/lib/mid.ts', 'src/old.ts'].join('\n'));
    assert.deepEqual(result.metadata.extra, { files: 3, truncated: false });
  });

  it('matches relative to the path given', async () => {
    const result = await glob({ pattern: 'lib/*.ts', path: 'src' });
    assert.equal(result.output, 'src/lib/mid.ts');
    assert.deepEqual(globTool.locations({ pattern: '*.ts', path: 'src' }), [{ path: 'src' }]);
    assert.equal(globTool.summarize({ pattern: '*.ts', path: 'src' }), '*.ts in src');
  });

  it('says when nothing matches', async () => {
    const result = await glob({ pattern: '*.py', path: 'src' });
    assert.equal(result.status, 'success');
    assert.equal(result.output, 'No files match "*.py" in src.');
  });

  it('stops at its cap, saying the files are the first found and how to narrow the search', async () => {
    fs.mkdirSync(path.join(ws.root, 'gen'));
    for (let i = 0; i < 200; i++) fs.writeFileSync(path.join(ws.root, 'gen', `gen-${i}.ts`), '');
    for (let i = 0; i < 30; i++) fs.writeFileSync(path.join(ws.root, 'src', `gen-${i}.ts`), '');
    const result = await glob({ pattern: '*.ts' });
    const rows = result.output.split('\n');
    assert.equal(rows.length, 202);
    assert.equal(new Set(rows.slice(0, 200)).size, 200);
    assert.deepEqual(rows.slice(0, 200), rows.slice(0, 200).sort(), 'by path');
    assert.ok(rows.slice(0, 200).every((row) => /^(gen\/gen-\d+|src\/(gen-\d+|old|new|lib\/mid))\.ts$/.test(row)), rows.slice(0, 200).join(', '));
    assert.equal(
      rows.at(-1),
      '[Stopped at 200 files; more match. These are the first found, by path, not the newest: use a more specific pattern or a subfolder as path]',
    );
    assert.deepEqual(result.metadata.extra, { files: 200, truncated: true });
    const exact = await glob({ pattern: 'gen/*.ts' });
    assert.ok(!exact.output.includes('Stopped'), 'exactly 200 matches are all shown, without the note');
    assert.equal(exact.output.split('\n').length, 200);
  });

  it('reports bad globs and paths outside the workspace as errors', async () => {
    assert.match((await glob({ pattern: '{a,b' })).error ?? '', /Invalid glob/);
    assert.match((await glob({ pattern: '*', path: '..' })).error ?? '', /must stay inside the workspace root/);
    assert.match((await glob({})).error ?? '', /Invalid arguments for glob: pattern:/);
  });
});
