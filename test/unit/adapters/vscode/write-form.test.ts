import assert from 'node:assert/strict';
import {
  bufferBytes,
  changedSpan,
  encodingFromBom,
  lineBreakOf,
  MAX_EDITOR_BYTES,
  writeForm,
} from '../../../../src/adapters/vscode/workspace/write-form';

const bytes = (...values: number[]) => Uint8Array.from(values);

describe('VS Code writes: editor text or raw bytes', () => {
  it('sends UTF-8 text through the editor, with its line break', () => {
    assert.deepEqual(writeForm('a\nb\n', 'utf8'), { kind: 'text', text: 'a\nb\n', lineBreak: '\n' });
    assert.deepEqual(writeForm(new TextEncoder().encode('a\r\nb'), undefined), {
      kind: 'text',
      text: 'a\r\nb',
      lineBreak: '\r\n',
    });
    assert.deepEqual(writeForm('one line', undefined), { kind: 'text', text: 'one line', lineBreak: undefined });
  });

  it('writes bytes when a buffer could not hold them as they are', () => {
    const reasons = [
      writeForm(bytes(0xff, 0xfe, 0x41), 'utf8'),
      writeForm('a\0b', 'utf8'),
      writeForm('a\r\nb\nc', 'utf8'),
      writeForm('progress\rdone', 'utf8'),
      writeForm('text', 'windows1252'),
      writeForm('\uFEFFwith a mark', 'utf8'),
      writeForm('no mark', 'utf8bom'),
      writeForm('x'.repeat(MAX_EDITOR_BYTES + 1), 'utf8'),
    ].map((form) => (form.kind === 'bytes' ? form.reason : 'text'));
    assert.deepEqual(reasons, [
      'not UTF-8 text',
      'binary content',
      'mixed line breaks, which an editor buffer would make uniform',
      'mixed line breaks, which an editor buffer would make uniform',
      "the document's encoding (windows1252) would change the bytes written",
      "the document's encoding (utf8) would change the bytes written",
      "the document's encoding (utf8bom) would change the bytes written",
      'too large for an editor buffer',
    ]);
  });

  it('keeps the bytes asked for on the bytes route', () => {
    const data = bytes(0x00, 0x01, 0xff);
    const form = writeForm(data, undefined);
    assert.equal(form.kind, 'bytes');
    assert.equal(form.kind === 'bytes' && form.bytes, data);
  });

  it('lets a document that keeps a byte order mark add it on save', () => {
    assert.deepEqual(writeForm('\uFEFFhi\n', 'utf8bom'), { kind: 'text', text: 'hi\n', lineBreak: '\n' });
    assert.deepEqual([...bufferBytes('hi', 'utf8bom')], [0xef, 0xbb, 0xbf, 0x68, 0x69]);
    assert.deepEqual([...bufferBytes('hi', 'utf8')], [0x68, 0x69]);
  });

  it('tells the encoding VS Code opens a file with from its byte order mark', () => {
    assert.equal(encodingFromBom(bytes(0xef, 0xbb, 0xbf)), 'utf8bom');
    assert.equal(encodingFromBom(bytes(0xff, 0xfe, 0x41)), 'utf16le');
    assert.equal(encodingFromBom(bytes(0xfe, 0xff)), 'utf16be');
    assert.equal(encodingFromBom(bytes(0x41, 0x42)), 'utf8');
    assert.equal(encodingFromBom(bytes()), 'utf8');
  });

  it('names the line break a text uses', () => {
    assert.equal(lineBreakOf(''), undefined);
    assert.equal(lineBreakOf('a\nb'), '\n');
    assert.equal(lineBreakOf('a\r\nb\r\n'), '\r\n');
    assert.equal(lineBreakOf('a\r\nb\n'), 'mixed');
    assert.equal(lineBreakOf('a\rb'), 'mixed');
  });
});

describe('The span an editor write changes', () => {
  const apply = (before: string, after: string) => {
    const span = changedSpan(before, after);
    return before.slice(0, span.start) + span.text + before.slice(span.end);
  };

  it('keeps the common start and end out of the edit', () => {
    assert.deepEqual(changedSpan('one\ntwo\nthree\n', 'one\n2\nthree\n'), { start: 4, end: 7, text: '2' });
    assert.deepEqual(changedSpan('same', 'same'), { start: 4, end: 4, text: '' });
    assert.deepEqual(changedSpan('', 'new'), { start: 0, end: 0, text: 'new' });
    assert.deepEqual(changedSpan('gone', ''), { start: 0, end: 4, text: '' });
  });

  it('handles repeated text at the seam without overlapping start and end', () => {
    for (const [before, after] of [
      ['aaa', 'aaaa'],
      ['abab', 'ab'],
      ['x\n\n', 'x\n\n\n'],
      ['ab', 'ba'],
    ] as const) {
      const span = changedSpan(before, after);
      assert.ok(span.start <= span.end, `${before} → ${after}`);
      assert.equal(apply(before, after), after);
    }
  });

  it('never splits a CRLF or a surrogate pair', () => {
    const crlf = changedSpan('a\r\nb', 'a\r\r\nb');
    assert.equal(apply('a\r\nb', 'a\r\r\nb'), 'a\r\r\nb');
    assert.notEqual('a\r\nb'.slice(crlf.start - 1, crlf.start + 1), '\r\n');
    const emoji = changedSpan('x😀', 'x😁');
    assert.deepEqual(emoji, { start: 1, end: 3, text: '😁' });
  });
});
