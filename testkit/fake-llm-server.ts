/**
 * A scripted fake of the OpenAI Chat Completions, OpenAI Responses and Anthropic Messages HTTP
 * APIs on loopback, for tests, benchmarks and demos. Each API has a queue of
 * scripted replies; every request consumes the next one of its API and is
 * recorded. Replies can stream slowly, fail with HTTP errors, or misbehave at
 * the connection level (drops, truncation, stalls) at a chosen SSE event.
 *
 * It is strict: a request the real API would refuse gets the real API's
 * refusal (status, error type, message; see strict-wire.ts), and the output
 * stops at the cap the request sets. The Chat Completions route can behave
 * as OpenAI or as a local server (Ollama, llama.cpp, vLLM, LM Studio).
 */
import * as http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { newSerials, resolveReply, validateReply } from './fake-reply';
import { type ListedModel, modelList } from './model-list';
import { parseObject, readAll, sendJson } from './http-json';
import type { Fault, ScriptedHttpError, ScriptedReply, ScriptedResponse } from './fake-script';
import { type FakeApi, StrictWire, type StrictWireOptions } from './strict-wire';
import { AZURE_DEPLOYMENT_PATH } from './azure-rules';
import type { RecordedRefusal } from './wire-rules';

export type { ScriptedStopReason, ScriptedUsage, WireBlock, WireFormat, WireReply } from './fake-wire';
export type { ChatServerName } from './chat-servers';
export type { RecordedRefusal, Refusal } from './wire-rules';
export type { ListedModel } from './model-list';

export type { FakeApi, StrictWireOptions } from './strict-wire';
export type { Fault, ScriptedBlock, ScriptedHttpError, ScriptedReply, ScriptedResponse } from './fake-script';

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
  'POST /v1/responses': 'openai-responses',
};

export interface FakeServerOptions extends StrictWireOptions {
  port?: number;
}

/** Every server not yet closed, so a test harness can check that none refused a request unnoticed. */
const live = new Set<FakeLlmServer>();

export class FakeLlmServer {
  /** e.g. http://127.0.0.1:40123 */
  readonly url: string;
  /** Every routed request, in arrival order. */
  readonly requests: RecordedRequest[] = [];
  /**
   * What `GET /v1/models` lists, as OpenAI-compatible servers answer it
   * (OpenAI's "List models"; Ollama, LM Studio, vLLM and llama.cpp's server
   * answer the same `{object: "list", data: [{id, object: "model", ...}]}`).
   */
  models: (string | ListedModel)[] = ['fake-model'];
  private readonly queues: Record<FakeApi, ScriptedReply[]> = { openai: [], anthropic: [], 'openai-responses': [] };
  private readonly responders: Partial<Record<FakeApi, Responder>> = {};
  private readonly sockets = new Set<Socket>();
  /** Counters behind generated ids, shared by both APIs. */
  private serials = newSerials();
  /** Requests of each API being answered now, and the most there ever were at once. */
  private readonly open: Record<FakeApi, number> = { openai: 0, anthropic: 0, 'openai-responses': 0 };
  private readonly peak: Record<FakeApi, number> = { openai: 0, anthropic: 0, 'openai-responses': 0 };
  private closed?: Promise<void>;

  static async start(options: FakeServerOptions = {}): Promise<FakeLlmServer> {
    const server = http.createServer();
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.port ?? 0, '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    });
    return new FakeLlmServer(server, new StrictWire(options));
  }

  /** The servers started and not yet closed. */
  static live(): FakeLlmServer[] {
    return [...live];
  }

