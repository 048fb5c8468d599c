import assert from 'node:assert/strict';
import { RecordSplitter } from '../../../src/tools/run-ripgrep';

/** Every record `chunks` yield, in order, and how many were dropped. */
function split(chunks: Buffer[], maxChars = 1_000): { records: string[]; oversized: number } {
  const splitter = new RecordSplitter('\0', maxChars);
  const records = chunks.flatMap((chunk) => splitter.push(chunk));
  records.push(...splitter.end());
  return { records, oversized: splitter.oversized };
}

describe('the records read from ripgrep', () => {
  it('are the same however the stream is cut, multi-byte characters included', () => {
    const stream = Buffer.from('a.ts\0src/ünï.md\0😀/b.js\0last');
    const whole = split([stream]).records;
    assert.deepEqual(whole, ['a.ts', 'src/ünï.md', '😀/b.js', 'last']);
    for (let cut = 1; cut < stream.length; cut++) {
      assert.deepEqual(split([stream.subarray(0, cut), stream.subarray(cut)]).records, whole, `cut at byte ${cut}`);
    }
    assert.deepEqual(split([...stream].map((byte) => Buffer.from([byte]))).records, whole, 'one byte at a time');
  });

  it('drop a record over the limit, whole in one chunk or spread over several, and count it', () => {
    const long = 'x'.repeat(30);
    assert.deepEqual(split([Buffer.from(`a\0${long}\0b\0`)], 20), { records: ['a', 'b'], oversized: 1 });
    const spread = Buffer.from(`a\0${long}\0${long}`);
    const pieces = [spread.subarray(0, 5), spread.subarray(5, 20), spread.subarray(20, 40), spread.subarray(40)];
    assert.deepEqual(split(pieces, 20), { records: ['a'], oversized: 2 });
    assert.deepEqual(split([Buffer.from(`${'y'.repeat(20)}\0`)], 20), { records: ['y'.repeat(20)], oversized: 0 }, 'the limit itself is kept');
  });
});
