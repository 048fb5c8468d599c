/**
 * Span records as OTLP/JSON: the `ExportTraceServiceRequest` of
 * opentelemetry-proto in its JSON encoding (hex trace and span ids, 64-bit
 * integers as decimal strings, enums as numbers, lowerCamelCase fields), the
 * body an OTLP/HTTP collector accepts and most trace tools import.
 *
 * Pure on purpose: no Node and no OpenTelemetry SDK, so the trace viewer
 * bundles it for "Export OTLP JSON" in the browser, `crow trace --otlp-json`
 * prints it, and otlp-span.ts builds the SDK's spans for the live OTLP export
 * from the same `otlpMapping`. All three agree on what a span means.
 */
import { version } from '../../package.json';
import type { AttributeValue, Attributes, SpanRecord } from './span';

/** Who produced the spans: the resource's service and the one instrumentation scope. */
export const OTLP_SERVICE = { name: 'crow-agent', version } as const;

/** OTLP status codes (the same numbers in the OpenTelemetry API). */
export const OTLP_STATUS = { UNSET: 0, OK: 1, ERROR: 2 } as const;
export type OtlpStatusCode = (typeof OTLP_STATUS)[keyof typeof OTLP_STATUS];

/** OTLP span kinds as sent on the wire (the API's enum plus one). */
export const OTLP_KIND = { INTERNAL: 1, CLIENT: 3 } as const;

export type OtlpAnyValue =
  | { stringValue: string }
  | { intValue: string }
  | { doubleValue: number }
  | { boolValue: boolean }
  | { arrayValue: { values: OtlpAnyValue[] } };

export interface OtlpKeyValue {
  key: string;
  value: OtlpAnyValue;
}

export interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  startTimeUnixNano: string;
  endTimeUnixNano: string;
  attributes: OtlpKeyValue[];
  /** Our spans record no events; the field is there for readers that expect it. */
  events: never[];
  status: { code: OtlpStatusCode; message?: string };
}

export interface OtlpTraceRequest {
  resourceSpans: {
    resource: { attributes: OtlpKeyValue[] };
    scopeSpans: { scope: { name: string; version: string }; spans: OtlpSpan[] }[];
  }[];
}

/** What a span record means in OpenTelemetry terms, before any encoding. */
export interface SpanMapping {
  /** An LLM call is a CLIENT span (a request to a model server); everything else is INTERNAL. */
  client: boolean;
  status: { code: OtlpStatusCode; message?: string };
  attributes: Attributes;
  /** Epoch milliseconds. */
  end: number;
}

/**
 * The record's structured fields become attributes (crow.span.kind,
 * gen_ai.agent.name, crow.agent.role, gen_ai.conversation.id for the internal
 * session); an attribute the record already carries wins. A cancelled span
 * has status UNSET (it is not an error) and `crow.cancelled: true`. A span
 * that never ended (still running, or its process was killed) ends at `now`
 * when given, else where it started, and carries `crow.unfinished: true`.
 */
export function otlpMapping(record: SpanRecord, now?: number): SpanMapping {
  const derived: Attributes = { 'crow.span.kind': record.kind };
  if (record.agent !== undefined) derived['gen_ai.agent.name'] = record.agent;
  if (record.role !== undefined) derived['crow.agent.role'] = record.role;
  if (record.sessionId !== undefined) derived['gen_ai.conversation.id'] = record.sessionId;
  if (record.status === 'cancelled') {
    derived['crow.cancelled'] = true;
    if (record.statusMessage !== undefined) derived['crow.cancelled.reason'] = record.statusMessage;
  }
  if (record.end === undefined) derived['crow.unfinished'] = true;
  return {
    client: record.kind === 'llm_call',
    status: statusOf(record),
    attributes: { ...derived, ...record.attributes },
    end: record.end ?? Math.max(now ?? record.start, record.start),
  };
}

function statusOf(record: SpanRecord): SpanMapping['status'] {
  switch (record.status) {
    case 'ok':
      return { code: OTLP_STATUS.OK };
    case 'error':
      return record.statusMessage !== undefined ? { code: OTLP_STATUS.ERROR, message: record.statusMessage } : { code: OTLP_STATUS.ERROR };
    case 'cancelled':
    case undefined:
      return { code: OTLP_STATUS.UNSET };
  }
}

/** Every record under one resource and one scope, in the order given. */
export function toOtlpJson(records: readonly SpanRecord[], options: { now?: number } = {}): OtlpTraceRequest {
  return {
    resourceSpans: [
      {
        resource: { attributes: keyValues({ 'service.name': OTLP_SERVICE.name, 'service.version': OTLP_SERVICE.version }) },
        scopeSpans: [{ scope: { name: OTLP_SERVICE.name, version: OTLP_SERVICE.version }, spans: records.map((r) => toOtlpSpan(r, options.now)) }],
      },
    ],
  };
}

export function toOtlpSpan(record: SpanRecord, now?: number): OtlpSpan {
  const mapping = otlpMapping(record, now);
  return {
    traceId: record.traceId,
    spanId: record.spanId,
    ...(record.parentSpanId !== undefined ? { parentSpanId: record.parentSpanId } : {}),
    name: record.name,
    kind: mapping.client ? OTLP_KIND.CLIENT : OTLP_KIND.INTERNAL,
    startTimeUnixNano: unixNano(record.start),
    endTimeUnixNano: unixNano(mapping.end),
    attributes: keyValues(mapping.attributes),
    events: [],
    status: mapping.status,
  };
}

/**
 * Epoch milliseconds as a decimal string of nanoseconds, exact for
 * fractional milliseconds too (a float multiplication would not be).
 */
export function unixNano(ms: number): string {
  const whole = Math.floor(ms);
  const fraction = Math.round((ms - whole) * 1_000_000);
  return (BigInt(whole) * 1_000_000n + BigInt(fraction)).toString();
}

export function keyValues(attributes: Attributes): OtlpKeyValue[] {
  return Object.entries(attributes).map(([key, value]) => ({ key, value: anyValue(value) }));
}

function anyValue(value: AttributeValue): OtlpAnyValue {
  if (typeof value === 'string') return { stringValue: value };
  if (typeof value === 'boolean') return { boolValue: value };
  if (Array.isArray(value)) return { arrayValue: { values: value.map(anyValue) } };
  if (Number.isSafeInteger(value)) return { intValue: String(value) };
  // JSON has no NaN or Infinity; a collector would reject the whole request.
  return Number.isFinite(value) ? { doubleValue: value } : { stringValue: String(value) };
}
