import type { TurnResult } from '../engine/turn';
import type { AgentMessage, FlowRun } from './flow-run';
import type { RunResult } from './run-result';
import { clip } from '../vocabulary/text';
import { repeatTurns } from './turn-loop';

/**
 * Level 2: after each turn a generator (one tool-less call to the primary's
 * model) writes the next instruction — acceptance criteria, what is unmet,
 * the next step — from the task and the progress so far.
 */
export function runGenerated(
  run: FlowRun,
  first: AgentMessage,
  maxTurns: number,
  generatorPrompt?: string,
): Promise<RunResult> {
  return repeatTurns(run, first, maxTurns, async (last, turn) => {
    const system = generatorPrompt ?? run.render('generator');
    const request = run.render('generator-request', { progress: progressOf(last), turn, max_turns: maxTurns });
    return generate(run, system, request);
  });
}

/** What the generator sees of a turn: the tool calls made and the agent's last words. */
function progressOf(turn: TurnResult): string {
  const calls = turn.toolCalls.map((call) => {
    const outcome = call.result.status === 'success' ? 'ok' : `${call.result.status}: ${clip(call.result.error ?? '', 120)}`;
    return `- ${call.name} ${clip(JSON.stringify(call.arguments), 120)} → ${outcome}`;
  });
  const said = turn.text.trim() ? `\nThe agent said: ${clip(turn.text.trim(), 1500)}` : '';
  return `${calls.length > 0 ? `Tool calls this turn:\n${calls.join('\n')}` : 'No tool calls this turn.'}${said}`;
}

/** An empty or cancelled generation falls back to the static follow-up, so the loop never stalls. */
async function generate(run: FlowRun, system: string, prompt: string): Promise<string> {
  const text = await run.generate('follow-up generator', run.agents.primary.provider, system, prompt);
  return text || run.render('follow-up');
}
