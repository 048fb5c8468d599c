/**
 * `fetch` with every response body cut off at a limit, for the servers Crow
 * reads over HTTP (model servers, MCP servers): an error answer (status 400
 * and up) at `errorBytes` in all, an event stream (text/event-stream) at
 * `eventBytes` per event (counted from one blank line to the next, which
 * bounds a line too), any other body at `bodyBytes` in all. A limit left
 * out leaves those bodies to their reader (see sse.ts). Going over errors
 * the body with a BodyLimitError.
 */

export interface BodyLimits {
  errorBytes: number;
  bodyBytes?: number;
  eventBytes?: number;
}

/**
 * A model server's answers: an error answer of at most 1 MiB (it is a
 * sentence in JSON; Crow shows its start). Streams are read, and capped per
 * line and event, by sse.ts, whatever content type they come with: a total
 * would cut a long answer short (128k tokens of chunks is about 40 MB).
 */
export const MODEL_SERVER_LIMITS: BodyLimits = { errorBytes: 1024 * 1024 };

export class BodyLimitError extends Error {
  override name = 'BodyLimitError';
}

export type Fetch = (url: string | URL | Request, init?: RequestInit) => Promise<Response>;

const LF = 0x0a;
const CR = 0x0d;

export function boundedFetch(fetch: Fetch, limits: BodyLimits, onLimit: (error: BodyLimitError) => void = () => undefined): Fetch {
  return async (url: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const response = await fetch(url, init);
    if (!response.body) return response;
    const counter = counterFor(response, limits);
    if (!counter) return response;
    const body = response.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          const error = counter.add(chunk);
          if (!error) return controller.enqueue(chunk);
          onLimit(error);
          controller.error(error);
        },
      }),
    );
    const bounded = new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
    // What the SDKs log and report a failure with.
    return Object.defineProperty(bounded, 'url', { value: response.url });
  };
}

function counterFor(response: Response, limits: BodyLimits): TotalBytes | EventBytes | undefined {
  if (response.status >= 400) return new TotalBytes(limits.errorBytes, 'an error answer');
  if (/^\s*text\/event-stream\b/i.test(response.headers.get('content-type') ?? '')) {
    return limits.eventBytes === undefined ? undefined : new EventBytes(limits.eventBytes);
  }
  return limits.bodyBytes === undefined ? undefined : new TotalBytes(limits.bodyBytes, 'a response');
}

export function sizeText(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${Number((bytes / (1024 * 1024)).toFixed(1))} MiB` : `${bytes} bytes`;
}

function overLimit(what: string, limit: number): BodyLimitError {
  return new BodyLimitError(`it sent ${what} of more than ${sizeText(limit)} (the most Crow reads at once)`);
}

/** Counts a whole body. */
class TotalBytes {
  private bytes = 0;

  constructor(
    private readonly limit: number,
    private readonly what: string,
  ) {}

  add(chunk: Uint8Array): BodyLimitError | undefined {
    this.bytes += chunk.length;
    return this.bytes > this.limit ? overLimit(this.what, this.limit) : undefined;
  }
}

/** Counts the bytes since the last blank line of an event stream (line ends CRLF, LF or CR, as the SSE standard reads them). */
class EventBytes {
  private bytes = 0;
  /** Bytes of the current line. */
  private line = 0;
  /** The last byte was a CR: an LF now ends no second line. */
  private afterCR = false;

  constructor(private readonly limit: number) {}

  add(chunk: Uint8Array): BodyLimitError | undefined {
    for (const byte of chunk) {
      if (byte === LF && this.afterCR) {
        this.afterCR = false;
        continue;
      }
      this.afterCR = byte === CR;
      if (byte === LF || byte === CR) {
        // A blank line ends the event: what the parser holds starts again from nothing.
        if (this.line === 0) this.bytes = 0;
        this.line = 0;
        continue;
      }
      this.line++;
      if (++this.bytes > this.limit) return overLimit('an event', this.limit);
    }
    return undefined;
  }
}
