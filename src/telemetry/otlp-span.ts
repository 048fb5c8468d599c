import { type SpanContext, SpanKind, TraceFlags } from '@opentelemetry/api';
import { type InstrumentationScope, hrTimeDuration, millisToHrTime } from '@opentelemetry/core';
import { resourceFromAttributes } from '@opentelemetry/resources';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { OTLP_SERVICE, otlpMapping } from './otlp-json';
import type { SpanRecord } from './span';

/** Who produced the spans: service "crow-agent" at this package's version, one instrumentation scope. */
const RESOURCE = resourceFromAttributes({ 'service.name': OTLP_SERVICE.name, 'service.version': OTLP_SERVICE.version });
const SCOPE: InstrumentationScope = { name: OTLP_SERVICE.name, version: OTLP_SERVICE.version };

/**
 * An ended SpanRecord as an OpenTelemetry span, keeping our trace, span and
 * parent ids so the exported trace matches `crow trace`. Kind, status and
 * attributes come from `otlpMapping`, the mapping the OTLP JSON export of
 * the viewer and of `crow trace --otlp-json` uses too.
 */
export function toReadableSpan(record: SpanRecord): ReadableSpan {
  const mapping = otlpMapping(record);
  const startTime = millisToHrTime(record.start);
  const endTime = millisToHrTime(mapping.end);
  const spanContext = context(record.traceId, record.spanId);
  return {
    name: record.name,
    kind: mapping.client ? SpanKind.CLIENT : SpanKind.INTERNAL,
    spanContext: () => spanContext,
    ...(record.parentSpanId !== undefined ? { parentSpanContext: context(record.traceId, record.parentSpanId) } : {}),
    startTime,
    endTime,
    duration: hrTimeDuration(startTime, endTime),
    ended: true,
    // The API's status codes are the OTLP numbers.
    status: mapping.status,
    attributes: mapping.attributes,
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
