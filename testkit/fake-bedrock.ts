/**
 * A fake Amazon Bedrock runtime for Claude, on loopback, in front of the
 * fake LLM server: `POST /model/{modelId}/invoke-with-response-stream`
 * (https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_InvokeModelWithResponseStream.html),
 * answered in AWS event-stream framing (aws-event-stream.ts). It is as
 * strict as Bedrock's door, each rule below with its source; the Messages
 * API's own rules are the fake LLM server's, which gets the request with
 * the model from the path.
 */
import type * as http from 'node:http';
import { bedrockChunk, bedrockException } from './aws-event-stream';
import { type AwsCredentials, checkSigV4 } from './aws-sigv4';
import { parseObject, sendJson } from './http-json';
import { CloudFake, CloudFront, type CloudRequest, sseMessages, toMessagesApi } from './cloud-front';
import type { FakeLlmServer } from './fake-llm-server';

/** The only version Bedrock's Messages API takes, in the body (docs.aws.amazon.com/bedrock/latest/userguide/model-parameters-anthropic-claude-messages-request-response.html). */
export const BEDROCK_ANTHROPIC_VERSION = 'bedrock-2023-05-31';

const INVOKE_STREAM = /^\/model\/([^/]+)\/invoke-with-response-stream$/;

/**
 * Bedrock's schema refusals, in the wording of its validator: "Malformed
 * input request: #: required key [anthropic_version] not found" (quoted in
 * promptfoo/promptfoo#916), "#: extraneous key [model] is not permitted" and
 * "#: extraneous key [stream] is not permitted" (fumito-ito/AnthropicSwiftSDK#19,
 * sigoden/aichat#543), each violation appended, then ", please reformat your
 * input and try again."
 */
function bodyViolations(body: Record<string, unknown>): string[] {
  const violations: string[] = [];
  if (body.anthropic_version === undefined) violations.push('#: required key [anthropic_version] not found');
  else if (body.anthropic_version !== BEDROCK_ANTHROPIC_VERSION) violations.push(`#/anthropic_version: ${JSON.stringify(body.anthropic_version)} is not a valid enum value`);
  // The model is the path's; streaming is the operation's (InvokeModelWithResponseStream), not a body field.
  if ('model' in body) violations.push('#: extraneous key [model] is not permitted');
  if ('stream' in body) violations.push('#: extraneous key [stream] is not permitted');
  return violations;
}

/** Bedrock's error type for a status the model's API answered (the operation's Errors section). */
const ERROR_TYPES: Record<number, string> = {
  400: 'ValidationException',
  403: 'AccessDeniedException',
  404: 'ResourceNotFoundException',
  408: 'ModelTimeoutException',
  424: 'ModelErrorException',
  429: 'ThrottlingException',
  500: 'InternalServerException',
  503: 'ServiceUnavailableException',
};

/** In-stream Anthropic error types as Bedrock's exception events name them. */
const STREAM_EXCEPTIONS: Record<string, string> = {
  overloaded_error: 'serviceUnavailableException',
  rate_limit_error: 'throttlingException',
  api_error: 'internalServerException',
};

export interface FakeBedrockOptions {
  /** The fake LLM server whose Anthropic route plays the model. */
  upstream: FakeLlmServer;
  /** The only credentials whose signature is accepted. */
  credentials: AwsCredentials;
  region: string;
  /** A Bedrock API key also accepted (as `Authorization: Bearer`), if any. */
  apiKey?: string;
}

export class FakeBedrock extends CloudFake {
  private constructor(front: CloudFront) {
    super(front);
  }

  static async start(options: FakeBedrockOptions): Promise<FakeBedrock> {
    return new FakeBedrock(await CloudFront.listen((front) => (request, res) => answer(front, options, request, res)));
  }

  /** For the Bedrock SDK's `baseURL` (a provider's base_url). */
  get url(): string {
    return this.front.url;
  }
}

