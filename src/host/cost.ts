/**
 * Tokens and cost of a prompt and of a whole session, from the usage events
 * the engine emits (each carries its cost when the model has prices) and,
 * for a stored session, from its LLM call spans.
 */
import type { AgentEvent } from '../engine/events';
import type { SpanRecord } from '../telemetry/span';
import { countEndedSpan, emptyTotals } from '../session/session-totals';
import { emptyMeter, type Meter, sumMeters } from '../vocabulary/meter';

export { emptyMeter, sumMeters, type Meter } from '../vocabulary/meter';

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

/** A stored session's tokens and cost, from its LLM call spans. */
export function meterOfSpans(spans: readonly SpanRecord[]): Meter {
  const totals = emptyTotals();
  for (const span of spans) countEndedSpan(totals, span);
  return totals.meter;
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
