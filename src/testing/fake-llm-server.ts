/**
 * A scripted fake of the OpenAI Chat Completions and Anthropic Messages HTTP
 * APIs on loopback, for tests, benchmarks and demos. Each API has a queue of
 * scripted replies; every request consumes the next one of its API and is
 * recorded. Replies can stream slowly, fail with HTTP errors, or misbehave at
 * the connection level (drops, truncation, stalls) at a chosen SSE event.
 */
import * as http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { anthropicWire } from './fake-anthropic-wire';
import { openaiWire } from './fake-openai-wire';
import type { ScriptedStopReason, ScriptedUsage, WireBlock, WireFormat, WireReply } from './fake-wire';

export type { ScriptedStopReason, ScriptedUsage, WireBlock, WireFormat, WireReply } from './fake-wire';

export type FakeApi = 'openai' | 'anthropic';

export type ScriptedBlock =
  /** A string is split into chunks of `chunkSize` characters; an array is sent as exactly these chunks. */
  | { type: 'text'; text: string | string[] }
  /** Chunked like text. `signature` (Anthropic only) defaults to `sig-<n>`. */
  | { type: 'thinking'; text: string | string[]; signature?: string }
  /**
   * A string `arguments` is sent verbatim (it may be invalid JSON); anything
   * else is JSON.stringify'd. The text is split into up to `fragments` pieces
   * (default 3). `id` defaults to `call_<n>` (OpenAI) or `toolu_<n>` (Anthropic).
   */
  | { type: 'tool_call'; id?: string; name: string; arguments: unknown; fragments?: number };

/**
 * A connection-level failure. Event counts are SSE events as sent on the wire
 * (for OpenAI the role chunk is event 1); a non-streaming response is one event.
 */
export type Fault =
  /** Destroy the socket before sending any response bytes. */
  | { kind: 'drop_before_first_byte' }
  /** Send nothing at all, not even headers, until the client goes away or the server closes. */
  | { kind: 'stall_before_first_byte' }
  /** Send headers and N events, then destroy the socket. */
  | { kind: 'drop_after'; events: number }
  /** Send N events, then end the response cleanly, without the rest (stop reason, [DONE], message_stop). */
  | { kind: 'truncate_after'; events: number }
  /** Send N events, then nothing more until the client goes away or the server closes. */
  | { kind: 'stall_after'; events: number };


export interface ScriptedResponse {
  kind?: 'response';
  blocks: ScriptedBlock[];
  usage?: ScriptedUsage;
  /** Defaults to 'tool_use' when any block is a tool call, else 'end_turn'. */
  stopReason?: ScriptedStopReason;
  /** Defaults to the request's `model`. */
  model?: string;
  /** Characters per chunk when a text is a single string; default 4. */
  chunkSize?: number;
  /** Wait before each event; default 0, which writes the whole reply at once. */
  latencyMs?: number;
  fault?: Fault;
}

export interface ScriptedHttpError {
  kind: 'http_error';
  status: number;
  message?: string;
  /** Sent as the `retry-after-ms` header. */
  retryAfterMs?: number;
  /** Sent as the `retry-after` header. */
  retryAfterSeconds?: number;
}

export type ScriptedReply = ScriptedResponse | ScriptedHttpError;

/** Decides a reply from a request's parsed body; undefined when it has none. */
export type Responder = (body: Record<string, unknown>) => ScriptedReply | undefined;

export interface RecordedRequest {
  api: FakeApi;
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  /** The parsed JSON body, or the raw text when it was not a JSON object. */
  body: any;
  /** Date.now() when the body had been read. */
  receivedAt: number;
}

const ROUTES: Record<string, FakeApi> = {
  'POST /v1/chat/completions': 'openai',
  'POST /v1/messages': 'anthropic',
};

const WIRES: Record<FakeApi, WireFormat> = { openai: openaiWire, anthropic: anthropicWire };

const DEFAULT_CHUNK_SIZE = 4;
const DEFAULT_FRAGMENTS = 3;
const DEFAULT_INPUT_TOKENS = 10;

export class FakeLlmServer {
  /** e.g. http://127.0.0.1:40123 */
  readonly url: string;
  /** Every routed request, in arrival order. */
  readonly requests: RecordedRequest[] = [];
  private readonly queues: Record<FakeApi, ScriptedReply[]> = { openai: [], anthropic: [] };
  private readonly responders: Partial<Record<FakeApi, Responder>> = {};
  private readonly sockets = new Set<Socket>();
  /** Counters behind generated ids, shared by both APIs. */
  private serials = { message: 0, toolCall: 0, signature: 0 };
  /** Requests of each API being answered now, and the most there ever were at once. */
  private readonly open: Record<FakeApi, number> = { openai: 0, anthropic: 0 };
  private readonly peak: Record<FakeApi, number> = { openai: 0, anthropic: 0 };
  private closed?: Promise<void>;

