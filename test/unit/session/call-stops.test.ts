import assert from 'node:assert/strict';
import { CallStops } from '../../../src/session/call-stops';

describe('stopping one running tool call', () => {
  it('aborts that call alone, and says it was the person, not the turn', () => {
    const calls = new CallStops();
    const turn = new AbortController();
    const a = calls.start('a', turn.signal);
    const b = calls.start('b', turn.signal);
    assert.equal(calls.stop('a'), true);
    assert.equal(a.signal.aborted, true);
    assert.equal(a.stopped(), true);
    assert.equal(b.signal.aborted, false, 'the other call runs on');
    assert.equal(calls.stop('a'), false, 'a call is stopped once');
  });

  it('aborts every call with its turn, which is a cancel and not a stop', () => {
    const calls = new CallStops();
    const turn = new AbortController();
    const a = calls.start('a', turn.signal);
    turn.abort();
    assert.equal(a.signal.aborted, true);
    assert.equal(a.stopped(), false);
  });

  it('forgets a call once it ended, so a late stop finds nothing', () => {
    const calls = new CallStops();
    const a = calls.start('a', new AbortController().signal);
    a.release();
    assert.equal(calls.has('a'), false);
    assert.equal(calls.stop('a'), false);
  });
});
