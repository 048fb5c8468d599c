/**
 * Where a trace panel's spans come from, with no `vscode` in sight (so plain
 * Node tests cover it): the session's stored spans first, then each span as
 * it starts and ends. A session running in this extension host is followed
 * through its TraceRecorder (no delay, stored or not); any other session by
 * following its trace.jsonl, which also catches a `crow run` or `crow acp`
 * writing it from another process.
 */
import type { SessionStore } from '../../../session/session-store';
import type { SpanRecord } from '../../../telemetry/span';
import { mergeSpanRecords } from '../../../telemetry/stored-spans';
import { followTrace } from '../../../telemetry/trace-follow';
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
  close(): void;
}

/**
 * Sends every known span, then the changes. The live source is subscribed
 * (or the file followed) before the stored spans are read, so no span falls
 * between; one seen twice is harmless to the viewer.
 */
export async function openTraceFeed(options: TraceFeedOptions): Promise<TraceFeed> {
  const batch = new SpanBatch(options.send, options.batchMs ?? 50);
  if (options.live) return followRecorder(options, options.live, batch);
  const follower = await followTrace({
    file: options.store.traceFile(options.sessionId),
    onRecord: (record) => batch.add(record),
    isRecording: () => options.store.isRecording(options.sessionId),
    onRecording: (recording) => {
      batch.flush();
      options.send({ type: 'recording', recording });
    },
  });
  options.send({ type: 'spans', spans: storedSpans(options.store, options.sessionId) });
  return {
    close() {
      follower.stop();
      batch.stop();
    },
  };
}

function followRecorder(options: TraceFeedOptions, live: LiveTrace, batch: SpanBatch): TraceFeed {
  const sink: SpanSink = (record) => batch.add(record);
  live.addSink(sink);
  const spans = mergeSpanRecords([...storedSpans(options.store, options.sessionId), ...live.spans]);
  options.send({ type: 'recording', recording: true });
  options.send({ type: 'spans', spans });
  return {
    close() {
      live.removeSink(sink);
      batch.stop();
    },
  };
}

/** The stored spans; none for a session not stored (yet), or whose files cannot be read. */
function storedSpans(store: SessionStore, sessionId: string): SpanRecord[] {
  try {
    return store.spans(sessionId);
  } catch {
    return [];
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
