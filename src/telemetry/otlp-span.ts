import {
  type Attributes as OtelAttributes,
  type SpanContext,
  SpanKind,
  type SpanStatus as OtelSpanStatus,
  SpanStatusCode,
  TraceFlags,
} from '@opentelemetry/api';
import { type InstrumentationScope, hrTimeDuration, millisToHrTime } from '@opentelemetry/core';
import { resourceFromAttributes } from '@opentelemetry/resources';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { version } from '../../package.json';
import type { Attributes, SpanRecord } from './span';

/** Who produced the spans: service "crow-agent" at this package's version, one instrumentation scope. */
const RESOURCE = resourceFromAttributes({ 'service.name': 'crow-agent', 'service.version': version });
const SCOPE: InstrumentationScope = { name: 'crow-agent', version };

/**
 * An ended SpanRecord as an OpenTelemetry span, keeping our trace, span and
 * parent ids so the exported trace matches `crow trace`. The record's
 * structured fields become attributes (gen_ai.agent.name, crow.agent.role,
 * gen_ai.conversation.id for the internal session, crow.span.kind); an
 * attribute the record already carries wins. A cancelled span has status
 * UNSET (it is not an error) and `crow.cancelled: true`.
 */
export function toReadableSpan(record: SpanRecord): ReadableSpan {
  const startTime = millisToHrTime(record.start);
  const endTime = millisToHrTime(record.end ?? record.start);
  const spanContext = context(record.traceId, record.spanId);
  return {
    name: record.name,
    kind: record.kind === 'llm_call' ? SpanKind.CLIENT : SpanKind.INTERNAL,
    spanContext: () => spanContext,
    ...(record.parentSpanId !== undefined ? { parentSpanContext: context(record.traceId, record.parentSpanId) } : {}),
    startTime,
    endTime,
    duration: hrTimeDuration(startTime, endTime),
    ended: true,
    status: status(record),
    attributes: attributes(record),
    links: [],
    events: [],
    resource: RESOURCE,
    instrumentationScope: SCOPE,
    droppedAttributesCount: 0,
    droppedEventsCount: 0,
    droppedLinksCount: 0,
  };
}

function context(traceId: string, spanId: string): SpanContext {
  return { traceId, spanId, traceFlags: TraceFlags.SAMPLED, isRemote: false };
}

function status(record: SpanRecord): OtelSpanStatus {
  switch (record.status) {
    case 'ok':
      return { code: SpanStatusCode.OK };
    case 'error':
      return record.statusMessage !== undefined
        ? { code: SpanStatusCode.ERROR, message: record.statusMessage }
        : { code: SpanStatusCode.ERROR };
    case 'cancelled':
    case undefined:
      return { code: SpanStatusCode.UNSET };
  }
}

function attributes(record: SpanRecord): OtelAttributes {
  const derived: Attributes = { 'crow.span.kind': record.kind };
  if (record.agent !== undefined) derived['gen_ai.agent.name'] = record.agent;
  if (record.role !== undefined) derived['crow.agent.role'] = record.role;
  if (record.sessionId !== undefined) derived['gen_ai.conversation.id'] = record.sessionId;
  if (record.status === 'cancelled') {
    derived['crow.cancelled'] = true;
    if (record.statusMessage !== undefined) derived['crow.cancelled.reason'] = record.statusMessage;
  }
  return { ...derived, ...record.attributes };
}
