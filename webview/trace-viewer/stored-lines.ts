/**
 * Lines of a stored trace.jsonl as the host hands them over (protocol.ts
 * `stored`): each is parsed and checked here, since the file may have been
 * edited by hand or written by something else. Blank lines are nothing;
 * any other line that is not a span record is counted, for the viewer to
 * say how many it skipped.
 */
import type { SpanRecord } from '../../src/telemetry/span';
import { isSpanRecord } from '../../src/telemetry/stored-spans';

export function parseStoredLines(lines: string): { spans: SpanRecord[]; skipped: number } {
  const spans: SpanRecord[] = [];
  let skipped = 0;
  for (let from = 0; from < lines.length; ) {
    const newline = lines.indexOf('\n', from);
    const to = newline < 0 ? lines.length : newline;
    const line = lines.slice(from, to);
    from = to + 1;
    if (line.trim() === '') continue;
    try {
      const value: unknown = JSON.parse(line);
      if (isSpanRecord(value)) spans.push(value);
      else skipped += 1;
    } catch {
      skipped += 1;
    }
  }
  return { spans, skipped };
}
