/**
 * A fake Google Vertex AI for Claude, on loopback, in front of the fake LLM
 * server, with the Google token endpoint its credentials are exchanged at:
 *
 * - `POST /sts/v1/token`: Google's Security Token Service, where
 *   google-auth-library exchanges a workload identity federation credential
 *   (an `external_account` credentials file, whose `token_url` names the
 *   endpoint) for an access token
 *   (https://cloud.google.com/iam/docs/reference/sts/rest/v1/TopLevel/token).
 * - `POST /v1/projects/{p}/locations/{r}/publishers/anthropic/models/{m}:streamRawPredict`:
 *   the Messages API with the model in the path and the API version in the
 *   body, streaming Anthropic's SSE
 *   (https://cloud.google.com/vertex-ai/generative-ai/docs/partner-models/claude/use-claude,
 *   https://docs.anthropic.com/en/api/claude-on-vertex-ai).
 *
 * Each rule below cites its source; the Messages API's own rules are the
 * fake LLM server's, which gets the request with the model from the path.
 */
import { randomBytes } from 'node:crypto';
import type * as http from 'node:http';
import { parseObject, sendJson } from './http-json';
import { CloudFake, CloudFront, type CloudRequest, toMessagesApi } from './cloud-front';
import type { FakeLlmServer } from './fake-llm-server';

/** The only version Vertex AI's Claude endpoint takes, in the body (docs.anthropic.com/en/api/claude-on-vertex-ai). */
export const VERTEX_ANTHROPIC_VERSION = 'vertex-2023-10-16';

const TOKEN_EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
const ACCESS_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:access_token';
const CLOUD_PLATFORM_SCOPE = 'https://www.googleapis.com/auth/cloud-platform';
const STREAM_RAW_PREDICT = /^\/v1\/projects\/([^/]+)\/locations\/([^/]+)\/publishers\/anthropic\/models\/([^/:]+):streamRawPredict$/;

export interface FakeVertexOptions {
  /** The fake LLM server whose Anthropic route plays the model. */
  upstream: FakeLlmServer;
  project: string;
  region: string;
  /** The external credential (the subject token in the credentials file's source) the token endpoint accepts. */
  subjectToken: string;
}

export class FakeVertex extends CloudFake {
  /** Access tokens the token endpoint issued; only these open the model endpoint. */
  readonly issuedTokens: string[] = [];

  private constructor(front: CloudFront) {
    super(front);
  }

  static async start(options: FakeVertexOptions): Promise<FakeVertex> {
    let vertex: FakeVertex | undefined;
    const front = await CloudFront.listen((listening) => (request, res) => answer(listening, vertex!, options, request, res));
    vertex = new FakeVertex(front);
    return vertex;
  }

  /** For the Vertex SDK's `baseURL` (a provider's base_url). */
  get baseUrl(): string {
    return `${this.front.url}/v1`;
  }

  /** For the credentials file's `token_url`. */
  get tokenUrl(): string {
    return `${this.front.url}/sts/v1/token`;
  }
}

async function answer(front: CloudFront, vertex: FakeVertex, options: FakeVertexOptions, request: CloudRequest, res: http.ServerResponse): Promise<void> {
  const path = request.rawUrl.split('?')[0] ?? '';
  if (request.method === 'POST' && path === '/sts/v1/token') return exchangeToken(front, vertex, options, request, res);
  const match = STREAM_RAW_PREDICT.exec(path);
  if (request.method !== 'POST' || !match) {
    front.refuse('vertex/route', 404, `no route for ${request.method} ${path}`);
    return googleError(res, 404, 'NOT_FOUND', `fake Vertex AI: no route for ${request.method} ${path} (serves POST /sts/v1/token and POST …:streamRawPredict)`);
  }
  await streamRawPredict(front, vertex, options, request, res, match.slice(1).map(decodeURIComponent) as [string, string, string]);
}

/**
 * The token exchange as Google's STS checks it (its reference: grant_type
 * must be token-exchange, requested_token_type must be access_token,
 * subject_token and subject_token_type are required, and a federated
 * credential needs a scope), answering OAuth 2.0 errors (RFC 6749 §5.2
 * shape, `error` and `error_description`) and, on success, an access token
 * of type Bearer with its lifetime (RFC 8693 §2.2.1).
 */
