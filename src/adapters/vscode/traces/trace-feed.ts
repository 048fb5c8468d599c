/**
 * Where a trace panel's spans come from, with no `vscode` in sight (so plain
 * Node tests cover it): the session's stored trace first, read in pieces
 * and sent as they are read (the viewer draws its first screen from the
 * first ones), then each span as it starts and ends. A session running in
 * this extension host is followed through its TraceRecorder (no delay,
 * stored or not); any other session by following its trace.jsonl, which
 * also catches a `crow run` or `crow acp` writing it from another process.
 */
import type { SessionStore } from '../../../session/session-store';
import { t } from '../l10n';
import type { SpanRecord } from '../../../telemetry/span';
import { followTrace } from '../../../telemetry/trace-follow';
import { openTracePieces, type TracePieces } from '../../../telemetry/trace-pieces';
import type { SpanSink } from '../../../telemetry/trace-recorder';
import type { HostMessage } from '../../../../webview/trace-viewer/protocol';

/** A session's recorder as the trace panel needs it; ACPSession.trace (a TraceRecorder) is one. */
export interface LiveTrace {
  addSink(sink: SpanSink): void;
  removeSink(sink: SpanSink): void;
  /** The spans recorded so far in this process (the recent ones at least). */
  readonly spans: readonly SpanRecord[];
}

export interface TraceFeedOptions {
  store: SessionStore;
  sessionId: string;
  /** Set when the session runs in this extension host. */
  live: LiveTrace | undefined;
  send(message: HostMessage): void;
  /** How long span changes gather before one message carries them. Default 50 ms. */
  batchMs?: number;
}

export interface TraceFeed {
  /** The viewer took a piece of the stored trace (its `stored-taken`): the next may go. */
  taken(): void;
  /** Settles once the stored trace has been sent to its end (or the feed was closed). */
  readonly stored: Promise<void>;
  close(): void;
}

/** Pieces of the stored trace sent and not yet taken, at most: enough to keep the viewer busy, few enough to keep memory flat. */
const IN_FLIGHT = 2;
/** Records of the recorder per message, once the stored trace is sent. */
const LIVE_BATCH = 500;

/**
 * Sends every known span, then the changes. The live source is subscribed
 * (or the file followed) before the stored trace is read, so no span falls
 * between; one seen twice is harmless to the viewer.
 */
export async function openTraceFeed(options: TraceFeedOptions): Promise<TraceFeed> {
  const batch = new SpanBatch(options.send, options.batchMs ?? 50);
  const stop = new AbortController();
  const inFlight = new InFlight(stop.signal);
  let unfollow: () => void;
  let afterStored = (): void => undefined;
  if (options.live) {
    const live = options.live;
    const sink: SpanSink = (record) => batch.add(record);
    live.addSink(sink);
    unfollow = () => live.removeSink(sink);
    options.send({ type: 'recording', recording: true });
    // In memory, they may hold what no file has (a session not stored, or not yet): sent with the stored trace, before its end.
    afterStored = () => sendRecorded(live.spans, options.send);
  } else {
    const follower = await followTrace({
      file: options.store.traceFile(options.sessionId),
      onRecord: (record) => batch.add(record),
      isRecording: () => options.store.isRecording(options.sessionId),
      onRecording: (recording) => {
        batch.flush();
        options.send({ type: 'recording', recording });
      },
    });
    unfollow = () => follower.stop();
  }
  const stored = sendStored(options, inFlight, stop.signal).then((error) => {
    if (stop.signal.aborted) return;
    afterStored();
    options.send(error !== undefined ? { type: 'stored-end', error } : { type: 'stored-end' });
  });
  return {
    taken: () => inFlight.taken(),
    stored,
    close() {
      stop.abort();
      unfollow();
      batch.stop();
    },
  };
}

/** Sends the stored trace as `stored` pieces; why it could not be read to its end, if it could not. */
async function sendStored(options: TraceFeedOptions, inFlight: InFlight, signal: AbortSignal): Promise<string | undefined> {
  let trace: TracePieces;
  try {
    trace = await openTracePieces(options.store.traceFile(options.sessionId));
  } catch (err) {
    return t`Could not read the trace: ${(err as Error).message}`;
  }
  try {
    let read = 0;
    await inFlight.room();
    options.send({ type: 'stored', lines: '', read, total: trace.total });
    for await (const piece of trace.pieces(signal)) {
      await inFlight.room();
      if (signal.aborted) return undefined;
      read += piece.length;
      // Pieces end at line ends, so no character is cut in two.
      options.send({ type: 'stored', lines: piece.toString('utf8'), read, total: trace.total });
    }
    return undefined;
  } catch (err) {
    return t`Could not read the trace: ${(err as Error).message}`;
  } finally {
    // A read-only handle that will not close loses nothing.
    await trace.close().catch(() => undefined);
  }
}

function sendRecorded(spans: readonly SpanRecord[], send: (message: HostMessage) => void): void {
  for (let at = 0; at < spans.length; at += LIVE_BATCH) send({ type: 'spans', spans: spans.slice(at, at + LIVE_BATCH).map((span) => structuredClone(span)) });
}

/** Counts the pieces on their way to the viewer; `room` waits while IN_FLIGHT are, or until the feed stops. */
class InFlight {
  private count = 0;
  private wake: (() => void) | undefined;

  constructor(private readonly signal: AbortSignal) {
    signal.addEventListener('abort', () => this.wake?.());
  }

  async room(): Promise<void> {
    while (this.count >= IN_FLIGHT && !this.signal.aborted) await new Promise<void>((resolve) => (this.wake = resolve));
    this.count += 1;
  }

  taken(): void {
    // A late answer to an earlier load of the panel counts for nothing.
    this.count = Math.max(0, this.count - 1);
    this.wake?.();
    this.wake = undefined;
  }
}

/**
 * Gathers span records for a short while so a burst (a run starting ten
 * tool calls) is one message. The sink's records are live objects the
 * recorder keeps changing, so each is copied when it arrives: the start
 * record must not be sent already looking ended, or the other way round.
 */
class SpanBatch {
  private readonly records = new Map<string, SpanRecord>();
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(
    private readonly send: (message: HostMessage) => void,
    private readonly delayMs: number,
  ) {}

  add(record: SpanRecord): void {
    if (this.stopped) return;
    const known = this.records.get(record.spanId);
    if (known === undefined || known.end === undefined) this.records.set(record.spanId, structuredClone(record));
    this.timer ??= setTimeout(() => this.flush(), this.delayMs);
  }

  flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.stopped || this.records.size === 0) return;
    const spans = [...this.records.values()];
    this.records.clear();
    this.send({ type: 'spans', spans });
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
  }
}
