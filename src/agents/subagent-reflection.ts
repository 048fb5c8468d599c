import type { BaseAgentDefinition } from '../config/agent-definitions';
import type { PromptRegistry } from '../config/prompts';
import type { AgentEvent } from '../engine/events';
import { toollessCall } from '../engine/model-call';
import type { Provider } from '../llm/types';
import type { Span } from '../telemetry/span';
import type { RunResult } from './run-result';

export interface Attempt {
  result: RunResult;
  text: string;
}

/** What reflection recorded: every attempt's evaluation and which attempt was returned. */
export interface ReflectionRecord {
  attempts: { verdict: 'pass' | 'fail' | 'unknown'; score: number; critique: string }[];
  chosen: number;
}

interface Evaluation {
  verdict: 'pass' | 'fail' | 'unknown';
  score: number;
  critique: string;
}

/**
 * Runs a subagent's attempt and, when its definition enables reflection,
 * evaluates the result (one tool-less call against reflection_criteria),
 * retries with the critique up to max_retries times, and returns the best
 * attempt with the record. Without reflection it is just the one attempt.
 */
/** What reflection needs: the task, prompts, the model that judges, the span it hangs below, where its usage goes. */
export interface ReflectionContext {
  task: string;
  prompts: PromptRegistry;
  provider: Provider;
  signal: AbortSignal;
  span: Span | undefined;
  report: (usage: Extract<AgentEvent, { type: 'usage' }>) => void;
}

export async function reflect(
  base: BaseAgentDefinition,
  context: ReflectionContext,
  prompt: string,
  attempt: (message: string) => Promise<Attempt>,
): Promise<Attempt & { reflection?: ReflectionRecord }> {
  const first = await attempt(prompt);
  if (!base.reflection) return first;
  const maxAttempts = base.reflection.maxRetries + 1;
  const tried: { attempt: Attempt; evaluation: Evaluation }[] = [];
  let current = first;
  for (let n = 1; ; n++) {
    if (current.result.status === 'cancelled') break;
    const evaluation = await evaluate(base, context, current, n);
    tried.push({ attempt: current, evaluation });
    if (evaluation.verdict !== 'fail' || n >= maxAttempts || context.signal.aborted) break;
    const retry = context.prompts
      .render('reflection-retry', { attempt: n, max_attempts: maxAttempts, critique: evaluation.critique })
      .trim();
    current = await attempt(retry);
  }
  if (tried.length === 0) return current;
  const best = tried.reduce((a, b) => (b.evaluation.score > a.evaluation.score ? b : a));
  return {
    ...best.attempt,
    reflection: { attempts: tried.map((t) => t.evaluation), chosen: tried.indexOf(best) + 1 },
  };
}

async function evaluate(base: BaseAgentDefinition, context: ReflectionContext, current: Attempt, attempt: number): Promise<Evaluation> {
  const { prompts, provider, signal, task } = context;
  const system = prompts.render('reflection', { criteria: base.reflection?.criteria ?? '' });
  const request = prompts.render('reflection-request', { task, result: current.text || current.result.message, attempt });
  const emit = (event: AgentEvent): void => {
    if (event.type === 'usage') context.report(event);
  };
  const { text } = await toollessCall(
    { agent: `${base.name} reflection`, provider, span: context.span, emit },
    { system, messages: [{ role: 'user', content: [{ type: 'text', text: request }] }] },
    signal,
  );
  return parseEvaluation(text);
}

/** The evaluator's JSON; anything unreadable counts as unknown, which ends the retries rather than looping on noise. */
export function parseEvaluation(text: string): Evaluation {
  const json = /\{[\s\S]*\}/.exec(text)?.[0];
  try {
    const value = JSON.parse(json ?? '') as { verdict?: unknown; score?: unknown; critique?: unknown };
    const verdict = value.verdict === 'pass' || value.verdict === 'fail' ? value.verdict : 'unknown';
    const score = typeof value.score === 'number' && Number.isFinite(value.score) ? value.score : verdict === 'pass' ? 10 : 0;
    return { verdict, score, critique: typeof value.critique === 'string' ? value.critique : '' };
  } catch {
    return { verdict: 'unknown', score: 0, critique: '' };
  }
}
