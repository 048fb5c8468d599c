/**
 * The seam between the two requests a page of `crow trace --serve` sends
 * at once, in either order: `/spans?load=ID` (the stored trace, up to the
 * end its pieces cover) and `/events?load=ID` (each record the follower
 * hands on from its offset at that moment). Records the follower handed on
 * after the stored part's end and before the event stream was listening
 * are in neither: once both requests of a load have come, those are read
 * from the file and sent on the event stream. Each load is paired once; a
 * half that is never matched is forgotten after PAIR_MS, and at most
 * MAX_WAITING loads wait at a time (the oldest gives way). A request with
 * no load, or with an ID that is not one, is served as it always was, with
 * no pairing.
 */
import type { SpanRecord } from '../../telemetry/span';

/** How long half of a load waits for its other half. */
const PAIR_MS = 60_000;
const MAX_WAITING = 64;
/** What a page's load ID looks like (the page draws it at random; it is no secret: the token guards the routes). */
const LOAD_ID = /^[A-Za-z0-9_-]{8,64}$/;

export interface EventsHalf {
  /** The follower's offset when the stream started listening. */
  from: number;
  /** Sends records on the stream (ignored once it has closed). */
  send(records: SpanRecord[]): void;
}

interface Waiting {
  spansEnd?: number;
  events?: EventsHalf;
  expires: number;
}

export class TraceSeams {
  private readonly waiting = new Map<string, Waiting>();

  /** `read(from, to)`: the span records of the file's whole lines between two offsets. */
  constructor(private readonly read: (from: number, to: number) => Promise<SpanRecord[]>) {}

  /** The load ID a request names, when it is one. */
  static loadOf(url: URL): string | undefined {
    const load = url.searchParams.get('load');
    return load !== null && LOAD_ID.test(load) ? load : undefined;
  }

  /** `/spans` of `load` covers the file up to `end`. */
  spans(load: string, end: number): Promise<void> {
    return this.meet(load, { spansEnd: end });
  }

  /** `/events` of `load` listens from `events.from` on. */
  events(load: string, events: EventsHalf): Promise<void> {
    return this.meet(load, { events });
  }

  private async meet(load: string, half: Omit<Waiting, 'expires'>): Promise<void> {
    const now = Date.now();
    for (const [id, entry] of this.waiting) if (entry.expires <= now) this.waiting.delete(id);
    const both = { ...this.waiting.get(load), ...half };
    if (both.spansEnd === undefined || both.events === undefined) {
      this.waiting.delete(load);
      this.waiting.set(load, { ...both, expires: now + PAIR_MS });
      if (this.waiting.size > MAX_WAITING) this.waiting.delete(this.waiting.keys().next().value!);
      return;
    }
    this.waiting.delete(load);
    const { spansEnd, events } = both;
    if (spansEnd >= events.from) return;
    try {
      const missed = await this.read(spansEnd, events.from);
      if (missed.length > 0) events.send(missed);
    } catch {
      // The file went away or was cut meanwhile: the page's next load (it reloads on a reconnection) reads it afresh.
    }
  }
}
