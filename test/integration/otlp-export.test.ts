import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { version } from '../../package.json';
import { llmRequestAttributes, toolRequestAttributes } from '../../src/telemetry/gen-ai';
import { otlpEndpointFrom } from '../../src/telemetry/otlp-endpoint';
import { otlpSink, type OtlpExport, type OtlpSinkOptions } from '../../src/telemetry/otlp-export';
import type { SpanRecord } from '../../src/telemetry/span';
import { TraceRecorder } from '../../src/telemetry/trace-recorder';

/** What the receiver saw of one POST. */
interface Received {
  path: string;
  contentType: string | undefined;
  authorization: string | undefined;
  body: OtlpRequest;
}

/** The parts of an OTLP/JSON ExportTraceServiceRequest the tests read. */
interface OtlpRequest {
  resourceSpans: {
    resource: { attributes: OtlpKeyValue[] };
    scopeSpans: { scope: { name: string; version?: string }; spans: OtlpSpan[] }[];
  }[];
}

interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  startTimeUnixNano: string;
  endTimeUnixNano: string;
  attributes: OtlpKeyValue[];
  status: { code: number; message?: string };
}

interface OtlpKeyValue {
  key: string;
  value: OtlpAnyValue;
}

type OtlpAnyValue =
  | { stringValue: string }
  | { intValue: number | string }
  | { doubleValue: number }
  | { boolValue: boolean }
  | { arrayValue: { values: OtlpAnyValue[] } };

/** OTLP status codes and span kinds as they appear on the wire. */
const STATUS = { UNSET: 0, OK: 1, ERROR: 2 };
const KIND = { INTERNAL: 1, CLIENT: 3 };

/** A local OTLP/HTTP receiver answering every POST with `status()`. */
class Receiver {
  readonly requests: Received[] = [];
  status = 200;
  private readonly server: Server;

  private constructor(server: Server) {
    this.server = server;
  }