  private constructor(
    private readonly server: http.Server,
    private readonly strict: StrictWire,
  ) {
    live.add(this);
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
    for (const reply of replies) validateFor(api, reply);
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

  /** The context window of both routes from now on, in the fake's tokens (see token-estimate.ts); undefined: the defaults. */
  setContextWindow(tokens: number | undefined): void {
    this.strict.setContextWindow(tokens);
  }

  /** Replies not yet consumed. */
  pending(api: FakeApi): number {
    return this.queues[api].length;
  }

  requestsFor(api: FakeApi): RecordedRequest[] {
    return this.requests.filter((request) => request.api === api);
  }

  /**
   * The requests refused by a wire rule since the last call, which forgets
   * them. A test that breaks a rule on purpose takes them to say it expected
   * them; the test harness fails any test that leaves one behind.
   */
  takeRefusals(): RecordedRefusal[] {
    return this.strict.takeRefusals();
  }

  /** The most requests of `api` that were open at the same time (received, their response not yet ended). */
  peakConcurrency(api: FakeApi): number {
    return this.peak[api];
  }

  /** Forgets queued replies, responders and recorded requests, and restarts generated ids. */
  reset(): void {
    for (const api of Object.keys(this.queues) as FakeApi[]) {
      delete this.responders[api];
      this.queues[api].length = 0;
      this.peak[api] = this.open[api];
    }
    this.requests.length = 0;
    this.serials = newSerials();
  }

  /** Stops listening and destroys every connection, stalled ones included. Idempotent. */
  close(): Promise<void> {
    live.delete(this);
    this.closed ??= new Promise<void>((resolve) => {
      this.server.close(() => resolve());
      for (const socket of this.sockets) socket.destroy();
    });
    return this.closed;
  }

  /** The ids of `models`. */
  private modelIds(): string[] {
    return this.models.map((model) => (typeof model === 'string' ? model : model.id));
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const method = req.method ?? 'GET';
    const url = new URL(req.url ?? '/', this.url);
    const path = url.pathname;
    if (method === 'GET' && path === '/v1/models') {
      // Both APIs list models here; the SDKs' anthropic-version header tells Anthropic's client.
      const api: FakeApi = req.headers['anthropic-version'] !== undefined ? 'anthropic' : 'openai';
      const refused = this.strict.authorize(api, req.headers);
      if (refused) return sendJson(res, refused.status, this.strict.wires[api].errorBody(refused));
      return sendJson(res, 200, modelList(api, this.models));
    }
    // Azure OpenAI's Chat Completions are at each deployment's own path.
    const api = ROUTES[`${method} ${path}`] ?? (method === 'POST' && AZURE_DEPLOYMENT_PATH.test(path) ? 'openai' : undefined);
    if (!api) {
      const message = `fake LLM server: no route for ${method} ${path} (serves POST /v1/chat/completions, POST /v1/messages, POST /v1/responses and GET /v1/models)`;
      return sendJson(res, 404, { error: { type: 'not_found_error', message } });
    }
    const text = (await readAll(req)).toString('utf8');
    const body = parseObject(text);
    this.requests.push({ api, method, path, headers: req.headers, body: body ?? text, receivedAt: Date.now() });
    this.open[api] += 1;
    this.peak[api] = Math.max(this.peak[api], this.open[api]);
    res.once('close', () => (this.open[api] -= 1));
    const refused = this.strict.checkRequestLine(api, path, url.searchParams, this.modelIds()) ?? this.strict.authorize(api, req.headers);
    if (refused) return sendJson(res, refused.status, this.strict.wires[api].errorBody(refused));
    await this.answer(api, body, res);
  }

  private async answer(api: FakeApi, body: Record<string, unknown> | undefined, res: http.ServerResponse): Promise<void> {
    const wire = this.strict.wires[api];
    if (!body) {
      return sendJson(res, 400, wire.errorBody(wire.refusalFor(400, 'fake LLM server: request body is not a JSON object')));
    }
    const admission = this.strict.admit(api, body);
    if (admission.kind === 'refused') return sendJson(res, admission.refusal.status, wire.errorBody(admission.refusal));
    const reply = this.queues[api].shift() ?? this.responders[api]?.(body);
    if (reply) validateFor(api, reply);
    if (!reply) {
      const message = `fake LLM server: no scripted reply left for ${api} (request #${this.requestsFor(api).length})`;
      return sendJson(res, 400, wire.errorBody(wire.refusalFor(400, message)));
    }
    if (reply.kind === 'http_error') {
      if (reply.html !== undefined) {
        res.writeHead(reply.status, { 'content-type': 'text/html', ...retryHeaders(reply) });
        return void res.end(reply.html);
      }
      const message = reply.message ?? `fake LLM server: scripted HTTP ${reply.status}`;
      return sendJson(res, reply.status, wire.errorBody(wire.refusalFor(reply.status, message)), retryHeaders(reply));
    }
    // What the usage reports of the prompt: all of it, or (a server counting only what it had not cached) the rest.
    const read = { body, promptTokens: admission.uncachedTokens ?? admission.promptTokens, outputCap: this.strict.outputCap(api, body) };
    const resolved = resolveReply(reply, wire, read, this.serials);
    this.strict.settle(api, body, resolved, reply.usage?.input !== undefined);
    const streaming = body.stream === true;
    const events = streaming ? wire.streamEvents(resolved, body) : [JSON.stringify(wire.responseBody(resolved))];
    let { fault } = reply;
    if (fault?.kind === 'error_after') {
      const status = fault.status ?? 529;
      const refusal = wire.refusalFor(status, fault.message ?? `fake LLM server: scripted in-stream error ${status}`);
      // Without a stream there is no "after": the error is the response, as a server failing before its body answers.
      if (!streaming) return sendJson(res, status, wire.errorBody(refusal));
      events.splice(fault.events, Infinity, wire.streamError(refusal));
      fault = undefined;
    }
    await play(res, streaming ? 'text/event-stream' : 'application/json', events, { latencyMs: reply.latencyMs ?? 0, pauses: reply.pauses ?? [], fault });
  }
}

/** Throws on a malformed script, or one the API cannot send. */
function validateFor(api: FakeApi, reply: ScriptedReply): void {
  validateReply(reply);
  if (api !== 'anthropic' && reply.kind !== 'http_error' && reply.stopReason === 'pause_turn') {
    throw new RangeError(`fake LLM server: pause_turn is an Anthropic stop reason; the ${api} API has none like it`);
  }
}

function retryHeaders(reply: ScriptedHttpError): http.OutgoingHttpHeaders {
  const headers: http.OutgoingHttpHeaders = {};
  if (reply.retryAfterMs !== undefined) headers['retry-after-ms'] = String(reply.retryAfterMs);
  if (reply.retryAfterSeconds !== undefined) headers['retry-after'] = String(reply.retryAfterSeconds);
  return headers;
}

/**
 * Sends `events` as the body of a 200 response, paced by `latencyMs`, held
 * at each pause and cut short by `fault`. Without latency the events between
 * pauses go out in a single write: per-event writes would cap throughput well
 * below what stream consumers must be benchmarked at.
 */
async function play(
  res: http.ServerResponse,
  contentType: string,
  events: string[],
  { latencyMs, pauses, fault }: { latencyMs: number; pauses: NonNullable<ScriptedResponse['pauses']>; fault: Fault | undefined },
): Promise<void> {
  if (fault?.kind === 'drop_before_first_byte') {
    res.destroy();
    return;
  }
  if (fault?.kind === 'stall_before_first_byte') return;
  res.writeHead(200, { 'content-type': contentType, 'cache-control': 'no-cache' });
  res.flushHeaders();
  const toSend = fault ? events.slice(0, fault.events) : events;
  for (const segment of segments(toSend, pauses)) {
    if (segment.hold && !(await held(res, segment.hold))) return;
    if (segment.events.length === 0) continue;
    const delivered = latencyMs > 0 ? await writePaced(res, segment.events, latencyMs) : await write(res, segment.events.join(''));
    if (!delivered) return;
  }
  if (fault?.kind === 'drop_after') res.destroy();
  else if (fault?.kind !== 'stall_after') res.end();
}

/** The events cut before each pause's first event carrying its text; a segment after a pause waits for it. */
function segments(events: string[], pauses: NonNullable<ScriptedResponse['pauses']>): { hold?: Promise<unknown>; events: string[] }[] {
  const out: { hold?: Promise<unknown>; events: string[] }[] = [{ events: [] }];
  let next = 0;
  for (const event of events) {
    const pause = pauses.find((candidate, i) => i >= next && event.includes(JSON.stringify(candidate.before).slice(1, -1)));
    if (pause) {
      next = pauses.indexOf(pause) + 1;
      out.push({ hold: pause.until, events: [] });
    }
    out.at(-1)!.events.push(event);
  }
  return out;
}

/** Waits for a pause to be released: true, or false when the client went away first. */
function held(res: http.ServerResponse, until: Promise<unknown>): Promise<boolean> {
  if (res.destroyed) return Promise.resolve(false);
  return new Promise((resolve) => {
    const gone = (): void => resolve(false);
    res.once('close', gone);
    void until.then(
      () => {
        res.off('close', gone);
        resolve(!res.destroyed);
      },
      () => resolve(false),
    );
  });
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
