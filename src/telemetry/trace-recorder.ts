import { randomBytes } from 'node:crypto';
import { Redactor } from './redact';
import type { Attributes, Span, SpanFields, SpanKind, SpanRecord, SpanStatus } from './span';

/** Spans kept in memory per recorder; older ones live only in the sinks (the session store). */
const MAX_RETAINED_SPANS = 5_000;

/** Receives every span when it starts and when it ends (e.g. to append it to the session store). */
export type SpanSink = (record: SpanRecord, phase: 'start' | 'end') => void;

/**
 * Records spans in memory and hands them to sinks. One recorder per ACP
 * session; each prompt starts a new trace (a root span of kind `prompt`).
 */
export class TraceRecorder {
  private readonly records: SpanRecord[] = [];
  private readonly sinks: SpanSink[] = [];

  /** Every attribute and status message passes `redactor` first: no secret reaches a span. */
  constructor(
    sinks: SpanSink[] = [],
    private redactor: Redactor = new Redactor(),
  ) {
    this.sinks.push(...sinks);
  }

  /** Redacts with `redactor` from now on: one that knows secrets set since the session opened. */
  useRedactor(redactor: Redactor): void {
    this.redactor = redactor;
  }

  addSink(sink: SpanSink): void {
    this.sinks.push(sink);
  }

  /** Stops handing spans to `sink` (e.g. a trace panel that was closed). */
  removeSink(sink: SpanSink): void {
    const index = this.sinks.indexOf(sink);
    if (index >= 0) this.sinks.splice(index, 1);
  }

  /** Starts a root span in a new trace. */
  startTrace(kind: SpanKind, name: string, fields: SpanFields = {}): Span {
    return this.open(randomBytes(16).toString('hex'), undefined, kind, name, fields);
  }

  /** Starts a span below one this recorder holds, known only by its record (e.g. from `spans`). */
  childOf(parent: Pick<SpanRecord, 'traceId' | 'spanId'>, kind: SpanKind, name: string, fields: SpanFields = {}): Span {
    return this.open(parent.traceId, parent.spanId, kind, name, fields);
  }

  /**
   * The spans recorded so far, in start order: the most recent
   * MAX_RETAINED_SPANS at least. Sinks receive every span; this list is for
   * looking at a live session, and must not grow without end in a long one.
   */
  get spans(): readonly SpanRecord[] {
    return this.records;
  }

  private open(traceId: string, parentSpanId: string | undefined, kind: SpanKind, name: string, fields: SpanFields): Span {
    const record: SpanRecord = {
      traceId,
      spanId: randomBytes(8).toString('hex'),
      ...(parentSpanId !== undefined ? { parentSpanId } : {}),
      kind,
      name,
      ...(fields.agent !== undefined ? { agent: fields.agent } : {}),
      ...(fields.role !== undefined ? { role: fields.role } : {}),
      ...(fields.sessionId !== undefined ? { sessionId: fields.sessionId } : {}),
      start: Date.now(),
      attributes: this.redactor.value({ ...fields.attributes }),
    };
    this.records.push(record);
    // Dropped in batches, so the cost per span stays constant.
    if (this.records.length > 2 * MAX_RETAINED_SPANS) this.records.splice(0, MAX_RETAINED_SPANS);
    this.emit(record, 'start');
    return {
      traceId,
      spanId: record.spanId,
      set: (attributes: Attributes) => Object.assign(record.attributes, this.redactor.value(attributes)),
      child: (childKind, childName, childFields = {}) => this.open(traceId, record.spanId, childKind, childName, childFields),
      end: (status: SpanStatus, message?: string) => {
        if (record.end !== undefined) return;
        record.end = Date.now();
        record.status = status;
        if (message !== undefined) record.statusMessage = this.redactor.text(message);
        this.emit(record, 'end');
      },
    };
  }

  private emit(record: SpanRecord, phase: 'start' | 'end'): void {
    // A copy: a sink may remove itself while it is told.
    for (const sink of [...this.sinks]) {
      try {
        sink(record, phase);
      } catch {
        // A failing sink (a full disk, say) must not break the agent; the span stays in memory.
      }
    }
  }
}