  static async start(): Promise<Receiver> {
    const server = createServer();
    const receiver = new Receiver(server);
    server.on('request', (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        receiver.requests.push({
          path: req.url ?? '',
          contentType: req.headers['content-type'],
          authorization: req.headers.authorization,
          body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as OtlpRequest,
        });
        res.writeHead(receiver.status, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return receiver;
  }

  get endpoint(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/v1/traces`;
  }

  get spans(): OtlpSpan[] {
    return this.requests.flatMap((r) => r.body.resourceSpans.flatMap((rs) => rs.scopeSpans.flatMap((ss) => ss.spans)));
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

function decode(value: OtlpAnyValue): unknown {
  if ('stringValue' in value) return value.stringValue;
  if ('intValue' in value) return Number(value.intValue);
  if ('doubleValue' in value) return value.doubleValue;
  if ('boolValue' in value) return value.boolValue;
  return value.arrayValue.values.map(decode);
}

function attributesOf(keyValues: OtlpKeyValue[]): Record<string, unknown> {
  return Object.fromEntries(keyValues.map(({ key, value }) => [key, decode(value)]));
}

/** A prompt with an agent turn that made an LLM call and ran a failing tool, then was cancelled. */
function recordSmallTrace(recorder: TraceRecorder): void {
  const prompt = recorder.startTrace('prompt', 'prompt smart', { attributes: { 'crow.session.id': 'acp-1' } });
  const turn = prompt.child('agent_turn', 'invoke_agent builder', { agent: 'builder', role: 'primary', sessionId: 'internal-1' });
  const llm = turn.child('llm_call', 'chat claude-sonnet-4-6', {
    agent: 'builder',
    attributes: llmRequestAttributes('anthropic', 'claude-sonnet-4-6'),
  });
  llm.set({ 'gen_ai.usage.input_tokens': 1200, 'gen_ai.response.finish_reasons': ['tool_use'], 'crow.cost_usd': 0.0042 });
  llm.end('ok');
  const tool = turn.child('tool', 'execute_tool bash', {
    agent: 'builder',
    attributes: toolRequestAttributes('bash', 'call-1', '{"command":"make"}'),
  });
  tool.end('error', 'exit code 2');
  turn.end('cancelled', 'the user cancelled');
  prompt.end('ok');
}

describe('OTLP/HTTP export', () => {
  let receiver: Receiver;
  const exports: OtlpExport[] = [];
  const open = (options: Partial<OtlpSinkOptions> = {}): OtlpExport => {
    const exported = otlpSink({ endpoint: receiver.endpoint, flushIntervalMs: 60_000, ...options });
    exports.push(exported);
    return exported;
  };

  beforeEach(async () => (receiver = await Receiver.start()));
  afterEach(async () => {
    await Promise.all(exports.splice(0).map((e) => e.shutdown()));
    await receiver.stop();
  });

  it('sends our trace as OTLP JSON with the same ids, parent links, names, attributes and statuses', async () => {
    const exported = open({ headers: { authorization: 'Bearer collector-token' } });
    const recorder = new TraceRecorder([exported.sink]);
    recordSmallTrace(recorder);
    await exported.flush();

    assert.equal(receiver.requests.length, 1);
    const [request] = receiver.requests;
    assert.equal(request!.path, '/v1/traces');
    assert.match(request!.contentType ?? '', /^application\/json/);
    assert.equal(request!.authorization, 'Bearer collector-token');
    const [resourceSpans] = request!.body.resourceSpans;
    const resource = attributesOf(resourceSpans!.resource.attributes);
    assert.equal(resource['service.name'], 'crow-agent');
    assert.equal(resource['service.version'], version);
    assert.equal(resourceSpans!.scopeSpans[0]!.scope.name, 'crow-agent');

    const byId = new Map(receiver.spans.map((s) => [s.spanId, s]));
    assert.equal(byId.size, recorder.spans.length);
    for (const record of recorder.spans) {
      const span = byId.get(record.spanId)!;
      assert.equal(span.traceId, record.traceId);
      assert.equal(span.parentSpanId || undefined, record.parentSpanId);
      assert.equal(span.name, record.name);
      assert.equal(span.startTimeUnixNano, String(record.start * 1_000_000));
      assert.equal(span.endTimeUnixNano, String(record.end! * 1_000_000));
    }

    const [prompt, turn, llm, tool] = recorder.spans.map((r: SpanRecord) => byId.get(r.spanId)!);
    assert.deepEqual(prompt!.status, { code: STATUS.OK });
    assert.equal(prompt!.kind, KIND.INTERNAL);
    assert.equal(attributesOf(prompt!.attributes)['crow.session.id'], 'acp-1');

    assert.equal(turn!.status.code, STATUS.UNSET);
    assert.deepEqual(attributesOf(turn!.attributes), {
      'crow.span.kind': 'agent_turn',
      'gen_ai.agent.name': 'builder',
      'crow.agent.role': 'primary',
      'gen_ai.conversation.id': 'internal-1',
      'crow.cancelled': true,
      'crow.cancelled.reason': 'the user cancelled',
    });

    assert.equal(llm!.kind, KIND.CLIENT);
    assert.deepEqual(llm!.status, { code: STATUS.OK });
    const llmAttributes = attributesOf(llm!.attributes);
    assert.equal(llmAttributes['gen_ai.operation.name'], 'chat');
    assert.equal(llmAttributes['gen_ai.provider.name'], 'anthropic');
    assert.equal(llmAttributes['gen_ai.request.model'], 'claude-sonnet-4-6');
    assert.equal(llmAttributes['gen_ai.usage.input_tokens'], 1200);
    assert.deepEqual(llmAttributes['gen_ai.response.finish_reasons'], ['tool_use']);
    assert.equal(llmAttributes['crow.cost_usd'], 0.0042);

    assert.equal(tool!.kind, KIND.INTERNAL);
    assert.deepEqual(tool!.status, { code: STATUS.ERROR, message: 'exit code 2' });
    assert.equal(attributesOf(tool!.attributes)['gen_ai.tool.name'], 'bash');
    assert.equal(attributesOf(tool!.attributes)['gen_ai.tool.call.arguments'], '{"command":"make"}');
  });

  it('sends a full batch without waiting for the interval', async () => {
    const exported = open({ batchSize: 2 });
    const recorder = new TraceRecorder([exported.sink]);
    recorder.startTrace('prompt', 'first').end('ok');
    recorder.startTrace('prompt', 'second').end('ok');
    const deadline = Date.now() + 5_000;
    while (receiver.spans.length < 2 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
    assert.deepEqual(receiver.spans.map((s) => s.name).sort(), ['first', 'second']);
  });

  it('reports a failing collector once per outage and never throws into the agent', async () => {
    receiver.status = 500;
    const errors: Error[] = [];
    const exported = open({ onError: (error) => errors.push(error) });
    const recorder = new TraceRecorder([exported.sink]);

    recordSmallTrace(recorder);
    await exported.flush();
    recordSmallTrace(recorder);
    await exported.flush();
    assert.equal(errors.length, 1);
    assert.match(errors[0]!.message, new RegExp(`^OTLP export to ${receiver.endpoint} failed: `));
    assert.equal(receiver.requests.length, 2, 'a 500 is not retried');

    receiver.status = 200;
    recordSmallTrace(recorder);
    await exported.flush();
    receiver.status = 500;
    recordSmallTrace(recorder);
    await exported.flush();
    assert.equal(errors.length, 2, 'a new outage after a success is reported again');
  });

  it('reports an unreachable collector without throwing', async () => {
    const gone = await Receiver.start();
    const endpoint = gone.endpoint;
    await gone.stop();
    const errors: Error[] = [];
    const exported = open({ endpoint, onError: (error) => errors.push(error), timeoutMs: 500 });
    recordSmallTrace(new TraceRecorder([exported.sink]));
    await exported.flush();
    assert.equal(errors.length, 1);
  });

  it('refuses an endpoint that is not an http(s) URL when it is set up', () => {
    assert.throws(() => otlpSink({ endpoint: 'localhost:4318' }), /not an http\(s\) URL/);
    assert.throws(() => otlpSink({ endpoint: 'not a url' }), /not an http\(s\) URL/);
  });

  it('flushes pending spans on shutdown and ignores spans ending afterwards', async () => {
    const exported = open();
    const recorder = new TraceRecorder([exported.sink]);
    recordSmallTrace(recorder);
    assert.equal(receiver.requests.length, 0);
    await exported.shutdown();
    assert.equal(receiver.spans.length, 4);

    recorder.startTrace('prompt', 'late').end('ok');
    await exported.flush();
    assert.equal(receiver.spans.length, 4);
  });
});

describe('otlpEndpointFrom', () => {
  it('is off when nothing is configured', () => {
    assert.equal(otlpEndpointFrom(undefined, {}), undefined);
    assert.equal(otlpEndpointFrom(' ', { OTEL_EXPORTER_OTLP_ENDPOINT: '' }), undefined);
  });

  it('uses the config value as the traces URL', () => {
    assert.equal(otlpEndpointFrom('http://collector:4318/v1/traces', {}), 'http://collector:4318/v1/traces');
  });

  it('appends /v1/traces to the generic variable, which overrides the config', () => {
    const env = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://env:4318' };
    assert.equal(otlpEndpointFrom('http://config/v1/traces', env), 'http://env:4318/v1/traces');
    assert.equal(otlpEndpointFrom(undefined, { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://env:4318/base/' }), 'http://env:4318/base/v1/traces');
  });

  it('prefers the traces variable, used as given', () => {
    const env = {
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://traces:4318/custom',
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://env:4318',
    };
    assert.equal(otlpEndpointFrom('http://config/v1/traces', env), 'http://traces:4318/custom');
  });
});
