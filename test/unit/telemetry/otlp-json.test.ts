import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { version } from '../../../package.json';
import { traceCommand } from '../../../src/adapters/cli/trace-command';
import { llmRequestAttributes, toolRequestAttributes } from '../../../src/telemetry/gen-ai';
import { otlpSink } from '../../../src/telemetry/otlp-export';
import { toOtlpJson, unixNano, type OtlpAnyValue, type OtlpKeyValue, type OtlpSpan, type OtlpTraceRequest } from '../../../src/telemetry/otlp-json';
import type { SpanRecord } from '../../../src/telemetry/span';
import { TraceRecorder } from '../../../src/telemetry/trace-recorder';
import { fakeIO } from '../../support/fake-io';

const TRACE = '0af7651916cd43dd8448eb211c80319c';

function span(fields: Partial<SpanRecord> & Pick<SpanRecord, 'spanId' | 'kind' | 'name'>): SpanRecord {
  return { traceId: TRACE, start: 1_767_268_800_000, end: 1_767_268_801_500, status: 'ok', attributes: {}, ...fields };
}

/** An AnyValue back to a plain value; an int may come as a number (the SDK) or a decimal string (proto3 JSON). */
function decode(value: OtlpAnyValue | { intValue: number }): unknown {
  if ('stringValue' in value) return value.stringValue;
  if ('intValue' in value) return Number(value.intValue);
  if ('doubleValue' in value) return value.doubleValue;
  if ('boolValue' in value) return value.boolValue;
  return value.arrayValue.values.map(decode);
}

function attributesOf(keyValues: OtlpKeyValue[]): Record<string, unknown> {
  return Object.fromEntries(keyValues.map(({ key, value }) => [key, decode(value)]));
}

