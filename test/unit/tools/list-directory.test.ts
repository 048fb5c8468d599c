import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { listDirectoryTool } from '../../../src/tools/builtin/list-directory';
import { tempWorkspace, toolContext } from './temp-workspace';

describe('list_directory', () => {
  let ws: ReturnType<typeof tempWorkspace>;
  const list = (args: unknown) => listDirectoryTool.run(JSON.stringify(args), toolContext(ws.workspace));

  beforeEach(() => {
    ws = tempWorkspace({
      'README.md': '',
      'src/index.ts': '',
      'src/tools/bash.ts': '',
      'src/tools/deeper/x.ts': '',
      '.git/HEAD': '',
      'node_modules/zod/index.js': '',
      'pkg/__pycache__/m.pyc': '',
    });
  });
  afterEach(() => ws.remove());

  it('lists an indented tree two levels deep, skipping .git and collapsing dependency folders', async () => {
    const result = await list({});
    assert.equal(result.status, 'success');
    assert.equal(
      result.output,
      [
        './',
        '  README.md',
        '  node_modules/ (ignored)',
        '  pkg/',
        '    __pycache__/ (ignored)',
        '  src/',
        '    index.ts',
        '    tools/',
      ].join('\n'),
    );
  });

  it('honours .gitignore (root and nested, negation, anchoring) and .ignore', async () => {
    const files: Record<string, string> = {
      '.gitignore': '*.log\n!keep.log\ndist/\n/build\n',
      '.ignore': 'secret.txt\n',
      'debug.log': '',
      'keep.log': '',
      'secret.txt': '',
      'dist/bundle.js': '',
      'build/out.o': '',
      'src/.gitignore': '*.tmp\n',
      'src/scratch.tmp': '',
      'src/trace.log': '',
      'src/build/made.ts': '',
      'src/packages/ui/dist/ui.js': '',
    };
    for (const [name, content] of Object.entries(files)) {
      fs.mkdirSync(path.dirname(path.join(ws.root, name)), { recursive: true });
      fs.writeFileSync(path.join(ws.root, name), content);
    }
    const result = await list({ depth: 4 });
    const rows = result.output.split('\n');
    for (const hidden of ['debug.log', 'secret.txt', 'scratch.tmp', 'trace.log', 'bundle.js', 'out.o', 'ui.js']) {
      assert.ok(!rows.some((row) => row.trim() === hidden), `${hidden} is left out:\n${result.output}`);
    }
    for (const shown of ['  keep.log', '  build/ (ignored)', '  dist/ (ignored)', '    build/', '      made.ts', '        dist/ (ignored)']) {
      assert.ok(rows.includes(shown), `"${shown}" is listed:\n${result.output}`);
    }
  });

  it('applies the ignore files above a subfolder, and lists an ignored folder asked for by path', async () => {
    fs.writeFileSync(path.join(ws.root, '.gitignore'), '*.log\n');
    fs.writeFileSync(path.join(ws.root, 'src', 'tools', 'run.log'), '');
    assert.equal((await list({ path: 'src/tools', depth: 1 })).output, ['src/tools/', '  bash.ts', '  deeper/'].join('\n'));
    assert.equal((await list({ path: 'node_modules' })).output, ['node_modules/', '  zod/', '    index.js'].join('\n'));
  });

  it('descends as deep as asked, from a subfolder', async () => {
    const result = await list({ path: 'src', depth: 5 });
    assert.equal(
      result.output,
      ['src/', '  index.ts', '  tools/', '    bash.ts', '    deeper/', '      x.ts'].join('\n'),
    );
    const shallow = await list({ path: 'src', depth: 1 });
    assert.equal(shallow.output, ['src/', '  index.ts', '  tools/'].join('\n'));
  });

  it('marks symlinks and empty folders', async () => {
    fs.mkdirSync(path.join(ws.root, 'empty'));
    fs.symlinkSync(path.join(ws.root, 'src'), path.join(ws.root, 'src-link'));
    assert.equal((await list({ path: 'empty' })).output, 'empty/\n  (empty)');
    assert.match((await list({ depth: 1 })).output, /\n {2}src-link \(symlink\)/);
  });

  it('caps entries breadth first, noting how many were left out', async () => {
    for (let i = 0; i < 30; i++) fs.writeFileSync(path.join(ws.root, `top-${String(i).padStart(2, '0')}.txt`), '');
    for (let i = 0; i < 600; i++) fs.writeFileSync(path.join(ws.root, 'src', `f-${String(i).padStart(3, '0')}.ts`), '');
    const result = await list({});
    const rows = result.output.split('\n');
    assert.ok(rows.includes('  top-29.txt'), 'every top-level entry is shown');
    assert.ok(rows.includes('    … 137 more'), rows.slice(-5).join('\n'));
    assert.equal(rows.at(-1), '[137 of 637 entries not shown: the listing stops at 500; list a subfolder or use a smaller depth]');
    assert.deepEqual(result.metadata.extra, { entries: 637, shown: 500 });
  });

  it('reads the subfolders of a wide folder side by side, and lists them in order all the same', async () => {
    for (const name of ['c', 'a', 'b', 'd']) fs.mkdirSync(path.join(ws.root, 'wide', name, 'inner'), { recursive: true });
    let reading = 0;
    let most = 0;
    const slow = Object.assign(Object.create(ws.workspace) as typeof ws.workspace, {
      readDirectory: async (target: string) => {
        most = Math.max(most, ++reading);
        // A disk or a remote file system that takes its time: the next folder is asked for before this one answers.
        await new Promise((done) => setTimeout(done, 20));
        reading--;
        return ws.workspace.readDirectory(target);
      },
    });
    const result = await listDirectoryTool.run(JSON.stringify({ path: 'wide', depth: 3 }), toolContext(slow));
    assert.equal(result.output, ['wide/', '  a/', '    inner/', '  b/', '    inner/', '  c/', '    inner/', '  d/', '    inner/'].join('\n'));
    assert.equal(most, 4, 'the four subfolders were asked for at once');
  });

  it('reports a missing folder and points files to read_file', async () => {
    const missing = await list({ path: 'nope' });
    assert.equal(missing.status, 'error');
    assert.equal(missing.error, 'Folder not found: nope.');
    const file = await list({ path: 'README.md' });
    assert.match(file.error ?? '', /README\.md is a file.*read_file/);
  });

  it('refuses folders outside the workspace', async () => {
    const result = await list({ path: '..' });
    assert.equal(result.status, 'error');
    assert.match(result.error ?? '', /must stay inside the workspace root/);
  });

  it('rejects invalid arguments naming the field', async () => {
    const wrongType = await list({ depth: 'deep' });
    assert.match(wrongType.error ?? '', /Invalid arguments for list_directory: depth: .*expected number/);
    const tooDeep = await list({ depth: 9 });
    assert.equal(tooDeep.status, 'error');
    assert.match(tooDeep.error ?? '', /depth:/);
  });
});
