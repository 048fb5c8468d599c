import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { readFileTool } from '../../../src/tools/builtin/read-file';
import { tempWorkspace, toolContext } from './temp-workspace';

describe('read_file', () => {
  let ws: ReturnType<typeof tempWorkspace>;
  const read = (args: unknown) => readFileTool.run(JSON.stringify(args), toolContext(ws.workspace));
  const numbered = (count: number, from = 1) =>
    Array.from({ length: count }, (_, i) => `line ${from + i}`).join('\n') + '\n';

  beforeEach(() => {
    ws = tempWorkspace({ 'src/a.ts': 'const a = 1;\r\nexport { a };\n', 'empty.txt': '' });
  });
  afterEach(() => ws.remove());

  it('numbers lines like cat -n', async () => {
    const result = await read({ path: 'src/a.ts' });
    assert.equal(result.status, 'success');
    assert.equal(result.output, '     1\tconst a = 1;\n     2\texport { a };');
    assert.deepEqual(result.metadata.extra, { totalLines: 2, firstLine: 1, lastLine: 2 });
  });

  it('reads a window with offset and limit and says how to continue', async () => {
    fs.writeFileSync(path.join(ws.root, 'long.txt'), numbered(50));
    const result = await read({ path: 'long.txt', offset: 10, limit: 3 });
    assert.equal(
      result.output,
      '    10\tline 10\n    11\tline 11\n    12\tline 12\n\n' +
        '[truncated: showing lines 10-12 of 50; continue with offset 13]',
    );
    const tail = await read({ path: 'long.txt', offset: 49 });
    assert.equal(tail.output, '    49\tline 49\n    50\tline 50');
  });

  it('shows at most 2000 lines by default', async () => {
    fs.writeFileSync(path.join(ws.root, 'big.txt'), numbered(2500));
    const result = await read({ path: 'big.txt' });
    assert.ok(result.output.includes('  2000\tline 2000\n'));
    assert.ok(!result.output.includes('line 2001'));
    assert.ok(result.output.endsWith('[truncated: showing lines 1-2000 of 2500; continue with offset 2001]'));
  });

  it('cuts very long lines and caps the output size', async () => {
    const long = 'x'.repeat(5_000);
    fs.writeFileSync(path.join(ws.root, 'wide.txt'), `${long}\nshort\n`);
    const wide = await read({ path: 'wide.txt' });
    assert.ok(wide.output.startsWith(`     1\t${'x'.repeat(2_000)} [… line cut: 5000 characters in all]\n`));
    assert.ok(wide.output.endsWith('     2\tshort'));

    fs.writeFileSync(path.join(ws.root, 'heavy.txt'), `${'y'.repeat(1_000)}\n`.repeat(300));
    const heavy = await read({ path: 'heavy.txt' });
    assert.ok(Buffer.byteLength(heavy.output) <= 101_000, `${Buffer.byteLength(heavy.output)} bytes`);
    const match = /\[truncated: showing lines 1-(\d+) of 300; continue with offset (\d+)\]$/.exec(heavy.output);
    assert.ok(match, heavy.output.slice(-200));
    assert.equal(Number(match[2]), Number(match[1]) + 1);
    assert.ok(Number(match[1]) >= 90 && Number(match[1]) < 100);
    assert.ok(!heavy.output.includes('characters omitted'), 'defineTool does not cut it again');
  });

  it('says when a file is empty', async () => {
    const result = await read({ path: 'empty.txt' });
    assert.equal(result.status, 'success');
    assert.equal(result.output, '[empty.txt is empty]');
  });

  it('refuses binary files', async () => {
    fs.writeFileSync(path.join(ws.root, 'image.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x01]));
    const result = await read({ path: 'image.png' });
    assert.equal(result.status, 'error');
    assert.match(result.error ?? '', /image\.png is a binary file/);
  });

  it('points a directory to list_directory', async () => {
    const result = await read({ path: 'src' });
    assert.equal(result.status, 'error');
    assert.match(result.error ?? '', /src is a directory.*list_directory/);
  });

  it('names a missing file and suggests a similar one', async () => {
    const typo = await read({ path: 'src/b.ts' });
    assert.equal(typo.status, 'error');
    assert.equal(typo.error, 'File not found: src/b.ts. Did you mean src/a.ts?');
    const unrelated = await read({ path: 'nothing/here/at-all.md' });
    assert.equal(unrelated.error, 'File not found: nothing/here/at-all.md.');
  });

  it('refuses an offset past the end', async () => {
    const result = await read({ path: 'src/a.ts', offset: 5 });
    assert.equal(result.status, 'error');
    assert.match(result.error ?? '', /offset 5 is past the end of src\/a\.ts, which has 2 lines/);
  });

  it('refuses paths outside the workspace', async () => {
    const result = await read({ path: '../../etc/passwd' });
    assert.equal(result.status, 'error');
    assert.match(result.error ?? '', /must stay inside the workspace root/);
  });

  it('rejects invalid arguments naming the field', async () => {
    const wrongType = await read({ path: 42 });
    assert.equal(wrongType.status, 'error');
    assert.match(wrongType.error ?? '', /Invalid arguments for read_file: path: .*expected string/);
    const badOffset = await read({ path: 'src/a.ts', offset: 0 });
    assert.match(badOffset.error ?? '', /offset:/);
  });

  it('summarizes and locates calls', () => {
    assert.equal(readFileTool.kind, 'read');
    assert.equal(readFileTool.summarize({ path: 'src/a.ts' }), 'src/a.ts');
    assert.equal(readFileTool.summarize({ path: 'src/a.ts', offset: 10, limit: 41 }), 'src/a.ts:10-50');
    assert.deepEqual(readFileTool.locations({ path: 'src/a.ts', offset: 10 }), [{ path: 'src/a.ts', line: 10 }]);
    assert.deepEqual(readFileTool.locations({ path: 'src/a.ts' }), [{ path: 'src/a.ts' }]);
  });

  it('returns images as image content when the model can see them', async () => {
    const png = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(100, 7)]);
    fs.writeFileSync(path.join(ws.root, 'logo.png'), png);
    const seen = await read({ path: 'logo.png' });
    assert.equal(seen.status, 'success');
    assert.match(seen.output, /logo\.png is an image \(image\/png, 1 KB\), attached/);
    assert.deepEqual(seen.images, [{ type: 'image', mimeType: 'image/png', data: png.toString('base64') }]);

    const blind = await readFileTool.run(
      JSON.stringify({ path: 'logo.png' }),
      toolContext(ws.workspace, undefined, { supportsImages: false }),
    );
    assert.equal(blind.status, 'error');
    assert.match(blind.error!, /this model cannot view images/);
    assert.equal(blind.images, undefined);
  });

  it('refuses files too large to read whole, pointing to grep', async () => {
    fs.writeFileSync(path.join(ws.root, 'huge.log'), Buffer.alloc(21 * 1024 * 1024, 0x61));
    const result = await read({ path: 'huge.log' });
    assert.match(result.error!, /too large to read whole; search it with grep/);
  });
});