describe('OTLP JSON of span records', () => {
  it('is an ExportTraceServiceRequest: one resource naming crow-agent, one scope, hex ids, nanosecond strings', () => {
    const request = toOtlpJson([
      span({ spanId: 'b7ad6b7169203331', kind: 'prompt', name: 'prompt build' }),
      span({ spanId: '00f067aa0ba902b7', parentSpanId: 'b7ad6b7169203331', kind: 'llm_call', name: 'chat claude-sonnet-4-6', start: 1_767_268_800_010.25 }),
    ]);
    const [resourceSpans] = request.resourceSpans;
    assert.deepEqual(attributesOf(resourceSpans!.resource.attributes), { 'service.name': 'crow-agent', 'service.version': version });
    assert.deepEqual(resourceSpans!.scopeSpans[0]!.scope, { name: 'crow-agent', version });
    const [prompt, llm] = resourceSpans!.scopeSpans[0]!.spans;
    assert.equal(prompt!.traceId, TRACE);
    assert.equal(prompt!.spanId, 'b7ad6b7169203331');
    assert.equal('parentSpanId' in prompt!, false, 'a root has no parent id');
    assert.equal(llm!.parentSpanId, 'b7ad6b7169203331');
    assert.equal(prompt!.startTimeUnixNano, '1767268800000000000');
    assert.equal(prompt!.endTimeUnixNano, '1767268801500000000');
    assert.equal(llm!.startTimeUnixNano, '1767268800010250000', 'fractional milliseconds stay exact');
    assert.equal(prompt!.kind, 1, 'INTERNAL');
    assert.equal(llm!.kind, 3, 'an LLM call is a CLIENT span');
    assert.deepEqual(prompt!.events, []);
  });

  it('types every attribute value and adds what the record knows as attributes', () => {
    const [otlp] = spansOf(
      toOtlpJson([
        span({
          spanId: '1111111111111111',
          kind: 'tool',
          name: 'execute_tool bash',
          agent: 'builder',
          role: 'primary',
          sessionId: 'internal-1',
          attributes: { 'gen_ai.tool.name': 'bash', 'crow.tool.duration_ms': 1500, 'crow.cost_usd': 0.0042, 'crow.flag': false, 'crow.tool.files_modified': ['a.txt', 'b.txt'], 'crow.ratio': Number.NaN },
        }),
      ]),
    );
    const byKey = new Map(otlp!.attributes.map(({ key, value }) => [key, value]));
    assert.deepEqual(byKey.get('gen_ai.tool.name'), { stringValue: 'bash' });
    assert.deepEqual(byKey.get('crow.tool.duration_ms'), { intValue: '1500' });
    assert.deepEqual(byKey.get('crow.cost_usd'), { doubleValue: 0.0042 });
    assert.deepEqual(byKey.get('crow.flag'), { boolValue: false });
    assert.deepEqual(byKey.get('crow.tool.files_modified'), { arrayValue: { values: [{ stringValue: 'a.txt' }, { stringValue: 'b.txt' }] } });
    assert.deepEqual(byKey.get('crow.ratio'), { stringValue: 'NaN' }, 'JSON has no NaN; a collector would reject the request');
    assert.equal(byKey.get('crow.span.kind') && decode(byKey.get('crow.span.kind')!), 'tool');
    assert.equal(decode(byKey.get('gen_ai.agent.name')!), 'builder');
    assert.equal(decode(byKey.get('crow.agent.role')!), 'primary');
    assert.equal(decode(byKey.get('gen_ai.conversation.id')!), 'internal-1');
  });

  it('maps statuses: ok is OK, an error keeps its message, a cancel is UNSET and flagged', () => {
    const [ok, error, cancelled] = spansOf(
      toOtlpJson([
        span({ spanId: '1', kind: 'tool', name: 'a' }),
        span({ spanId: '2', kind: 'tool', name: 'b', status: 'error', statusMessage: 'exit code 2' }),
        span({ spanId: '3', kind: 'agent_turn', name: 'c', status: 'cancelled', statusMessage: 'the user cancelled' }),
      ]),
    );
    assert.deepEqual(ok!.status, { code: 1 });
    assert.deepEqual(error!.status, { code: 2, message: 'exit code 2' });
    assert.deepEqual(cancelled!.status, { code: 0 });
    assert.equal(attributesOf(cancelled!.attributes)['crow.cancelled'], true);
    assert.equal(attributesOf(cancelled!.attributes)['crow.cancelled.reason'], 'the user cancelled');
  });

  it('exports a span that never ended as unfinished, ending now when told, else where it started', () => {
    const open: SpanRecord = { traceId: TRACE, spanId: '4', kind: 'llm_call', name: 'chat m', start: 1_000, attributes: {} };
    const [atStart] = spansOf(toOtlpJson([open]));
    assert.equal(atStart!.endTimeUnixNano, atStart!.startTimeUnixNano);
    assert.deepEqual(atStart!.status, { code: 0 });
    assert.equal(attributesOf(atStart!.attributes)['crow.unfinished'], true);
    const [running] = spansOf(toOtlpJson([open], { now: 4_000 }));
    assert.equal(running!.endTimeUnixNano, unixNano(4_000));
  });

  it('agrees with what the OTLP/HTTP exporter sends for the same spans', async () => {
    const received: OtlpTraceRequest[] = [];
    const server = await receiver(received);
    try {
      const exported = otlpSink({ endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/traces`, flushIntervalMs: 60_000 });
      const recorder = new TraceRecorder([exported.sink]);
      const prompt = recorder.startTrace('prompt', 'prompt build', { attributes: { 'crow.prompt': 'Fix it' } });
      const turn = prompt.child('agent_turn', 'invoke_agent builder', { agent: 'builder', role: 'primary', sessionId: 'internal-1' });
      const llm = turn.child('llm_call', 'chat m', { agent: 'builder', attributes: llmRequestAttributes('anthropic', 'm') });
      llm.set({ 'gen_ai.usage.input_tokens': 1200, 'crow.cost_usd': 0.0042, 'gen_ai.response.finish_reasons': ['tool_use'] });
      llm.end('ok');
      turn.child('tool', 'execute_tool bash', { agent: 'builder', attributes: toolRequestAttributes('bash', 'call-1', '{}') }).end('error', 'exit code 2');
      turn.end('cancelled', 'the user cancelled');
      prompt.end('ok');
      await exported.shutdown();

      const fromSdk = new Map(received.flatMap(spansOf).map((s) => [s.spanId, s]));
      const ours = spansOf(toOtlpJson(recorder.spans));
      assert.equal(fromSdk.size, ours.length);
      for (const mine of ours) {
        const theirs = fromSdk.get(mine.spanId)!;
        assert.deepEqual(comparable(mine), comparable(theirs), mine.name);
      }
      assert.deepEqual(received[0]!.resourceSpans[0]!.resource.attributes, toOtlpJson([]).resourceSpans[0]!.resource.attributes);
    } finally {
      server.closeAllConnections();
      await new Promise((done) => server.close(done));
    }
  });

  it('crow trace SESSION --otlp-json prints the stored spans as OTLP JSON', async () => {
    const home = mkdtempSync(join(tmpdir(), 'crow-otlp-cli-'));
    try {
      const folder = join(home, 'data', 'crow-agent', 'sessions', 'otlp-session');
      mkdirSync(folder, { recursive: true });
      writeFileSync(join(folder, 'meta.json'), JSON.stringify({ id: 'otlp-session', agentName: 'build', cwd: home, title: 't', createdAt: 0, updatedAt: 0, models: {}, todos: [], internal: [] }));
      const started = span({ spanId: 'aaaaaaaaaaaaaaaa', kind: 'prompt', name: 'prompt build', end: undefined, status: undefined });
      const ended = span({ spanId: 'aaaaaaaaaaaaaaaa', kind: 'prompt', name: 'prompt build' });
      writeFileSync(join(folder, 'trace.jsonl'), `${JSON.stringify(started)}\n${JSON.stringify(ended)}\n`);
      const io = fakeIO({ env: { XDG_DATA_HOME: join(home, 'data') } });
      assert.equal(await traceCommand(['otlp-session', '--otlp-json'], io), 0);
      const printed = JSON.parse(io.out()) as OtlpTraceRequest;
      assert.deepEqual(spansOf(printed), spansOf(toOtlpJson([ended])), 'one span, the ended record');
      await assert.rejects(traceCommand(['otlp-session', '--otlp-json', '--json'], fakeIO()), /Choose one of --json, --otlp-json and --serve/);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
});

function spansOf(request: OtlpTraceRequest): OtlpSpan[] {
  return request.resourceSpans.flatMap((r) => r.scopeSpans.flatMap((s) => s.spans));
}

/** The fields both encoders fill, with attribute values decoded (the SDK sends ints as numbers). */
function comparable(otlp: OtlpSpan): unknown {
  return {
    traceId: otlp.traceId,
    spanId: otlp.spanId,
    parentSpanId: otlp.parentSpanId || undefined,
    name: otlp.name,
    kind: otlp.kind,
    start: otlp.startTimeUnixNano,
    end: otlp.endTimeUnixNano,
    attributes: attributesOf(otlp.attributes),
    status: { code: otlp.status.code, message: otlp.status.message },
  };
}

function receiver(received: OtlpTraceRequest[]): Promise<Server> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      received.push(JSON.parse(Buffer.concat(chunks).toString('utf8')) as OtlpTraceRequest);
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}