  static async start(options: { port?: number } = {}): Promise<FakeLlmServer> {
    const server = http.createServer();
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.port ?? 0, '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    });
    return new FakeLlmServer(server);
  }

  private constructor(private readonly server: http.Server) {
    this.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    server.on('connection', (socket: Socket) => {
      this.sockets.add(socket);
      socket.once('close', () => this.sockets.delete(socket));
    });
    server.on('request', (req: http.IncomingMessage, res: http.ServerResponse) => {
      this.handle(req, res).catch(() => res.destroy());
    });
  }

  /** For the OpenAI SDK's `baseURL`. */
  get openaiBaseUrl(): string {
    return `${this.url}/v1`;
  }

  /** For the Anthropic SDK's `baseURL`. */
  get anthropicBaseUrl(): string {
    return this.url;
  }

  /** Appends replies to the API's queue. Throws on a malformed script. */
  enqueue(api: FakeApi, ...replies: ScriptedReply[]): this {
    replies.forEach(validate);
    this.queues[api].push(...replies);
    return this;
  }

  /**
   * Answers the API's requests the queue has no reply for: `responder` reads
   * the request body and returns the reply (e.g. a scripted solver that
   * decides from the conversation so far). Queued replies still go first.
   */
  respondWith(api: FakeApi, responder: Responder): this {
    this.responders[api] = responder;
    return this;
  }

  /** Replies not yet consumed. */
  pending(api: FakeApi): number {
    return this.queues[api].length;
  }

  requestsFor(api: FakeApi): RecordedRequest[] {
    return this.requests.filter((request) => request.api === api);
  }

  /** The most requests of `api` that were open at the same time (received, their response not yet ended). */
  peakConcurrency(api: FakeApi): number {
    return this.peak[api];
  }

  /** Forgets queued replies, responders and recorded requests, and restarts generated ids. */
  reset(): void {
    delete this.responders.openai;
    delete this.responders.anthropic;
    this.queues.openai.length = 0;
    this.queues.anthropic.length = 0;
    this.requests.length = 0;
    this.serials = { message: 0, toolCall: 0, signature: 0 };
    this.peak.openai = this.open.openai;
    this.peak.anthropic = this.open.anthropic;
  }

  /** Stops listening and destroys every connection, stalled ones included. Idempotent. */
  close(): Promise<void> {
    this.closed ??= new Promise<void>((resolve) => {
      this.server.close(() => resolve());
      for (const socket of this.sockets) socket.destroy();
    });
    return this.closed;
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const method = req.method ?? 'GET';
    const path = new URL(req.url ?? '/', this.url).pathname;
    const api = ROUTES[`${method} ${path}`];
    if (!api) {
      const message = `fake LLM server: no route for ${method} ${path} (serves POST /v1/chat/completions and POST /v1/messages)`;
      return sendJson(res, 404, { error: { type: 'not_found_error', message } });
    }
    const text = await readBody(req);
    const body = parseJsonObject(text);
    this.requests.push({ api, method, path, headers: req.headers, body: body ?? text, receivedAt: Date.now() });
    this.open[api] += 1;
    this.peak[api] = Math.max(this.peak[api], this.open[api]);
    res.once('close', () => (this.open[api] -= 1));
    await this.answer(api, body, res);
  }

  private async answer(api: FakeApi, body: Record<string, unknown> | undefined, res: http.ServerResponse): Promise<void> {
    const wire = WIRES[api];
    if (!body) {
      return sendJson(res, 400, wire.errorBody(400, 'fake LLM server: request body is not a JSON object'));
    }
    const reply = this.queues[api].shift() ?? this.responders[api]?.(body);
    if (reply) validate(reply);
    if (!reply) {
      const message = `fake LLM server: no scripted reply left for ${api} (request #${this.requestsFor(api).length})`;
      return sendJson(res, 400, wire.errorBody(400, message));
    }
    if (reply.kind === 'http_error') {
      const message = reply.message ?? `fake LLM server: scripted HTTP ${reply.status}`;
      return sendJson(res, reply.status, wire.errorBody(reply.status, message), retryHeaders(reply));
    }
    const resolved = this.resolve(reply, wire, body);
    const streaming = body.stream === true;
    const events = streaming ? wire.streamEvents(resolved, body) : [JSON.stringify(wire.responseBody(resolved))];
    await play(res, streaming ? 'text/event-stream' : 'application/json', events, reply.latencyMs ?? 0, reply.fault);
  }

