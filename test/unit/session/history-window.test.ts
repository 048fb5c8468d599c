/**
 * A history held from entry `base` on (a resumed session reads from its last
 * compaction) sends the model what the whole history would, whatever the
 * cut; it reads the entries before the cut only when the model's view
 * reaches back to them, or when something asks for the whole history.
 */
import assert from 'node:assert/strict';
import type { HistoryEntry } from '../../../src/session/history';
import { InternalSession, readEntries, toMessages } from '../../../src/session/internal-session';
import { growHistory, random, turn } from '../../support/long-history';

/** A seeded history of `steps` prompts, with compactions, trims and rewinds. */
function history(seed: number, steps: number): HistoryEntry[] {
  const entries: HistoryEntry[] = [];
  growHistory(random(seed), { append: (entry) => entries.push(entry), get length() { return entries.length; } }, steps, 30);
  return entries;
}

/** `full` held from `base` on, counting the reads of what comes before. */
function cutAt(full: readonly HistoryEntry[], base: number): { session: InternalSession; reads: () => number } {
  let reads = 0;
  const session = new InternalSession('builder', {
    history: full.slice(base),
    earlier: { count: base, load: () => (reads++, full.slice(0, base)) },
  });
  return { session, reads: () => reads };
}

/** Where the model's view of `full` begins: the last compaction it reads (0 without one). */
function viewOf(full: readonly HistoryEntry[]): number {
  const compaction = readEntries(full).findLast(({ entry }) => entry.kind === 'compaction')?.entry;
  return compaction?.kind === 'compaction' ? compaction.upTo : 0;
}

describe('a history held from a cut on', () => {
  it('sends the model what the whole history would, cut anywhere, and reads before the cut only when the view reaches back', () => {
    for (let seed = 1; seed <= 12; seed++) {
      const full = history(seed, 50);
      const expected = toMessages(full);
      const view = viewOf(full);
      for (let base = 0; base <= full.length; base++) {
        const { session, reads } = cutAt(full, base);
        assert.deepEqual(session.toMessages(), expected, `seed ${seed}, cut at ${base}`);
        assert.equal(reads(), base > 0 && base > view ? 1 : 0, `seed ${seed}, cut at ${base} (view from ${view}): reads of the entries before the cut`);
        assert.equal(session.length, full.length);
      }
    }
  });

  it('goes on after the cut: new entries, a rewind to before it, and the whole history when asked', () => {
    const full: HistoryEntry[] = [...turn(0, 10, 0), ...turn(1, 10, 1), { kind: 'compaction', upTo: 10, note: 'Summary.', at: 2 }, ...turn(2, 10, 3)];
    const { session, reads } = cutAt(full, 10);
    const later = [...turn(3, 10, 4)];
    for (const entry of later) session.append(entry);
    assert.deepEqual(session.toMessages(), toMessages([...full, ...later]));
    assert.equal(reads(), 0, 'the compaction covers everything before the cut');
    assert.match(JSON.stringify(session.toMessages()), /Summary\.[\s\S]*Prompt 2[\s\S]*Prompt 3/);

    // Back to the checkpoint of the second prompt, before the compaction: the model reads prompts 0 and 1 again.
    session.append({ kind: 'rewind', to: 5, at: 5 });
    assert.equal(session.length, full.length + later.length + 1);
    const sent = session.toMessages();
    assert.equal(reads(), 1);
    assert.deepEqual(sent, toMessages([...full, ...later, { kind: 'rewind', to: 5, at: 5 }]));
    assert.match(JSON.stringify(sent), /Prompt 0/);
    assert.doesNotMatch(JSON.stringify(sent), /Summary|Prompt 1|Prompt 2|Prompt 3/);
    assert.deepEqual(session.entries, [...full, ...later, { kind: 'rewind', to: 5, at: 5 }]);
  });

  it('finds the last entry of a kind in what it holds, and before the cut only when it holds none', () => {
    const full: HistoryEntry[] = [...turn(0, 10, 0), { kind: 'compaction', upTo: 5, note: 'Summary.', at: 1 }, { kind: 'user', content: [{ type: 'text', text: 'Go' }], at: 2 }];
    const held = cutAt(full, 5);
    assert.deepEqual(held.session.findLast('user')?.content, [{ type: 'text', text: 'Go' }]);
    assert.equal(held.reads(), 0);
    assert.equal(held.session.findLast('assistant_text')?.text, 'Done 0.');
    assert.equal(held.reads(), 1);
  });
});
