import type { SpanRecord } from './span';

/**
 * The spans of a session's trace.jsonl, one per spanId. The store writes a
 * span twice: when it starts (a record without `end`, so a live viewer shows
 * it running) and when it ends (the full record). Files written before that
 * hold only ended records, and read the same. An ended record wins over a
 * start record whatever the order; a span with only a start record never
 * ended (still running, or its process was killed) and keeps no `end`.
 * Spans come in the order they first appear in the file.
 */
export function mergeSpanRecords(records: readonly SpanRecord[]): SpanRecord[] {
  const byId = new Map<string, SpanRecord>();
  for (const record of records) {
    if (isSpanRecord(record) && supersedes(record, byId.get(record.spanId))) byId.set(record.spanId, record);
  }
  return [...byId.values()];
}

/** Whether `later` should replace `known` in a view of the spans: a span never goes back from ended to running. */
export function supersedes(later: SpanRecord, known: SpanRecord | undefined): boolean {
  return known === undefined || known.end === undefined || later.end !== undefined;
}

/** Guards against lines that parse as JSON but are not spans (a hand-edited or foreign file). */
export function isSpanRecord(value: unknown): value is SpanRecord {
  if (typeof value !== 'object' || value === null) return false;
  const record = value as Partial<SpanRecord>;
  return (
    typeof record.spanId === 'string' &&
    typeof record.traceId === 'string' &&
    typeof record.name === 'string' &&
    typeof record.start === 'number' &&
    typeof record.attributes === 'object' &&
    record.attributes !== null
  );
}