function exchangeToken(front: CloudFront, vertex: FakeVertex, options: FakeVertexOptions, request: CloudRequest, res: http.ServerResponse): void {
  const form = new URLSearchParams(request.body.toString('utf8'));
  const refuse = (error: string, description: string): void => {
    front.refuse('vertex/sts', 400, description);
    sendJson(res, 400, { error, error_description: description });
  };
  if (form.get('grant_type') !== TOKEN_EXCHANGE) return refuse('unsupported_grant_type', `Invalid grant_type: ${form.get('grant_type') ?? ''}`);
  if (form.get('requested_token_type') !== ACCESS_TOKEN_TYPE) return refuse('invalid_request', 'Invalid requested_token_type');
  if (!form.get('subject_token_type')) return refuse('invalid_request', 'subject_token_type is required');
  if (!(form.get('scope') ?? '').split(' ').includes(CLOUD_PLATFORM_SCOPE)) return refuse('invalid_scope', `Scope ${CLOUD_PLATFORM_SCOPE} is required`);
  if (form.get('subject_token') !== options.subjectToken) return refuse('invalid_grant', 'The provided subject token is invalid.');
  const token = `ya29.fake-${randomBytes(16).toString('hex')}`;
  vertex.issuedTokens.push(token);
  sendJson(res, 200, { access_token: token, issued_token_type: ACCESS_TOKEN_TYPE, token_type: 'Bearer', expires_in: 3600 });
}

async function streamRawPredict(
  front: CloudFront,
  vertex: FakeVertex,
  options: FakeVertexOptions,
  request: CloudRequest,
  res: http.ServerResponse,
  [project, location, model]: [string, string, string],
): Promise<void> {
  // Google APIs refuse a call without a valid OAuth 2.0 access token with 401 UNAUTHENTICATED
  // (https://cloud.google.com/apis/design/errors#handling_errors, and the message users quote).
  const token = /^Bearer (.+)$/.exec(request.headers.authorization ?? '')?.[1];
  if (token === undefined || !vertex.issuedTokens.includes(token)) {
    front.refuse('vertex/bearer-token', 401, 'no access token the token endpoint issued');
    return googleError(
      res,
      401,
      'UNAUTHENTICATED',
      'Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential. See https://developers.google.com/identity/sign-in/web/devconsole-project.',
    );
  }
  if (project !== options.project || location !== options.region) {
    front.refuse('vertex/resource', 403, `project ${project}, location ${location}`);
    return googleError(res, 403, 'PERMISSION_DENIED', `Permission 'aiplatform.endpoints.predict' denied on resource '//aiplatform.googleapis.com/projects/${project}/locations/${location}/publishers/anthropic/models/${model}' (or it may not exist).`);
  }
  const body = parseObject(request.body.toString('utf8'));
  // The body is the Messages API's, with anthropic_version "vertex-2023-10-16" and no model (docs.anthropic.com/en/api/claude-on-vertex-ai);
  // refused in the Messages API's own words, as the model's validation answers them.
  const invalid = (message: string): void => {
    front.refuse('vertex/body', 400, message);
    sendJson(res, 400, { type: 'error', error: { type: 'invalid_request_error', message } });
  };
  if (!body) return invalid('The request body is not valid JSON.');
  if (body.anthropic_version === undefined) return invalid('anthropic_version: Field required');
  if (body.anthropic_version !== VERTEX_ANTHROPIC_VERSION) return invalid(`anthropic_version: Input should be '${VERTEX_ANTHROPIC_VERSION}'`);
  if ('model' in body) return invalid('model: Extra inputs are not permitted');
  if (body.stream !== true) return invalid('stream: streamRawPredict takes only streaming requests (stream: true)');
  const { anthropic_version: _version, anthropic_beta: betas, ...rest } = body;
  const upstream = await toMessagesApi(options.upstream, { ...rest, model }, Array.isArray(betas) ? betas.map(String) : []);
  res.writeHead(upstream.statusCode ?? 500, { 'content-type': upstream.headers['content-type'] ?? 'application/json' });
  res.flushHeaders();
  upstream.once('aborted', () => res.destroy());
  try {
    for await (const chunk of upstream) res.write(chunk);
  } catch {
    res.destroy();
    return;
  }
  if (upstream.complete) res.end();
  else res.destroy();
}

/** Google's error shape (https://cloud.google.com/apis/design/errors): `{ error: { code, message, status } }`. */
function googleError(res: http.ServerResponse, code: number, status: string, message: string): void {
  sendJson(res, code, { error: { code, message, status } });
}
