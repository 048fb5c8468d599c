/**
 * What the fake cloud fronts (fake-bedrock.ts, fake-vertex.ts) share: a
 * loopback server, requests read whole and recorded, refusals recorded, and
 * the translated request handed on to the fake LLM server's Anthropic route,
 * whose scripted replies and Anthropic rules then apply as on Anthropic's
 * own API. Claude on a cloud is the Messages API behind the cloud's door:
 * the fronts check what the door checks (credentials, path, the body's
 * cloud fields) and the fake LLM server what the model's API checks.
 */
import * as http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { FakeLlmServer } from './fake-llm-server';
import { readAll } from './http-json';

export interface CloudRequest {
  method: string;
  /** As it arrived, still percent-encoded. */
  rawUrl: string;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

/** A request a front refused: the rule (e.g. "bedrock/sigv4") and what it answered. */
export interface CloudRefusal {
  rule: string;
  status: number;
  message: string;
}

export type CloudHandler = (request: CloudRequest, res: http.ServerResponse) => Promise<void>;

/** A loopback HTTP server answering with `handler`, recording every request; closing destroys open connections. */
export class CloudFront {
  readonly requests: CloudRequest[] = [];
  readonly refusals: CloudRefusal[] = [];
  private readonly sockets = new Set<Socket>();

  static async listen(handler: (front: CloudFront) => CloudHandler): Promise<CloudFront> {
    const server = http.createServer();
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    return new CloudFront(server, handler);
  }

  readonly url: string;

  private constructor(
    private readonly server: http.Server,
    handler: (front: CloudFront) => CloudHandler,
  ) {
    this.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const handle = handler(this);
    server.on('connection', (socket: Socket) => {
      this.sockets.add(socket);
      socket.once('close', () => this.sockets.delete(socket));
    });
    server.on('request', (req: http.IncomingMessage, res: http.ServerResponse) => {
      void readAll(req)
        .then((body) => {
          const request = { method: req.method ?? 'GET', rawUrl: req.url ?? '/', headers: req.headers, body };
          this.requests.push(request);
          return handle(request, res);
        })
        .catch(() => res.destroy());
    });
  }

  /** Records a refusal; the caller sends it in its cloud's own shape. */
  refuse(rule: string, status: number, message: string): void {
    this.refusals.push({ rule, status, message });
  }

  /** The refusals since the last call, forgotten. */
  takeRefusals(): CloudRefusal[] {
    return this.refusals.splice(0);
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      this.server.close(() => resolve());
      for (const socket of this.sockets) socket.destroy();
    });
  }
}

/**
 * Sends `body` to the fake LLM server's `POST /v1/messages` as Anthropic's
 * API takes it (key and version headers; `betas` as `anthropic-beta`) and
 * resolves with its response, unread.
 */
export function toMessagesApi(upstream: FakeLlmServer, body: Record<string, unknown>, betas: string[] = []): Promise<http.IncomingMessage> {
  const payload = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const request = http.request(`${upstream.anthropicBaseUrl}/v1/messages`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(payload),
        'x-api-key': 'cloud-front',
        'anthropic-version': '2023-06-01',
        ...(betas.length > 0 ? { 'anthropic-beta': betas.join(',') } : {}),
      },
    });
    request.once('response', resolve);
    request.once('error', reject);
    request.end(payload);
  });
}

/** The SSE messages of a response as they arrive: `event` and `data` of each. */
export async function* sseMessages(response: AsyncIterable<Buffer | string>): AsyncGenerator<{ event: string; data: string }> {
  let pending = '';
  for await (const chunk of response) {
    pending += chunk.toString();
    let end: number;
    while ((end = pending.indexOf('\n\n')) >= 0) {
      const block = pending.slice(0, end);
      pending = pending.slice(end + 2);
      let event = 'message';
      const data: string[] = [];
      for (const line of block.split('\n')) {
        if (line.startsWith('event:')) event = line.slice(6).trim();
        else if (line.startsWith('data:')) data.push(line.slice(5).trimStart());
      }
      if (data.length > 0) yield { event, data: data.join('\n') };
    }
  }
}

/** A fake cloud endpoint served by a CloudFront: what every test reads of it. */
export abstract class CloudFake {
  protected constructor(protected readonly front: CloudFront) {}

  get requests(): CloudRequest[] {
    return this.front.requests;
  }

  takeRefusals(): CloudRefusal[] {
    return this.front.takeRefusals();
  }

  close(): Promise<void> {
    return this.front.close();
  }
}
