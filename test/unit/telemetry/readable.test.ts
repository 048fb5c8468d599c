import assert from 'node:assert/strict';
import { count } from '../../../src/telemetry/readable';

/** A small seeded generator: the same spread of numbers on every run. */
function seeded(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

describe('counts as people read them', () => {
  it('groups numbers exactly as en-US formatting does: whole, negative, zero, past the safe range, fractional', () => {
    const random = seeded(30);
    const values = [0, -0, 1, -1, 999, 1_000, -1_000, 3_162, 200_000, 1_234_567, Number.MAX_SAFE_INTEGER, -Number.MAX_SAFE_INTEGER, 2 ** 60, 1e21, 0.5, -2.25, 1234.5678, NaN, Infinity, -Infinity];
    for (let i = 0; i < 5_000; i++) values.push(Math.floor((random() - 0.3) * 10 ** Math.floor(random() * 17)));
    for (const value of values) assert.equal(count(value), value.toLocaleString('en-US'), `count(${value})`);
  });
});
