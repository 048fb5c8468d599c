/**
 * Resuming a long session reads its history from the end back to where the
 * model's view begins (the last compaction still read), not the whole file;
 * what comes before is read when something asks for it. Checked against a
 * full read of the same file: the model is sent exactly the same, whatever
 * mix of compactions, trims, rewinds and saves the history went through.
 */
import assert from 'node:assert/strict';
import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ACPSession } from '../../src/session/acp-session';
import type { HistoryEntry } from '../../src/session/history';
import { type InternalSession, readEntries, toMessages } from '../../src/session/internal-session';
import { SessionStore } from '../../src/session/session-store';
import { growHistory, random, turn } from '../support/long-history';

describe('resuming a session reads its history from the last compaction on', () => {
  let data: string;
  beforeEach(() => (data = mkdtempSync(join(tmpdir(), 'crow-window-'))));
  afterEach(() => rmSync(data, { recursive: true, force: true }));

  const historyFile = (store: SessionStore, id: string, internal: InternalSession): string => join(store.root, id, `${internal.id}.jsonl`);
  const fullRead = (id: string): HistoryEntry[] => [...new SessionStore({ dataHome: data }).histories(id).values()][0]!;
  const resumed = (id: string): InternalSession => new SessionStore({ dataHome: data }).load(id).internalSessions()[0]!.session;

  /**
   * A stored session whose history goes through `steps` prompts, with
   * compactions, trims and rewinds (some to before the last compaction) at
   * random, saved at random moments (entries after the last save are what
   * a killed process leaves).
   */
  function storedSession(seed: number, steps: number): { store: SessionStore; id: string; internal: InternalSession } {
    const next = random(seed);
    const store = new SessionStore({ dataHome: data });
    const session = new ACPSession({ cwd: data, agentName: 'build' });
    const handle = store.attach(session);
    const internal = session.sessionFor('primary', 'builder');
    growHistory(next, internal, steps, 40_000, () => {
      if (next() < 0.3) handle.save();
    });
    handle.close();
    return { store, id: session.id, internal };
  }

  it('sends the model exactly what a full read would, over 40 mixes of compactions, trims, rewinds and saves', () => {
    let partial = 0;
    for (let seed = 1; seed <= 40; seed++) {
      const { id } = storedSession(seed, 60);
      const full = fullRead(id);
      const history = resumed(id);
      if (history.loaded.base > 0) partial += 1;
      assert.equal(history.length, full.length, `seed ${seed}: length`);
      assert.deepEqual(history.toMessages(), toMessages(full), `seed ${seed}: what the model is sent`);
      assert.deepEqual(history.entries, full, `seed ${seed}: the whole history when asked`);
    }
    assert.ok(partial >= 10, `most resumed histories should start at a compaction; ${partial} of 40 did`);
  });

  it('goes on from a partly read history: a rewind to before what was read, and the next resume, still match a full read', () => {
    for (let seed = 100; seed < 110; seed++) {
      const { id } = storedSession(seed, 40);
      const store = new SessionStore({ dataHome: data });
      const session = store.load(id);
      const handle = store.attach(session);
      const history = session.internalSessions()[0]!.session;
      const base = history.loaded.base;
      for (const entry of turn(1000, 10, 1)) history.append(entry);
      // The checkpoint of a prompt long before the compaction the resume read from.
      history.append({ kind: 'rewind', to: Math.floor(base / 2), at: 2 });
      for (const entry of turn(1001, 10, 3)) history.append(entry);
      const sent = history.toMessages();
      handle.close();

      const full = fullRead(id);
      assert.deepEqual(sent, toMessages(full), `seed ${seed}: after the rewind`);
      assert.match(JSON.stringify(sent), /Prompt 1001/);
      const again = resumed(id);
      assert.deepEqual(again.toMessages(), toMessages(full), `seed ${seed}: resumed again`);
      assert.deepEqual(again.entries, full);
    }
  });

  it('reads nothing before the last compaction to build the request', () => {
    const { store, id, internal } = storedSession(7, 80);
    const session = store.load(id);
    const handle = store.attach(session);
    const history = session.internalSessions()[0]!.session;
    history.append({ kind: 'compaction', upTo: history.length - 5, note: 'Summary of it all.', at: 1 });
    for (const entry of turn(3000, 10, 2)) history.append(entry);
    handle.close();
    const file = historyFile(store, id, internal);
    const full = fullRead(id);
    const expected = toMessages(full);
    const compaction = readEntries(full).findLast(({ entry }) => entry.kind === 'compaction')?.entry;
    assert.ok(compaction?.kind === 'compaction' && compaction.upTo > 100, 'the model reads from a compaction well into the history');
    const upTo = compaction.upTo;
    // Blank (same size) every line before the compaction's cut: a read of them would find no entries and number the rest wrong.
    const lines = readFileSync(file, 'utf8').split('\n');
    const blanked = lines.map((line, index) => (index < upTo ? ' '.repeat(Buffer.byteLength(line)) : line));
    writeFileSync(file, blanked.join('\n'));
    assert.deepEqual(resumed(id).toMessages(), expected);
  });

  it('reads from where meta.json says the view begins only when the file bears it out: a wrong or hostile offset reads back instead', () => {
    const { store, id } = storedSession(11, 80);
    const session = store.load(id);
    const handle = store.attach(session);
    const live = session.internalSessions()[0]!.session;
    // Cut among entries an earlier process wrote: their offsets are known from the load.
    const cut = live.length - 5;
    live.append({ kind: 'compaction', upTo: cut, note: 'Summary of it all.', at: 1 });
    for (let n = 0; n < 8; n++) for (const entry of turn(4000 + n, 2_000, 2)) live.append(entry);
    handle.save();
    handle.close();
    const metaFile = join(store.root, id, 'meta.json');
    const meta = JSON.parse(readFileSync(metaFile, 'utf8')) as { internal: { mark: { entries: number; bytes: number; view?: { entry: number; byte: number } } }[] };
    const mark = meta.internal[0]!.mark;
    assert.equal(mark.view?.entry, cut, 'the mark says where the view begins');
    const full = fullRead(id);
    const { entry, byte } = mark.view!;
    const views: unknown[] = [
      { entry, byte: byte + 1 },
      { entry: entry + 1, byte },
      { entry: entry - 1, byte },
      { entry, byte: mark.bytes + 10 },
      { entry: -1, byte: -1 },
      { entry: 'one', byte: null },
      null,
      'garbage',
    ];
    for (const view of views) {
      mark.view = view as never;
      writeFileSync(metaFile, JSON.stringify(meta));
      const history = resumed(id);
      assert.deepEqual(history.toMessages(), toMessages(full), `view ${JSON.stringify(view)}`);
      assert.deepEqual(history.entries, full, `view ${JSON.stringify(view)}: the whole history`);
    }
  });

  it('resumes a session stored before the mark was kept (reads it whole), and keeps the mark from its next save', () => {
    const { store, id } = storedSession(3, 50);
    const metaFile = join(store.root, id, 'meta.json');
    const meta = JSON.parse(readFileSync(metaFile, 'utf8')) as { internal: { mark?: unknown }[] };
    for (const internal of meta.internal) delete internal.mark;
    writeFileSync(metaFile, JSON.stringify(meta));
    const full = fullRead(id);

    const old = new SessionStore({ dataHome: data });
    const session = old.load(id);
    assert.equal(session.internalSessions()[0]!.session.loaded.base, 0, 'an old session is read whole');
    assert.deepEqual(session.internalSessions()[0]!.session.toMessages(), toMessages(full));
    old.attach(session).close();
    const saved = JSON.parse(readFileSync(metaFile, 'utf8')) as { internal: { mark?: { entries: number } }[] };
    assert.equal(saved.internal[0]!.mark?.entries, full.length);
    assert.deepEqual(resumed(id).toMessages(), toMessages(full));
  });

  it('reads a history whole when its file does not match what meta.json says (replaced by a shorter one), and reads entries written after the last save', () => {
    const { store, id, internal } = storedSession(5, 50);
    const file = historyFile(store, id, internal);
    const full = fullRead(id);
    const extra = turn(2000, 5, 9);
    appendFileSync(file, extra.map((entry) => `${JSON.stringify(entry)}\n`).join(''));
    assert.deepEqual(resumed(id).entries, [...full, ...extra], 'entries a killed process wrote after the last save');

    const shorter = full.slice(0, 12);
    writeFileSync(file, shorter.map((entry) => `${JSON.stringify(entry)}\n`).join(''));
    const history = resumed(id);
    assert.deepEqual(history.entries, shorter);
    assert.deepEqual(history.toMessages(), toMessages(shorter));
  });
});
