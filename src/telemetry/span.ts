/**
 * Telemetry at two levels (seed 000): internal spans for every agent turn,
 * LLM call, tool execution, handoff, subagent run and hook, and one
 * external span per user prompt with the totals. The trace view, `crow
 * trace` and OTLP export all read these records.
 */

export type SpanKind = 'prompt' | 'agent_turn' | 'llm_call' | 'tool' | 'handoff' | 'subagent' | 'hook' | 'mcp';
export type SpanStatus = 'ok' | 'error' | 'cancelled';
export type AttributeValue = string | number | boolean | string[];
export type Attributes = Record<string, AttributeValue>;

/** One finished (or, while running, open) span as stored. Plain JSON. */
export interface SpanRecord {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  kind: SpanKind;
  /** e.g. "chat claude-sonnet-4-5", "execute_tool bash", "invoke_agent builder". */
  name: string;
  /** The acting agent, and its role in the composition. */
  agent?: string;
  role?: string;
  /** The internal session the span belongs to, when there is one. */
  sessionId?: string;
  start: number;
  end?: number;
  status?: SpanStatus;
  statusMessage?: string;
  attributes: Attributes;
}

/** A span being recorded. Children are started from it, so the tree needs no ambient context. */
export interface Span {
  readonly traceId: string;
  readonly spanId: string;
  set(attributes: Attributes): void;
  /** Starts a child span. */
  child(kind: SpanKind, name: string, fields?: SpanFields): Span;
  /** Ends the span once; later calls are ignored. */
  end(status: SpanStatus, message?: string): void;
}

export interface SpanFields {
  agent?: string;
  role?: string;
  sessionId?: string;
  attributes?: Attributes;
}
