import assert from 'node:assert/strict';
import { appendFileSync, mkdtempSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FIRST_PIECE_BYTES, MAX_PIECE_BYTES, openTracePieces, TraceChangedError, type TracePieces } from '../../../src/telemetry/trace-pieces';

/** A trace.jsonl line of about `size` bytes, newline included. */
function line(n: number, size = 200): string {
  const record = JSON.stringify({ traceId: 't', spanId: `s${n}`, kind: 'tool', name: 'execute_tool bash', start: n, attributes: { out: '' } });
  return `${record.replace('"out":""', `"out":"${'x'.repeat(Math.max(0, size - record.length - 1))}"`)}\n`;
}

async function collect(trace: TracePieces, signal?: AbortSignal): Promise<Buffer[]> {
  const pieces: Buffer[] = [];
  for await (const piece of trace.pieces(signal)) pieces.push(piece);
  return pieces;
}

describe('a stored trace read in pieces of whole lines (crow trace --serve, the VS Code trace panel)', () => {
  let dir: string;
  let file: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'crow-trace-pieces-'));
    file = join(dir, 'trace.jsonl');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('gives the file in pieces of whole lines, the last line once more after the first piece, growing up to the largest piece', async () => {
    const lines = Array.from({ length: 20_000 }, (_, n) => line(n));
    writeFileSync(file, lines.join(''));
    const trace = await openTracePieces(file);
    const pieces = await collect(trace);
    await trace.close();
    const size = lines.join('').length;
    assert.equal(trace.total, size + lines.at(-1)!.length, 'the total counts the last line twice');
    assert.equal(pieces.reduce((sum, piece) => sum + piece.length, 0), trace.total);
    assert.ok(pieces[0]!.length <= FIRST_PIECE_BYTES, 'a small first piece: the first screen sooner');
    assert.equal(pieces[1]!.toString(), lines.at(-1), 'then the last line: the latest time is known early');
    assert.ok(pieces.every((piece) => piece.at(-1) === 0x0a), 'every piece ends at a line end');
    assert.ok(pieces.every((piece) => piece.length <= MAX_PIECE_BYTES));
    assert.ok(pieces.some((piece) => piece.length > MAX_PIECE_BYTES / 2), 'pieces grow');
    assert.equal(Buffer.concat([pieces[0]!, ...pieces.slice(2)]).toString(), lines.join(''), 'the file, in order, once');
  });

  it('keeps a line longer than a piece whole', async () => {
    const long = line(1, FIRST_PIECE_BYTES * 3);
    writeFileSync(file, `${line(0)}${long}${line(2)}`);
    const trace = await openTracePieces(file);
    const pieces = (await collect(trace)).map(String);
    await trace.close();
    const ids = pieces.map((piece) => [...piece.matchAll(/"spanId":"(\w+)"/g)].map((match) => match[1]).join(' '));
    assert.deepEqual(ids, ['s0', 's2', 's1 s2'], 'the first line, the last, then the long one whole and the rest');
    assert.equal(pieces[2], `${long}${line(2)}`);
  });

  it('leaves out a line still being written, and gives an empty trace for a missing or empty file', async () => {
    writeFileSync(file, `${line(0)}${line(1)}{"traceId":"t","spa`);
    const torn = await openTracePieces(file);
    assert.deepEqual((await collect(torn)).map(String), [`${line(0)}${line(1)}`, line(1)]);
    await torn.close();
    for (const content of [undefined, '', '{"half a line']) {
      if (content === undefined) rmSync(file, { force: true });
      else writeFileSync(file, content);
      const trace = await openTracePieces(file);
      assert.equal(trace.total, 0);
      assert.deepEqual(await collect(trace), []);
      await trace.close();
    }
  });

  it('stops at the end the file had when opened: what is appended later is the follower\'s', async () => {
    writeFileSync(file, `${line(0)}${line(1)}`);
    const trace = await openTracePieces(file);
    appendFileSync(file, line(2));
    assert.deepEqual((await collect(trace)).map(String), [`${line(0)}${line(1)}`, line(1)]);
    await trace.close();
  });

  it('says so when the file gets shorter while it is read, and stops when told to', async () => {
    writeFileSync(file, Array.from({ length: 5_000 }, (_, n) => line(n)).join(''));
    const cut = await openTracePieces(file);
    const reading = cut.pieces();
    await reading.next();
    truncateSync(file, 1_000);
    await assert.rejects(collectRest(reading), TraceChangedError);
    await cut.close();

    writeFileSync(file, Array.from({ length: 5_000 }, (_, n) => line(n)).join(''));
    const trace = await openTracePieces(file);
    const stop = new AbortController();
    const seen: Buffer[] = [];
    for await (const piece of trace.pieces(stop.signal)) {
      seen.push(piece);
      stop.abort();
    }
    assert.equal(seen.length, 1, 'nothing is read once stopped');
    await trace.close();
  });
});

async function collectRest(reading: AsyncGenerator<Buffer>): Promise<void> {
  for await (const piece of reading) void piece;
}
