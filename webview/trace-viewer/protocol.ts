/**
 * The messages between the trace viewer and whatever hosts it, one union in
 * each direction. In VS Code they cross `postMessage` between the trace
 * panel (src/adapters/vscode/traces/trace-panel.ts) and the webview; in a
 * browser served by `crow trace --serve`, the HTTP transport turns the
 * `/spans` stream and the `/events` stream into the same host messages and
 * answers export and copy itself. Plain JSON only; this module imports
 * nothing but types.
 *
 * The session's stored trace comes as `stored` pieces while it is read
 * (src/telemetry/trace-pieces.ts), ended by one `stored-end`: the viewer
 * shows the first screen from the first pieces and the rest as it comes.
 * Over postMessage each piece is answered by `stored-taken`, which keeps
 * the pieces on their way few (HTTP has its own flow control).
 */
import type { SpanRecord } from '../../src/telemetry/span';

/** "json": our span records as stored; "otlp-json": an OTLP/JSON ExportTraceServiceRequest. */
export type ExportFormat = 'json' | 'otlp-json';

/** Host → viewer. */
export type HostMessage =
  /**
   * Spans that are new, started or ended. Each replaces the span with the
   * same spanId, except that a span that ended is never replaced by its
   * start record (records may arrive twice and out of order).
   */
  | { type: 'spans'; spans: SpanRecord[] }
  /**
   * Lines of the session's trace.jsonl as stored (whole lines: start and
   * ended records, its last line early), to be parsed and checked by the
   * viewer; records apply as `spans` do. `read` of `total` bytes have
   * arrived with this piece. A load starts with a piece of no lines.
   */
  | { type: 'stored'; lines: string; read: number; total: number }
  /** The stored trace has been read to its end, or (`error`, said to the person) could not be. */
  | { type: 'stored-end'; error?: string }
  /** Whether a live process records the session: its spans that have not ended are running, else unfinished. */
  | { type: 'recording'; recording: boolean }
  /** Select and scroll to a span, by its id or by the tool call it ran; waits for a span that has not arrived yet. */
  | { type: 'reveal'; spanId?: string; callId?: string }
  /** How an export or copy went, shown in the toolbar. */
  | { type: 'notice'; text: string; error?: boolean }
  /** Which session the panel shows; VS Code keeps it with the webview to reopen the panel after a restart. */
  | { type: 'session'; sessionId: string; title: string };

/** Viewer → host. */
export type ViewerMessage =
  /** The viewer is listening (sent once per load; a reloaded webview sends it again and needs every span again). */
  | { type: 'ready' }
  /** A `stored` piece was taken and the page had its turn to draw: the host may send another (it keeps few in flight). */
  | { type: 'stored-taken' }
  /** Save `content` to a file the user picks; `fileName` is the suggested name. */
  | { type: 'export'; format: ExportFormat; fileName: string; content: string; spanCount: number }
  /** Put `content` on the clipboard. */
  | { type: 'copy'; format: ExportFormat; content: string; spanCount: number };

/** What the viewer needs from its host: the host's messages in, the viewer's messages out. */
export interface Transport {
  connect(receive: (message: HostMessage) => void): void;
  send(message: ViewerMessage): void;
  /** A small choice of the person's kept for this viewer (the webview's state in VS Code, localStorage in a browser). */
  remember(key: string, value: string): void;
  recall(key: string): string | undefined;
}

export const FORMAT_LABELS: Record<ExportFormat, string> = { json: 'JSON', 'otlp-json': 'OTLP JSON' };
