import assert from 'node:assert/strict';
import { z } from 'zod';
import { ScriptedProvider } from '../../../src/llm/scripted';
import { defineTool } from '../../../src/tools/define-tool';
import { eventsOfType, runTurn } from '../../support/engine';
import { type ProgressClock, type ProgressUpdate, stepText, ToolProgressFeed } from '../../../src/engine/tool-progress';

/** A clock that moves only when the test says so, running due timers in order. */
class ManualClock implements ProgressClock {
  private time = 0;
  private timers: { at: number; run: () => void; id: number }[] = [];
  private ids = 0;

  now(): number {
    return this.time;
  }

  setTimeout(run: () => void, ms: number): unknown {
    const id = ++this.ids;
    this.timers.push({ at: this.time + ms, run, id });
    return id;
  }

  clearTimeout(handle: unknown): void {
    this.timers = this.timers.filter((timer) => timer.id !== handle);
  }

  get pending(): number {
    return this.timers.length;
  }

  advance(ms: number): void {
    const end = this.time + ms;
    for (;;) {
      const next = this.timers.filter((timer) => timer.at <= end).sort((a, b) => a.at - b.at)[0];
      if (!next) break;
      this.time = next.at;
      this.timers = this.timers.filter((timer) => timer !== next);
      next.run();
    }
    this.time = end;
  }
}

function feed(): { clock: ManualClock; sent: ProgressUpdate[]; feed: ToolProgressFeed } {
  const clock = new ManualClock();
  const sent: ProgressUpdate[] = [];
  return { clock, sent, feed: new ToolProgressFeed((update) => sent.push(update), { clock, intervalMs: 250, heartbeatMs: 1_000 }) };
}

describe('a running call\'s progress feed', () => {
  it('sends the first output at once, then the latest state at most once per interval', () => {
    const { clock, sent, feed: f } = feed();
    f.start();
    f.output('line 1\n');
    assert.equal(sent.length, 1);
    assert.deepEqual(sent[0], { elapsedMs: 0, tail: 'line 1', lines: 1 });
    for (let i = 2; i <= 1_000; i++) {
      f.output(`line ${i}\n`);
      clock.advance(1);
    }
    // 1,000 chunks over a second: four updates, not a thousand.
    assert.ok(sent.length <= 5, `${sent.length} updates`);
    clock.advance(250);
    const last = sent.at(-1)!;
    assert.equal(last.lines, 1_000);
    assert.match(last.tail ?? '', /line 1000$/);
    for (let i = 1; i < sent.length; i++) assert.ok(sent[i]!.elapsedMs - sent[i - 1]!.elapsedMs >= 250, 'no two updates within the interval');
  });

  it('sends the last change of a burst after the interval, even when nothing more comes', () => {
    const { clock, sent, feed: f } = feed();
    f.start();
    f.output('a\n');
    f.output('b\n');
    assert.equal(sent.length, 1);
    clock.advance(249);
    assert.equal(sent.length, 1);
    clock.advance(1);
    assert.equal(sent.length, 2);
    assert.equal(sent[1]!.tail, 'a\nb');
  });

  it('beats once a second while the call is quiet, so its elapsed time moves; not before its work starts', () => {
    const { clock, sent, feed: f } = feed();
    clock.advance(5_000);
    assert.equal(sent.length, 0, 'waiting for an approval is not the call running');
    f.start();
    clock.advance(3_500);
    assert.deepEqual(sent.map((update) => update.elapsedMs), [1_000, 2_000, 3_000]);
    assert.ok(sent.every((update) => update.tail === undefined), 'no output, no tail');
  });

  it('sends nothing once closed, and leaves no timer behind', () => {
    const { clock, sent, feed: f } = feed();
    f.start();
    f.output('a\n');
    f.output('b\n');
    f.close();
    f.output('c\n');
    f.step({ message: 'late' });
    clock.advance(10_000);
    assert.equal(sent.length, 1);
    assert.equal(clock.pending, 0);
  });

  it('passes a step on as one short plain line with finite numbers, whatever the tool (an MCP server) sent', () => {
    const { sent, feed: f } = feed();
    f.start();
    f.step({ message: `\x1b[2J\x1b]0;owned\x07Indexing\nfiles ${'x'.repeat(500)}`, done: Number.NaN, total: Number.POSITIVE_INFINITY });
    const step = sent[0]!.step!;
    assert.ok(step.message!.startsWith('Indexing files x'), step.message);
    assert.ok(step.message!.length <= 200);
    assert.doesNotMatch(step.message!, /[\x00-\x1f]/);
    assert.equal(step.done, undefined);
    assert.equal(step.total, undefined);
  });

  it('reads a step in a few words', () => {
    assert.equal(stepText({ message: 'Indexing', done: 3, total: 10 }), 'Indexing (3/10)');
    assert.equal(stepText({ done: 3 }), '(3)');
    assert.equal(stepText({ message: 'Indexing' }), 'Indexing');
    assert.equal(stepText(undefined), '');
  });
});

describe('tool progress in a turn', () => {
  it('reaches the event stream while the call runs, as tool_progress between its start and its end, never after', async () => {
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let late: (() => void) | undefined;
    const streaming = defineTool({
      name: 'stream',
      description: 'Prints, waits to be released, prints again after it returned.',
      kind: 'execute',
      permission: 'none',
      parameters: z.object({}),
      async execute(_args, ctx) {
        ctx.progress?.output('\x1b[32mfirst line\x1b[0m\n');
        ctx.progress?.step({ message: 'halfway', done: 1, total: 2 });
        await released;
        late = () => ctx.progress?.output('after the end\n');
        return { output: 'first line\n' };
      },
    });
    // The answer after the call streams slowly: a progress update still due after the call's end would have time to arrive.
    const provider = new ScriptedProvider([{ toolCalls: [{ name: 'stream', arguments: {} }] }, { text: 'done after a little while', delayMs: 150 }]);
    const run = await runTurn(provider, [streaming], 'go', {
      // The call is released only once its progress was seen: the output came while it ran.
      // Once it ended, the tool (a callback it left behind) reports once more, while the turn goes on.
      onEvent: (event) => {
        if (event.type === 'tool_progress' && event.step !== undefined) release();
        if (event.type === 'tool_call_end') late?.();
      },
    });
    assert.ok(late, 'the tool ran to its end');
    const types = run.events.map((event) => event.type).filter((type) => type.startsWith('tool_'));
    assert.equal(types[0], 'tool_call_start');
    assert.equal(types.at(-1), 'tool_call_end');
    assert.ok(types.includes('tool_progress'));
    const progress = eventsOfType(run.events, 'tool_progress');
    assert.deepEqual(progress[0], { type: 'tool_progress', agent: 'primary', callId: progress[0]!.callId, tool: 'stream', elapsedMs: progress[0]!.elapsedMs, tail: 'first line', lines: 1 });
    assert.deepEqual(progress.at(-1)!.step, { message: 'halfway', done: 1, total: 2 });
    assert.ok(progress.every((event) => !event.tail?.includes('after the end')));
  });
});
