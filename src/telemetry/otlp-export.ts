import { type ExportResult, ExportResultCode } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { BatchSpanProcessor, type SpanExporter } from '@opentelemetry/sdk-trace-base';
import { toReadableSpan } from './otlp-span';
import type { SpanSink } from './trace-recorder';

export interface OtlpSinkOptions {
  /** The OTLP/HTTP traces URL, used as given, e.g. "http://localhost:4318/v1/traces" (see otlpEndpointFrom). */
  endpoint: string;
  /** Sent with every request, e.g. an Authorization header for a hosted collector. */
  headers?: Record<string, string>;
  /** Spans per request; a full batch is sent at once. Default 512. */
  batchSize?: number;
  /** Longest an ended span waits before it is sent. Default 5000 ms. */
  flushIntervalMs?: number;
  /** Time allowed for one export, retries of a busy collector included. Default 10000 ms. */
  timeoutMs?: number;
  /**
   * Told when an export fails, once per outage: later failures stay quiet
   * until an export succeeds again. The failed spans are dropped.
   */
  onError?: (error: Error) => void;
}

export interface OtlpExport {
  /** Add to a TraceRecorder: queues each span when it ends. */
  sink: SpanSink;
  /** Sends every queued span now. Never rejects. */
  flush(): Promise<void>;
  /** Sends what is queued and stops; spans ending later are ignored. Never rejects. */
  shutdown(): Promise<void>;
}

/** Spans waiting beyond this many are dropped (a collector that cannot keep up). */
const MIN_QUEUE_SIZE = 2048;

/**
 * Exports ended spans as OTLP/HTTP JSON in batches, in the background.
 * This module brings in the OpenTelemetry packages (about 700 KB bundled),
 * so a front door imports it lazily, once otlpEndpointFrom gave an endpoint.
 * Throws only here, for an endpoint that is not an http(s) URL (a
 * configuration error to show before the run). After that nothing throws
 * into the agent or retries without end: the exporter retries a busy
 * collector (429, 502-504) within `timeoutMs`, then the batch is dropped and
 * reported. The batch timer does not keep the process alive, so a front door
 * calls `shutdown()` before it exits.
 */
export function otlpSink(options: OtlpSinkOptions): OtlpExport {
  checkEndpoint(options.endpoint);
  const onError = options.onError ?? (() => undefined);
  const report = failureReporter((error) =>
    onError(new Error(`OTLP export to ${options.endpoint} failed: ${error.message}`, { cause: error })),
  );
  const exporter = new OTLPTraceExporter({
    url: options.endpoint,
    ...(options.headers ? { headers: options.headers } : {}),
    ...(options.timeoutMs !== undefined ? { timeoutMillis: options.timeoutMs } : {}),
  });
  const batchSize = options.batchSize ?? 512;
  const processor = new BatchSpanProcessor(reporting(exporter, report), {
    maxExportBatchSize: batchSize,
    maxQueueSize: Math.max(batchSize, MIN_QUEUE_SIZE),
    scheduledDelayMillis: options.flushIntervalMs ?? 5000,
  });
  return {
    sink: (record, phase) => {
      if (phase === 'end') processor.onEnd(toReadableSpan(record));
    },
    flush: () => processor.forceFlush().catch(report.failed),
    shutdown: () => processor.shutdown().catch(report.failed),
  };
}

function checkEndpoint(endpoint: string): void {
  const protocol = URL.canParse(endpoint) ? new URL(endpoint).protocol : undefined;
  if (protocol !== 'http:' && protocol !== 'https:') {
    throw new Error(`The OTLP endpoint "${endpoint}" is not an http(s) URL such as http://localhost:4318/v1/traces.`);
  }
}

interface FailureReporter {
  failed(error: unknown): void;
  succeeded(): void;
}

/** Passes the first failure of each outage to `onError`; an `onError` that throws cannot stall the exports. */
function failureReporter(onError: (error: Error) => void): FailureReporter {
  let failing = false;
  return {
    failed: (error) => {
      if (failing) return;
      failing = true;
      try {
        onError(error instanceof Error ? error : new Error(String(error)));
      } catch {
        // Reporting is best effort; the spans are dropped either way.
      }
    },
    succeeded: () => {
      failing = false;
    },
  };
}

/** `exporter`, telling `report` how each export went. */
function reporting(exporter: OTLPTraceExporter, report: FailureReporter): SpanExporter {
  return {
    export: (spans, done) =>
      exporter.export(spans, (result: ExportResult) => {
        if (result.code === ExportResultCode.SUCCESS) report.succeeded();
        else report.failed(result.error ?? new Error('no reason given'));
        done(result);
      }),
    shutdown: () => exporter.shutdown(),
    forceFlush: () => exporter.forceFlush(),
  };
}
