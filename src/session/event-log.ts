/**
 * A session's visible record: the events its front doors showed, in order,
 * beside the history the model reads. A resumed session is shown again by
 * replaying these events through the same translator the live run used.
 *
 * Deltas are merged: a run of text (or thinking) deltas of one agent
 * becomes one delta, recorded when something else happens; a block's
 * `*_complete` event after deltas shows nothing more and is not recorded
 * (one that came without deltas is). Every other event is recorded as it
 * is; each door's translator decides what to show of it.
 */

/**
 * What the log reads of an event: its type and agent, and a delta's or a
 * complete block's text. The engine's AgentEvent (a layer above) is one;
 * the log keeps events as the plain JSON they are.
 */
export interface ShownEvent {
  type: string;
  agent: string;
}

export interface RecordedEvent {
  /** Date.now() when it happened (for a merged delta, when its run began). */
  at: number;
  event: ShownEvent;
}

type Delta = ShownEvent & { type: 'text_delta' | 'thinking_delta'; delta: string };

function isDelta(event: ShownEvent): event is Delta {
  return (event.type === 'text_delta' || event.type === 'thinking_delta') && typeof (event as { delta?: unknown }).delta === 'string';
}

export class EventLog {
  private records: RecordedEvent[];
  /** Reads the records from before this log was made, on first need (a resumed session replays them only when shown). */
  private earlier: (() => readonly RecordedEvent[]) | undefined;
  private readonly listeners = new Set<(record: RecordedEvent) => void>();
  /** The delta run being merged, not yet recorded. */
  private pending: { at: number; event: Delta } | undefined;
  /** `text:agent` / `thinking:agent` whose deltas were recorded since that block's complete event. */
  private readonly streamed = new Set<string>();

  /** `records`: what was recorded before, or how to read it when it is first needed. */
  constructor(records: readonly RecordedEvent[] | (() => readonly RecordedEvent[]) = []) {
    if (typeof records === 'function') {
      this.records = [];
      this.earlier = records;
    } else {
      this.records = [...records];
    }
  }

  /** Takes one event as it was shown. */
  record(event: ShownEvent, at = Date.now()): void {
    if (isDelta(event)) return this.mergeDelta(event, at);
    this.flush();
    if (event.type === 'text_complete' || event.type === 'thinking_complete') {
      const block = `${event.type === 'text_complete' ? 'text' : 'thinking'}:${event.agent}`;
      if (this.streamed.delete(block)) return;
    }
    this.add({ at, event });
  }

  /** Records the delta run under way, if any: call when a prompt ends. */
  flush(): void {
    const pending = this.pending;
    if (!pending) return;
    this.pending = undefined;
    this.add(pending);
  }

  /** Every recorded event, oldest first (a delta run under way not included). */
  list(): readonly RecordedEvent[] {
    return this.loaded();
  }

  get empty(): boolean {
    return this.loaded().length === 0 && this.pending === undefined;
  }

  /** Told of each record as it is made (what a store appends). */
  onRecord(listener: (record: RecordedEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private mergeDelta(event: Delta, at: number): void {
    const pending = this.pending;
    if (pending && pending.event.type === event.type && pending.event.agent === event.agent) {
      // The pending event is this log's own copy: growing it in place costs nothing per delta but the text.
      pending.event.delta += event.delta;
      return;
    }
    this.flush();
    this.streamed.add(`${event.type === 'text_delta' ? 'text' : 'thinking'}:${event.agent}`);
    this.pending = { at, event: { ...event } };
  }

  private loaded(): RecordedEvent[] {
    if (this.earlier) {
      this.records = [...this.earlier(), ...this.records];
      this.earlier = undefined;
    }
    return this.records;
  }

  private add(record: RecordedEvent): void {
    this.records.push(record);
    for (const listener of this.listeners) listener(record);
  }
}
