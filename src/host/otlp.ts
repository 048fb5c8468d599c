import type { TraceRecorder } from '../telemetry/trace-recorder';

export interface SpanExport {
  /** Sends what is queued and stops. Never rejects. */
  shutdown(): Promise<void>;
}

/**
 * Exports a session's spans over OTLP/HTTP to `endpoint`. The OpenTelemetry
 * packages load only here, once an endpoint is configured: a front door that
 * exports nothing never pays for them.
 */
export function exportSpans(trace: TraceRecorder, endpoint: string, onError: (error: Error) => void): SpanExport {
  const { otlpSink } = require('../telemetry/otlp-export') as typeof import('../telemetry/otlp-export');
  const exported = otlpSink({ endpoint, onError });
  trace.addSink(exported.sink);
  return exported;
}
