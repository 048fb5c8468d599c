import type { SpanRecord } from '../../../telemetry/span';
import type { SpanSink } from '../../../telemetry/trace-recorder';

/** What the trace panel follows of a session running in this extension host. */
export interface LiveRecorder {
  addSink(sink: SpanSink): void;
  removeSink(sink: SpanSink): void;
  readonly spans: readonly SpanRecord[];
}

/**
 * The sessions running a prompt in this extension host, by id: the chat
 * view's and the `@crow` participant's. A light module (no engine imports),
 * so the trace panel can ask before the engine has loaded.
 */
const running = new Map<string, LiveRecorder>();

export const liveSessions = {
  started(id: string, recorder: LiveRecorder): void {
    running.set(id, recorder);
  },
  ended(id: string): void {
    running.delete(id);
  },
  recorder(id: string): LiveRecorder | undefined {
    return running.get(id);
  },
};
