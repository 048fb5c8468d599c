/**
 * Long histories for the tests of reading a history from its last
 * compaction on: seeded, so a failing mix can be run again.
 */
import type { HistoryEntry } from '../../src/session/history';

/** A seeded generator (mulberry32) of numbers in [0, 1). */
export function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** One prompt's entries: the prompt, a tool call whose output is `size` bytes, an answer. */
export function turn(n: number, size: number, at: number): HistoryEntry[] {
  const id = `call-${n}`;
  return [
    { kind: 'user', content: [{ type: 'text', text: `Prompt ${n}` }], at },
    { kind: 'assistant_text', text: `Looking at ${n}.`, at },
    { kind: 'tool_call', id, name: 'read_file', arguments: JSON.stringify({ path: `f${n}.txt` }), at },
    { kind: 'tool_result', callId: id, name: 'read_file', status: 'success', output: `${n}:${'o'.repeat(size)}`, metadata: { filesModified: [], durationMs: 1, extra: {} }, at },
    { kind: 'assistant_text', text: `Done ${n}.`, at },
  ];
}

/**
 * Appends `steps` prompts through `history`, each followed at random by a
 * compaction, a trim or a rewind (to anywhere, before the last compaction
 * too); tool outputs up to `largest` bytes. `afterStep` runs after each prompt.
 */
export function growHistory(
  next: () => number,
  history: { append(entry: HistoryEntry): void; readonly length: number },
  steps: number,
  largest: number,
  afterStep: () => void = () => undefined,
): void {
  for (let n = 0; n < steps; n++) {
    for (const entry of turn(n, Math.floor(next() * largest), n)) history.append(entry);
    const roll = next();
    const length = history.length;
    if (roll < 0.15) history.append({ kind: 'compaction', upTo: length - Math.floor(next() * 6), note: `Summary up to ${n}.`, at: n });
    else if (roll < 0.25) history.append({ kind: 'trim_tool_outputs', before: Math.max(0, length - 1 - Math.floor(next() * 20)), at: n });
    else if (roll < 0.33) history.append({ kind: 'rewind', to: Math.floor(next() * length), at: n });
    afterStep();
  }
}
