/**
 * `crow trace --serve` (the binary): a page asks for `/spans` and `/events`
 * at once, naming one load in both, and nothing appended to trace.jsonl
 * between the two falls through, in whichever order they reach the server.
 * The load named by a request is a page's word, so a request naming none,
 * or something that is no load ID, is served as always.
 */
import assert from 'node:assert/strict';
import { appendFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ACPSession } from '../../src/session/acp-session';
import { SessionStore } from '../../src/session/session-store';
import type { SpanRecord } from '../../src/telemetry/span';
import { type CrowProcess, startCrow, until } from '../support/crow-binary';
import { isolatedEnv } from '../support/isolated-env';

/** An `/events` stream read as it comes: the span ids of its records so far. */
class EventStream {
  readonly spanIds: string[] = [];
  private readonly stop = new AbortController();
  private text = '';

  static async open(url: string): Promise<EventStream> {
    const stream = new EventStream();
    const response = await fetch(url, { signal: stream.stop.signal });
    assert.equal(response.status, 200);
    void stream.read(response.body!.getReader());
    return stream;
  }

  close(): void {
    this.stop.abort();
  }

  private async read(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<void> {
    const decoder = new TextDecoder();
    try {
      for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
        this.text += decoder.decode(chunk.value, { stream: true });
        const events = this.text.split('\n\n');
        this.text = events.pop()!;
        for (const event of events) {
          const data = /^data: (.*)$/m.exec(event)?.[1];
          if (data !== undefined && !event.includes('event: ')) this.spanIds.push((JSON.parse(data) as SpanRecord).spanId);
        }
      }
    } catch {
      // Closed by the test.
    }
  }
}

describe('crow trace --serve: /spans and /events asked for at once lose nothing between them', function () {
  this.timeout(60_000);
  let base: string;
  let traceFile: string;
  let serving: CrowProcess;
  let origin: string;
  let token: string;
  const opened: EventStream[] = [];
  const record = (spanId: string): SpanRecord => ({ traceId: 'a'.repeat(32), spanId, kind: 'tool', name: 'execute_tool bash', start: Date.now(), attributes: {} });
  const append = (spanId: string): void => appendFileSync(traceFile, `${JSON.stringify(record(spanId))}\n`);
  const events = async (query: string): Promise<EventStream> => {
    const stream = await EventStream.open(`${origin}/events?token=${token}${query}`);
    opened.push(stream);
    return stream;
  };
  const spans = async (query: string): Promise<string> => {
    const response = await fetch(`${origin}/spans?token=${token}${query}`);
    assert.equal(response.status, 200);
    return response.text();
  };
  /** Appends a span and waits until the server's follower has handed it on (to a stream with no load, open before). */
  const appendAndFollow = async (spanId: string): Promise<void> => {
    const watcher = await events('');
    append(spanId);
    await until(() => watcher.spanIds.includes(spanId), `the follower to hand on ${spanId}`);
  };

  before(async () => {
    base = mkdtempSync(join(tmpdir(), 'crow-trace-seam-'));
    const home = join(base, 'home');
    const store = new SessionStore({ dataHome: join(home, 'data', 'crow-agent') });
    const session = new ACPSession({ cwd: base, agentName: 'build' });
    const handle = store.attach(session);
    session.trace.startTrace('prompt', 'prompt build', { agent: 'build' }).end('ok');
    handle.close();
    traceFile = store.traceFile(session.id);
    serving = startCrow(['trace', session.id, '--serve', '--no-open'], isolatedEnv(home), base);
    await until(() => /Ctrl-C stops/.test(serving.stderr()), `the URL; stderr:\n${serving.stderr()}`);
    const url = new URL(/(http:\/\/127\.0\.0\.1:\d+\/\?token=\S+)/.exec(serving.stderr())![1]!);
    origin = url.origin;
    token = url.searchParams.get('token')!;
  });

  after(async () => {
    for (const stream of opened) stream.close();
    if (serving) {
      serving.child.kill('SIGINT');
      await serving.exited;
    }
    if (base) rmSync(base, { recursive: true, force: true });
  });

  it('sends on the event stream what was appended after the stored part was read and before the stream listened', async () => {
    const stored = await spans('&load=load-spans-first');
    await appendAndFollow('between1');
    assert.ok(!stored.includes('between1'), 'not in the stored part');
    const late = await events('&load=load-spans-first');
    await until(() => late.spanIds.includes('between1'), 'the span appended between the two to come on the event stream', 5_000);
    append('after1');
    await until(() => late.spanIds.includes('after1'), 'a later span to come as always');
  });

  it('sends nothing twice over when the event stream listened first', async () => {
    const early = await events('&load=load-events-first');
    await appendAndFollow('between2');
    const stored = await spans('&load=load-events-first');
    assert.ok(stored.includes('between2'), 'in the stored part');
    await new Promise((done) => setTimeout(done, 500));
    assert.deepEqual(
      early.spanIds.filter((id) => id === 'between2'),
      ['between2'],
      'handed on once by the follower, not sent again',
    );
  });

  it('serves a request naming no load, or something that is no load ID, as always, without pairing it', async () => {
    for (const load of ['', '&load=', '&load=short', '&load=../../etc', `&load=${'x'.repeat(65)}`, '&load=%3Cscript%3E']) {
      const stored = await spans(load);
      await appendAndFollow(`plain${opened.length}`);
      const stream = await events(load);
      await new Promise((done) => setTimeout(done, 300));
      assert.deepEqual(stream.spanIds, [], `nothing replayed for "${load}"`);
      assert.ok(stored.length > 0);
    }
  });
});