  private resolve(reply: ScriptedResponse, wire: WireFormat, request: Record<string, unknown>): WireReply {
    const chunkSize = reply.chunkSize ?? DEFAULT_CHUNK_SIZE;
    const blocks = reply.blocks.map((block): WireBlock => {
      switch (block.type) {
        case 'text':
          return { type: 'text', chunks: chunksOf(block.text, chunkSize) };
        case 'thinking':
          return {
            type: 'thinking',
            chunks: chunksOf(block.text, chunkSize),
            signature: block.signature ?? `sig-${++this.serials.signature}`,
          };
        case 'tool_call': {
          const text = typeof block.arguments === 'string' ? block.arguments : JSON.stringify(block.arguments);
          return {
            type: 'tool_call',
            id: block.id ?? `${wire.toolCallIdPrefix}${++this.serials.toolCall}`,
            name: block.name,
            fragments: splitInto(text, block.fragments ?? DEFAULT_FRAGMENTS),
          };
        }
      }
    });
    const usage = reply.usage ?? {};
    return {
      id: `${wire.messageIdPrefix}${++this.serials.message}`,
      model: reply.model ?? (typeof request.model === 'string' ? request.model : 'fake-model'),
      blocks,
      stopReason: reply.stopReason ?? (blocks.some((block) => block.type === 'tool_call') ? 'tool_use' : 'end_turn'),
      usage: {
        input: usage.input ?? DEFAULT_INPUT_TOKENS,
        output: usage.output ?? blocks.reduce((sum, block) => sum + piecesOf(block).length, 0),
        cacheRead: usage.cacheRead ?? 0,
        cacheWrite: usage.cacheWrite ?? 0,
        reasoning: usage.reasoning ?? 0,
      },
    };
  }
}

function validate(reply: ScriptedReply): void {
  if (reply.kind === 'http_error') return;
  requireInteger('chunkSize', reply.chunkSize, 1);
  if (reply.fault && 'events' in reply.fault) requireInteger('fault.events', reply.fault.events, 0);
  for (const block of reply.blocks) {
    if (block.type === 'tool_call') requireInteger('fragments', block.fragments, 1);
  }
}

function requireInteger(name: string, value: number | undefined, min: number): void {
  if (value !== undefined && !(Number.isInteger(value) && value >= min)) {
    throw new RangeError(`fake LLM server: ${name} must be an integer >= ${min}, got ${value}`);
  }
}

function piecesOf(block: WireBlock): string[] {
  return block.type === 'tool_call' ? block.fragments : block.chunks;
}

function chunksOf(text: string | string[], size: number): string[] {
  return typeof text === 'string' ? splitEvery(text, size) : text;
}

/** At most `parts` non-empty pieces of `text`, the last possibly shorter. */
function splitInto(text: string, parts: number): string[] {
  return splitEvery(text, Math.ceil(Array.from(text).length / parts));
}

/** Pieces of `size` code points (never splitting a surrogate pair); none for ''. */
function splitEvery(text: string, size: number): string[] {
  const chars = Array.from(text);
  const pieces: string[] = [];
  for (let i = 0; i < chars.length; i += size) pieces.push(chars.slice(i, i + size).join(''));
  return pieces;
}

async function readBody(req: http.IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function parseJsonObject(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

function retryHeaders(reply: ScriptedHttpError): http.OutgoingHttpHeaders {
  const headers: http.OutgoingHttpHeaders = {};
  if (reply.retryAfterMs !== undefined) headers['retry-after-ms'] = String(reply.retryAfterMs);
  if (reply.retryAfterSeconds !== undefined) headers['retry-after'] = String(reply.retryAfterSeconds);
  return headers;
}

function sendJson(res: http.ServerResponse, status: number, body: unknown, headers: http.OutgoingHttpHeaders = {}): void {
  res.writeHead(status, { ...headers, 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

/**
 * Sends `events` as the body of a 200 response, paced by `latencyMs` and cut
 * short by `fault`. Without latency all events go out in a single write:
 * per-event writes would cap throughput well below what stream consumers
 * must be benchmarked at.
 */
async function play(
  res: http.ServerResponse,
  contentType: string,
  events: string[],
  latencyMs: number,
  fault: Fault | undefined,
): Promise<void> {
  if (fault?.kind === 'drop_before_first_byte') {
    res.destroy();
    return;
  }
  if (fault?.kind === 'stall_before_first_byte') return;
  res.writeHead(200, { 'content-type': contentType, 'cache-control': 'no-cache' });
  res.flushHeaders();
  const toSend = fault ? events.slice(0, fault.events) : events;
  const delivered = latencyMs > 0 ? await writePaced(res, toSend, latencyMs) : await write(res, toSend.join(''));
  if (!delivered) return;
  if (fault?.kind === 'drop_after') res.destroy();
  else if (fault?.kind !== 'stall_after') res.end();
}

/** Resolves once `data` is handed to the socket: true, or false if the connection is gone. */
function write(res: http.ServerResponse, data: string): Promise<boolean> {
  return new Promise((resolve) => res.write(data, (error) => resolve(!error)));
}

async function writePaced(res: http.ServerResponse, events: string[], latencyMs: number): Promise<boolean> {
  const gone = new AbortController();
  res.once('close', () => gone.abort());
  for (const event of events) {
    try {
      await sleep(latencyMs, undefined, { signal: gone.signal });
    } catch {
      return false;
    }
    if (!(await write(res, event))) return false;
  }
  return true;
}