async function answer(front: CloudFront, options: FakeBedrockOptions, request: CloudRequest, res: http.ServerResponse): Promise<void> {
  const refuse = (rule: string, status: number, errorType: string, message: string): void => {
    front.refuse(rule, status, message);
    sendJson(res, status, { message }, { 'x-amzn-errortype': errorType });
  };
  const match = INVOKE_STREAM.exec(request.rawUrl.split('?')[0] ?? '');
  if (request.method !== 'POST' || !match) {
    return refuse('bedrock/route', 404, 'UnknownOperationException', `fake Bedrock: no route for ${request.method} ${request.rawUrl} (serves POST /model/{modelId}/invoke-with-response-stream)`);
  }
  const bearer = /^Bearer (.+)$/.exec(request.headers.authorization ?? '')?.[1];
  if (bearer !== undefined && options.apiKey !== undefined) {
    if (bearer !== options.apiKey) return refuse('bedrock/api-key', 403, 'AccessDeniedException', 'Invalid API Key format: Must start with pre-defined prefix');
  } else {
    const unsigned = checkSigV4(request, options.credentials, 'bedrock', options.region);
    if (unsigned) return refuse('bedrock/sigv4', unsigned.status, unsigned.errorType, unsigned.message);
  }
  const body = parseObject(request.body.toString('utf8'));
  if (!body) return refuse('bedrock/json-body', 400, 'ValidationException', 'Malformed input request: expected type: JSONObject, please reformat your input and try again.');
  const violations = bodyViolations(body);
  if (violations.length > 0) {
    return refuse('bedrock/body', 400, 'ValidationException', `Malformed input request: ${violations.join('')}, please reformat your input and try again.`);
  }
  const { anthropic_version: _version, anthropic_beta: betas, ...rest } = body;
  const upstream = await toMessagesApi(options.upstream, { ...rest, model: decodeURIComponent(match[1]!), stream: true }, Array.isArray(betas) ? betas.map(String) : []);
  if (upstream.statusCode !== 200) return relayError(upstream, res);
  await relayStream(upstream, res);
}

/** An error answer of the model's API, as Bedrock words it: its status (529 is Bedrock's 503), `x-amzn-errortype` and `{ message }`. */
async function relayError(upstream: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
  let text = '';
  for await (const chunk of upstream) text += chunk.toString();
  const status = upstream.statusCode === 529 ? 503 : (upstream.statusCode ?? 500);
  const error = parseObject(text)?.error as { message?: unknown } | undefined;
  const message = typeof error?.message === 'string' ? error.message : text;
  sendJson(res, status, { message }, { 'x-amzn-errortype': ERROR_TYPES[status] ?? (status >= 500 ? 'InternalServerException' : 'ValidationException') });
}

/**
 * Each SSE event of the model's stream as a `chunk` message, an `error`
 * event as an exception message that ends the stream; message_stop carries
 * Bedrock's `amazon-bedrock-invocationMetrics` (token counts), as the
 * Messages API on Bedrock adds them to its last event. A cut upstream cuts
 * the answer.
 */
async function relayStream(upstream: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
  res.writeHead(200, { 'content-type': 'application/vnd.amazon.eventstream', 'x-amzn-bedrock-content-type': 'application/json' });
  res.flushHeaders();
  upstream.once('aborted', () => res.destroy());
  const counts = { inputTokenCount: 0, outputTokenCount: 0 };
  try {
    for await (const { event, data } of sseMessages(upstream)) {
      const parsed = parseObject(data);
      if (event === 'error' || parsed?.type === 'error') {
        const error = parsed?.error as { type?: string; message?: string } | undefined;
        res.write(bedrockException(STREAM_EXCEPTIONS[error?.type ?? ''] ?? 'internalServerException', error?.message ?? data));
        break;
      }
      res.write(bedrockChunk(parsed ? JSON.stringify(withMetrics(parsed, counts)) : data));
    }
  } catch {
    res.destroy();
    return;
  }
  if (upstream.complete) res.end();
  else res.destroy();
}

function withMetrics(event: Record<string, any>, counts: { inputTokenCount: number; outputTokenCount: number }): Record<string, unknown> {
  if (event.type === 'message_start') counts.inputTokenCount = Number(event.message?.usage?.input_tokens ?? 0);
  if (event.type === 'message_delta') counts.outputTokenCount = Number(event.usage?.output_tokens ?? 0);
  if (event.type !== 'message_stop') return event;
  return { ...event, 'amazon-bedrock-invocationMetrics': { ...counts, invocationLatency: 1, firstByteLatency: 1 } };
}
