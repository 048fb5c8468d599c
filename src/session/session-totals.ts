/**
 * A session's running totals: the tokens and cost of every model call so
 * far (a subagent's included), overall and per agent, kept in meta.json as
 * the session goes, so a resumed session knows its cost without reading its
 * whole trace. `traceBytes` says how much of trace.jsonl the totals cover:
 * on load only what lies past it (spans of a process that died before its
 * last save) is read. A session stored before totals were kept has none;
 * its trace is read once, on its first load, and the totals kept from then on.
 */
import type { SpanRecord } from '../telemetry/span';
import { emptyMeter, type Meter, sumMeters } from '../vocabulary/meter';

export interface SessionTotals {
  /** Every model call of the session. */
  meter: Meter;
  /** The same, by the agent that made the calls. */
  agents: Record<string, Meter>;
  /** Bytes at the start of trace.jsonl whose ended spans are counted here. */
  traceBytes: number;
}

export function emptyTotals(): SessionTotals {
  return { meter: emptyMeter(), agents: {}, traceBytes: 0 };
}

/** Counts a span record into the totals when it is a model call's ended record (its usage is set by then); other records change nothing. */
export function countEndedSpan(totals: SessionTotals, span: SpanRecord): void {
  if (span.kind !== 'llm_call' || span.end === undefined) return;
  const number = (key: string): number => (typeof span.attributes[key] === 'number' ? (span.attributes[key] as number) : 0);
  const cost = span.attributes['crow.cost_usd'];
  const meter: Meter = {
    inputTokens: number('gen_ai.usage.input_tokens'),
    outputTokens: number('gen_ai.usage.output_tokens'),
    cachedTokens: number('gen_ai.usage.cache_read.input_tokens'),
    ...(typeof cost === 'number' ? { costUsd: cost } : {}),
  };
  totals.meter = sumMeters(totals.meter, meter);
  const agent = span.agent ?? '';
  totals.agents[agent] = sumMeters(totals.agents[agent] ?? emptyMeter(), meter);
}

/** Totals as stored in meta.json, or undefined when the value is not such (a session of an earlier version, a damaged file). */
export function storedTotals(value: unknown): SessionTotals | undefined {
  const totals = value as Partial<SessionTotals> | undefined;
  if (!totals || typeof totals !== 'object' || !isMeter(totals.meter) || typeof totals.traceBytes !== 'number' || totals.traceBytes < 0) return undefined;
  if (!totals.agents || typeof totals.agents !== 'object' || !Object.values(totals.agents).every(isMeter)) return undefined;
  return { meter: { ...totals.meter }, agents: { ...totals.agents }, traceBytes: totals.traceBytes };
}

function isMeter(value: unknown): value is Meter {
  const meter = value as Partial<Meter> | null;
  return (
    typeof meter?.inputTokens === 'number' &&
    typeof meter.outputTokens === 'number' &&
    typeof meter.cachedTokens === 'number' &&
    (meter.costUsd === undefined || typeof meter.costUsd === 'number')
  );
}
