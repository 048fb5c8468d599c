import { strict as assert } from 'node:assert';
import { PassThrough } from 'node:stream';
import { LineReader } from '../../../../src/adapters/cli/cli-io';

const never = new AbortController().signal;

describe('LineReader: answers typed at a prompt', () => {
  it('gives the line typed, not "no answer" (every terminal approval used to read as "no")', async () => {
    const input = new PassThrough();
    const reader = new LineReader(input);
    const answer = reader.next(never);
    input.write('y\n');
    assert.equal(await answer, 'y');
  });

  it('keeps lines typed ahead for the next questions, in order', async () => {
    const input = new PassThrough();
    const reader = new LineReader(input);
    const first = reader.next(never);
    input.write('a\r\nn\n');
    assert.equal(await first, 'a');
    assert.equal(await reader.next(never), 'n');
  });

  it('answers undefined at end of input, now and for every later question', async () => {
    const input = new PassThrough();
    const reader = new LineReader(input);
    const pending = reader.next(never);
    input.end();
    assert.equal(await pending, undefined);
    assert.equal(await reader.next(never), undefined);
  });

  it('gives up on a cancelled question without losing the line typed after it', async () => {
    const input = new PassThrough();
    const reader = new LineReader(input);
    const cancel = new AbortController();
    const pending = reader.next(cancel.signal);
    cancel.abort();
    assert.equal(await pending, undefined);
    const next = reader.next(never);
    input.write('yes\n');
    assert.equal(await next, 'yes');
  });
});
