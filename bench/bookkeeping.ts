/**
 * Engine bookkeeping: the engine's cost per tool call with the scripted
 * provider and a trivial tool, in microseconds. A diagnostic: it runs the
 * engine in this process, so it carries no goal (the rows through the
 * binary do).
 */
import { BaseAgent } from '../src/engine/base-agent';
import { ScriptedProvider, type ScriptedTurn } from '../src/llm/scripted';
import { InternalSession } from '../src/session/internal-session';
import type { NodeWorkspace } from '../src/tools/node-workspace';
import { echoTool } from '../test/support/engine';
import { median } from './common';

export async function bookkeepingBenchmark(workspace: NodeWorkspace): Promise<void> {
  const ITERATIONS = 40;
  const CALLS_PER_RESPONSE = 10;
  const TURNS = 30;
  const perCall: number[] = [];
  const baseline: number[] = [];
  for (let turn = 0; turn <= TURNS; turn++) {
    const script = (withTools: boolean): ScriptedTurn[] => [
      ...Array.from({ length: ITERATIONS }, (_, i) => ({
        toolCalls: withTools
          ? Array.from({ length: CALLS_PER_RESPONSE }, (_, j) => ({ name: 'echo', arguments: { text: `${i}.${j}` } }))
          : [],
        ...(withTools ? {} : { stopReason: 'end_turn' as const }),
      })),
      { text: 'done' },
    ];
    const run = async (withTools: boolean): Promise<number> => {
      const agent = new BaseAgent({
        name: 'bench',
        provider: new ScriptedProvider(script(withTools)),
        tools: [echoTool],
        systemPrompt: 'bench',
        workspace,
        maxIterations: ITERATIONS + 1,
      });
      const session = new InternalSession('bench');
      session.addUserMessage('go');
      const start = performance.now();
      for await (const _ of agent.executeTurn(session, { signal: new AbortController().signal }));
      return performance.now() - start;
    };
    const withTools = await run(true);
    const withoutTools = await run(false);
    if (turn === 0) continue;
    perCall.push((withTools * 1000) / (ITERATIONS * CALLS_PER_RESPONSE));
    baseline.push(withoutTools * 1000);
  }
  const us = median(perCall);
  console.log(`Engine bookkeeping: ${ITERATIONS} model calls × ${CALLS_PER_RESPONSE} tool calls per turn, median of ${TURNS} turns`);
  console.log(
    `  ${us.toFixed(1)} µs per tool call, all engine work included (diagnostic, in-process); a one-call text-only turn costs ${median(baseline).toFixed(0)} µs`,
  );
}

