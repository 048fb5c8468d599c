/**
 * Tokens and cost of a prompt and of a whole session, from the usage events
 * the engine emits (each carries its cost when the model has prices) and,
 * for a stored session, from its LLM call spans.
 */
import type { AgentEvent } from '../engine/events';
import type { SpanRecord } from '../telemetry/span';
import type { Meter } from '../vocabulary/meter';

export type { Meter } from '../vocabulary/meter';

export function emptyMeter(): Meter {
  return { inputTokens: 0, outputTokens: 0, cachedTokens: 0 };
}

/** The meter after one usage event; cost only counts while every call so far had prices. */
export function addUsageEvent(meter: Meter, event: Extract<AgentEvent, { type: 'usage' | 'subagent_usage' }>, first: boolean): Meter {
  const { usage, costUsd: cost } = event;
  const costUsd = cost === undefined ? undefined : first ? cost : meter.costUsd === undefined ? undefined : meter.costUsd + cost;
  return {
    inputTokens: meter.inputTokens + usage.input + usage.cacheRead + usage.cacheWrite,
    outputTokens: meter.outputTokens + usage.output,
    cachedTokens: meter.cachedTokens + usage.cacheRead,
    ...(costUsd !== undefined ? { costUsd } : {}),
  };
}

export function sumMeters(a: Meter, b: Meter): Meter {
  const costUsd = a.costUsd !== undefined && b.costUsd !== undefined ? a.costUsd + b.costUsd : (a.costUsd ?? b.costUsd);
  return {
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
    cachedTokens: a.cachedTokens + b.cachedTokens,
    ...(costUsd !== undefined ? { costUsd } : {}),
  };
}

/** A stored session's tokens and cost, from its LLM call spans. */
export function meterOfSpans(spans: readonly SpanRecord[]): Meter {
  let meter = emptyMeter();
  for (const span of spans) {
    if (span.kind !== 'llm_call') continue;
    const number = (key: string): number => (typeof span.attributes[key] === 'number' ? (span.attributes[key] as number) : 0);
    const cost = span.attributes['crow.cost_usd'];
    meter = sumMeters(meter, {
      inputTokens: number('gen_ai.usage.input_tokens'),
      outputTokens: number('gen_ai.usage.output_tokens'),
      cachedTokens: number('gen_ai.usage.cache_read.input_tokens'),
      ...(typeof cost === 'number' ? { costUsd: cost } : {}),
    });
  }
  return meter;
}

/** The prompt's and the session's meters, kept up to date from a run's events. */
export class CostMeter {
  prompt: Meter = emptyMeter();
  private before: Meter;
  private calls = 0;

  constructor(session: Meter = emptyMeter()) {
    this.before = session;
  }

  get session(): Meter {
    return sumMeters(this.before, this.prompt);
  }

  /** A new prompt starts at zero; the session keeps what came before. */
  startPrompt(): void {
    this.before = this.session;
    this.prompt = emptyMeter();
    this.calls = 0;
  }

  /** Counts a model call's usage, a subagent's included; other events change nothing. Returns whether the meters changed. */
  observe(event: AgentEvent): boolean {
    if (event.type !== 'usage' && event.type !== 'subagent_usage') return false;
    this.prompt = addUsageEvent(this.prompt, event, this.calls === 0);
    this.calls += 1;
    return true;
  }
}
