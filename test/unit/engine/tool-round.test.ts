import assert from 'node:assert/strict';
import { z } from 'zod';
import { ScriptedProvider } from '../../../src/llm/scripted';
import { defineTool } from '../../../src/tools/define-tool';
import { eventsOfType, runTurn } from '../../support/engine';

/** Tools that log when they start and end, and wait until released, so overlap is seen rather than timed. */
function gatedTools() {
  const log: string[] = [];
  let inFlight = 0;
  let peak = 0;
  const waiting: (() => void)[] = [];
  const release = (): void => {
    for (const go of waiting.splice(0)) go();
  };
  const body = async (label: string): Promise<{ output: string }> => {
    inFlight += 1;
    peak = Math.max(peak, inFlight);
    log.push(`start ${label}`);
    // Let every call that can start do so, then release them together.
    await new Promise<void>((go) => {
      waiting.push(go);
      setImmediate(release);
    });
    inFlight -= 1;
    log.push(`end ${label}`);
    return { output: label };
  };
  const look = defineTool({
    name: 'look',
    description: 'Reads something.',
    kind: 'read',
    permission: 'none',
    readOnly: true,
    parameters: z.object({ at: z.string() }),
    execute: ({ at }) => body(`look ${at}`),
  });
  const change = defineTool({
    name: 'change',
    description: 'Changes something.',
    kind: 'edit',
    permission: 'none',
    parameters: z.object({ at: z.string() }),
    execute: ({ at }) => body(`change ${at}`),
  });
  return { tools: [look, change], log, peak: () => peak };
}

describe('a response with several tool calls', () => {
  it('runs independent read-only calls at the same time, and a change only after them, alone', async () => {
    const { tools, log, peak } = gatedTools();
    const calls = [
      { name: 'look', arguments: { at: 'a' } },
      { name: 'look', arguments: { at: 'b' } },
      { name: 'look', arguments: { at: 'c' } },
      { name: 'change', arguments: { at: 'x' } },
      { name: 'look', arguments: { at: 'x' } },
    ];
    const provider = new ScriptedProvider([{ toolCalls: calls }, { text: 'done' }]);
    const run = await runTurn(provider, tools, 'go');
    assert.equal(peak(), 3, 'the three reads overlapped');
    assert.deepEqual(log.slice(3), ['end look a', 'end look b', 'end look c', 'start change x', 'end change x', 'start look x', 'end look x']);
    assert.deepEqual(
      eventsOfType(run.events, 'tool_call_end').map((event) => event.result.output),
      ['look a', 'look b', 'look c', 'change x', 'look x'],
      'results come back in the order the model asked',
    );
  });
});
