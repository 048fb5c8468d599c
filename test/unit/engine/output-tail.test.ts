import assert from 'node:assert/strict';
import { OutputTail, plainLine, screenText } from '../../../src/engine/output-tail';

describe('the tail of a running output', () => {
  it('keeps the last lines, however the output was cut into chunks, and counts them all', () => {
    const tail = new OutputTail(3, 1_000);
    for (const chunk of ['one\ntw', 'o\nthree\n', 'four\nfi', 've']) tail.push(chunk);
    assert.equal(tail.text(), 'three\nfour\nfive');
    assert.equal(tail.lines, 5);
    tail.push('\n');
    assert.equal(tail.text(), 'three\nfour\nfive');
    assert.equal(tail.lines, 5);
  });

  it('holds at most maxChars: whole lines go first, a longer last line keeps its end', () => {
    const tail = new OutputTail(40, 20);
    tail.push('aaaaaaaaaa\nbbbbbbbbbb\ncccccccccc\n');
    assert.equal(tail.text(), 'cccccccccc');
    tail.push('x'.repeat(50));
    const text = tail.text();
    assert.equal(text.length, 20);
    assert.ok(text.startsWith('…') && text.endsWith('xxxx'), text);
  });

  it('stays bounded on a line that never ends, and shows what follows its last carriage return', () => {
    const tail = new OutputTail(5, 100);
    for (let i = 0; i < 10_000; i++) tail.push(`progress ${i}%\r`);
    assert.equal(tail.text(), 'progress 9999%');
    assert.ok((tail as unknown as { current: string }).current.length <= 400);
    for (let i = 0; i < 1_000; i++) tail.push('.'.repeat(100));
    assert.ok(tail.text().length <= 100);
  });

  it('removes colours, cursor moves, titles, charset switches and bare control characters, even cut across chunks', () => {
    const tail = new OutputTail();
    for (const chunk of ['\x1b[3', '1mred\x1b[0m \x1b]0;pwned title\x07ok\x1b(B\n', 'clear\x1b[2J\x1b[H screen\x07\x08\x9b31m\n']) tail.push(chunk);
    assert.equal(tail.text(), 'red ok\nclear screen');
    assert.doesNotMatch(tail.text(), /[\x00-\x08\x0b-\x1f\x7f-\x9f]/);
  });

  it('reads a line as a terminal shows it: a carriage return starts it over, a CRLF ending is just an ending', () => {
    assert.equal(plainLine('downloading 10%\rdownloading 55%'), 'downloading 55%');
    assert.equal(plainLine('windows line\r'), 'windows line');
    assert.equal(plainLine('tab\tstays'), 'tab\tstays');
  });

  it("reads npm's spinner as a terminal shows it: the cursor to the first column and erasing the line start it over", () => {
    const spinner = '⠋\x1b[1G\x1b[0K⠙\x1b[1G\x1b[0K';
    assert.equal(plainLine(`${spinner}added 3 packages`), 'added 3 packages');
    assert.equal(plainLine(spinner), '');
    assert.equal(plainLine('⠹\x1b[2K'), '');
    assert.equal(plainLine('kept\x1b[K'), 'kept');
    assert.equal(screenText(`${spinner}\nok \x1b[32m✓\x1b[0m\r\n`), '\nok ✓\n');
  });

  it('is empty before any output', () => {
    const tail = new OutputTail();
    assert.equal(tail.text(), '');
    assert.equal(tail.lines, 0);
  });
});
