import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { editFileTool } from '../../../src/tools/builtin/edit-file';
import { PermissionGate } from '../../../src/tools/permissions';
import { unifiedDiff } from '../../../src/tools/unified-diff';
import { tempWorkspace, toolContext } from './temp-workspace';

/** About 1 MB of numbered lines, some with characters beyond ASCII. */
const LINES = Array.from({ length: 20_000 }, (_, i) => (i % 7 === 3 ? `  naïve(${i}); // café €${i}` : `  const line${i} = compute(${i % 13});`));

/** The files edited: plain ASCII; Windows line breaks and no final one; the same with a byte order mark and a final break. */
const FILES = {
  'lf.ts': `${LINES.map((line) => line.replace(/[^\x20-\x7e]/g, '?')).join('\n')}\n`,
  'crlf.ts': LINES.join('\r\n'),
  'crlf-bom.ts': `\uFEFF${LINES.join('\r\n')}\r\n`,
};

describe('edit_file on a large file', () => {
  let ws: ReturnType<typeof tempWorkspace>;
  const edit = (args: unknown, ctx = toolContext(ws.workspace)) => editFileTool.run(JSON.stringify(args), ctx);
  const bytes = (name: string) => fs.readFileSync(path.join(ws.root, name));

  beforeEach(() => {
    ws = tempWorkspace(FILES);
  });
  afterEach(() => ws.remove());

  /**
   * Each edit with the text it must leave, worked out on the whole text:
   * the file must hold exactly that text's UTF-8, and the diff shown must be
   * the diff of the whole file.
   */
  const cases: Array<{ name: string; file: keyof typeof FILES; old: string; new: string; all?: boolean; expect: (text: string) => string }> = [
    { name: 'the first line', file: 'lf.ts', old: '  const line0 = ', new: 'export const first = ', expect: (t) => t.replace('  const line0 = ', 'export const first = ') },
    { name: 'a line in the middle', file: 'lf.ts', old: '  const line10000 = compute(3);\n', new: '  const middle = 1;\n  const more = 2;\n', expect: (t) => t.replace('  const line10000 = compute(3);\n', '  const middle = 1;\n  const more = 2;\n') },
    { name: 'the last line, its break kept', file: 'lf.ts', old: '  const line19999 = compute(5);\n', new: '  const last = 0;', expect: (t) => t.replace('  const line19999 = compute(5);\n', '  const last = 0;\n') },
    { name: 'every match, far apart', file: 'lf.ts', old: 'compute(12)', new: 'computed(12)', all: true, expect: (t) => t.replaceAll('compute(12)', 'computed(12)') },
    { name: 'the first line', file: 'crlf.ts', old: '  const line0 = compute(0);\n  const line1', new: '  const zero = 0;\n  const one', expect: (t) => t.replace('  const line0 = compute(0);\r\n  const line1', '  const zero = 0;\r\n  const one') },
    { name: 'lines beyond ASCII in the middle', file: 'crlf.ts', old: '  naïve(10006); // café €10006\n', new: '  naïve(10006); // café ☕\n  done();\n', expect: (t) => t.replace('  naïve(10006); // café €10006\r\n', '  naïve(10006); // café ☕\r\n  done();\r\n') },
    { name: 'the last line, staying without a final break', file: 'crlf.ts', old: '  const line19999 = compute(5);', new: '  const last = 0;\n', expect: (t) => t.replace('  const line19999 = compute(5);', '  const last = 0;') },
    { name: 'the last two lines removed', file: 'crlf.ts', old: '\n  const line19998 = compute(4);\n  const line19999 = compute(5);', new: '\n', expect: (t) => t.replace('\r\n  const line19998 = compute(4);\r\n  const line19999 = compute(5);', '') },
    { name: 'every match beyond ASCII', file: 'crlf.ts', old: 'café', new: 'tea', all: true, expect: (t) => t.replaceAll('café', 'tea') },
    { name: 'the first line after the byte order mark', file: 'crlf-bom.ts', old: '  const line0 = compute(0);', new: '  const zero = 0;', expect: (t) => t.replace('  const line0 = compute(0);', '  const zero = 0;') },
    { name: 'the byte order mark itself', file: 'crlf-bom.ts', old: '\uFEFF  const line0', new: '  const line0', expect: (t) => t.slice(1) },
    { name: 'the last line, its break kept', file: 'crlf-bom.ts', old: '  const line19998 = compute(4);\n  const line19999 = compute(5);\n', new: '  done();', expect: (t) => t.replace('  const line19998 = compute(4);\r\n  const line19999 = compute(5);\r\n', '  done();\r\n') },
  ];

  for (const { name, file, old, new: replacement, all, expect } of cases) {
    it(`writes exactly the edited text and shows the whole file's diff: ${name} of ${file}`, async () => {
      const before = bytes(file).toString('utf8');
      const expected = expect(before);
      assert.notEqual(expected, before, 'the case changes the file');
      const result = await edit({ path: file, old_string: old, new_string: replacement, ...(all ? { replace_all: true } : {}) });
      assert.equal(result.status, 'success', result.error);
      assert.ok(bytes(file).equals(Buffer.from(expected)), 'the file holds the UTF-8 of the edited text, byte for byte');
      const whole = unifiedDiff(file, before, expected);
      assert.equal(result.metadata.diff, whole.diff);
      assert.match(result.output, new RegExp(`^Edited ${file.replace('.', '\\.')} \\(\\+${whole.linesAdded} -${whole.linesRemoved} lines\\)`));
    });
  }

  it('shows the whole file\'s diff of what it wrote when old_string matched only loosely', async () => {
    const before = bytes('crlf.ts').toString('utf8');
    const result = await edit({ path: 'crlf.ts', old_string: 'const line15001 = compute(12);\nconst line15002 = compute(0);', new_string: 'const joined = 15001;' });
    assert.equal(result.status, 'success', result.error);
    assert.equal(result.metadata.extra.matcher, 'indentation-flexible');
    const after = bytes('crlf.ts').toString('utf8');
    assert.equal(after, before.replace('  const line15001 = compute(12);\r\n  const line15002 = compute(0);', '  const joined = 15001;'));
    assert.equal(result.metadata.diff, unifiedDiff('crlf.ts', before, after).diff);
    assert.match(result.metadata.diff ?? '', /^@@ -14999,8 \+14999,7 @@$/m);
  });

  it('writes the same bytes through a backend that takes only whole files (VS Code, an ACP client)', async () => {
    const written: unknown[] = [];
    // The Node workspace without writeFileParts, noting what writeFile is given.
    const whole = new Proxy(ws.workspace, {
      get: (target, key) =>
        key === 'writeFileParts'
          ? undefined
          : key === 'writeFile'
            ? (name: string, data: Uint8Array | string) => (written.push(data), target.writeFile(name, data))
            : Reflect.get(target, key),
    });
    const before = bytes('crlf.ts').toString('utf8');
    const result = await edit({ path: 'crlf.ts', old_string: '  naïve(10006); // café €10006', new_string: '  wise();' }, toolContext(whole));
    assert.equal(result.status, 'success', result.error);
    assert.ok(bytes('crlf.ts').equals(Buffer.from(before.replace('  naïve(10006); // café €10006', '  wise();'))));
    assert.ok(written.length === 1 && written[0] instanceof Uint8Array, 'the edit went as bytes');
  });

  it('refuses an ambiguous match, naming its lines across the file, and leaves every byte alone', async () => {
    const original = bytes('crlf-bom.ts');
    const result = await edit({ path: 'crlf-bom.ts', old_string: 'compute(12);', new_string: 'compute(13);' });
    assert.equal(result.status, 'error');
    assert.match(result.error ?? '', /^old_string matches 1318 places in crlf-bom\.ts \(lines 13, 26, 52, 65, 78, .*, …\)\. Add surrounding lines/);
    assert.ok(bytes('crlf-bom.ts').equals(original));
  });

  it('keeps a character outside the Basic Multilingual Plane whole beside the edit, and writes lone surrogates as before', async () => {
    const emoji = `${'filler line\n'.repeat(5_000)}ok 😀end\n${'filler line\n'.repeat(5_000)}`;
    fs.writeFileSync(path.join(ws.root, 'emoji.txt'), emoji);
    await edit({ path: 'emoji.txt', old_string: 'end', new_string: 'fin' });
    // A lone surrogate has no UTF-8 of its own: it is written as U+FFFD, as Node writes the whole text.
    await edit({ path: 'emoji.txt', old_string: 'ok ', new_string: 'ok \ud83d' });
    let expected = emoji.replace('end', 'fin').replace('ok ', 'ok \ud83d');
    assert.ok(bytes('emoji.txt').equals(Buffer.from(expected)));
    assert.match(bytes('emoji.txt').toString('utf8'), /^ok \uFFFD😀fin$/m);
    // old_string may start inside the pair, leaving its first half alone.
    await edit({ path: 'emoji.txt', old_string: '\ude00fin', new_string: 'end' });
    expected = expected.replace('\ude00fin', 'end');
    assert.ok(bytes('emoji.txt').equals(Buffer.from(expected)));
    assert.match(bytes('emoji.txt').toString('utf8'), /^ok \uFFFD\uFFFDend$/m);
  });

  it('shows the person approving the edit the same diff the edit then reports', async () => {
    let previewed: string | undefined;
    const permissions = new PermissionGate({
      policy: { rules: { read: 'allow', write: 'ask', execute: 'deny', network: 'deny' }, allowCommands: [] },
      ask: async (request) => {
        previewed = await request.diff?.();
        return 'allow_once';
      },
    });
    const result = await edit({ path: 'crlf-bom.ts', old_string: '  naïve(9999); // café €9999', new_string: '  wise(9999);' }, toolContext(ws.workspace, undefined, { permissions }));
    assert.equal(result.status, 'success', result.error);
    assert.match(result.metadata.diff ?? '', /^@@ -9997,7 \+9997,7 @@$/m);
    assert.equal(previewed, result.metadata.diff);
  });
});
