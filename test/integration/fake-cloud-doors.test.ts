/**
 * The fake clouds refuse what the real doors refuse, over HTTP on loopback:
 * Bedrock a request not signed with the key, a body without its API
 * version or with the model or `stream` in it; Vertex AI a token exchange
 * with another subject token, a request without a token it issued, and a
 * body without its API version or with the model in it. What passes the
 * door reaches the fake LLM server's Anthropic rules.
 */
import assert from 'node:assert/strict';
import { Sha256 } from '@aws-crypto/sha256-js';
import { HttpRequest } from '@smithy/protocol-http';
import { SignatureV4 } from '@smithy/signature-v4';
import { AnthropicProvider } from '../../src/llm/anthropic';
import { bedrockEndpoint } from '../../src/llm/bedrock-endpoint';
import type { StreamEvent } from '../../src/llm/types';
import { FakeBedrock } from '../../testkit/fake-bedrock';
import { FakeLlmServer } from '../../testkit/fake-llm-server';
import { FakeVertex } from '../../testkit/fake-vertex';

const AWS = { accessKeyId: 'AKIAFAKECROWTEST0001', secretAccessKey: 'crow-fake-aws-secret-0123456789abcdefghij' };
const MESSAGES = [{ role: 'user', content: 'Hi' }];

describe('the fake clouds refuse what the real doors refuse', () => {
  let llm: FakeLlmServer;
  let bedrock: FakeBedrock;
  let vertex: FakeVertex;

  before(async () => {
    llm = await FakeLlmServer.start();
    bedrock = await FakeBedrock.start({ upstream: llm, credentials: AWS, region: 'eu-west-3' });
    vertex = await FakeVertex.start({ upstream: llm, project: 'crow-test-project', region: 'us-east5', subjectToken: 'the-subject-token' });
  });
  after(async () => {
    await bedrock.close();
    await vertex.close();
    await llm.close();
  });
  afterEach(() => llm.reset());

  /** POSTs `body` to the fake Bedrock's streaming route, signed with `secret` as the Bedrock SDK signs. */
  async function toBedrock(body: unknown, secret = AWS.secretAccessKey): Promise<{ status: number; errorType: string | null; text: string }> {
    const url = new URL(`${bedrock.url}/model/anthropic.claude-haiku-4-5-20251001-v1:0/invoke-with-response-stream`);
    const signer = new SignatureV4({ service: 'bedrock', region: 'eu-west-3', credentials: { ...AWS, secretAccessKey: secret }, sha256: Sha256 });
    const payload = JSON.stringify(body);
    const signed = await signer.sign(
      new HttpRequest({ method: 'POST', protocol: 'http:', hostname: url.hostname, port: Number(url.port), path: url.pathname, headers: { host: url.host, 'content-type': 'application/json' }, body: payload }),
    );
    const response = await fetch(url, { method: 'POST', headers: signed.headers, body: payload });
    return { status: response.status, errorType: response.headers.get('x-amzn-errortype'), text: await response.text() };
  }

  it('Bedrock: a body with the model or stream, or without anthropic_version, is a ValidationException in its validator\'s words', async () => {
    const wrong = await toBedrock({ model: 'claude', stream: true, max_tokens: 10, messages: MESSAGES });
    assert.equal(wrong.status, 400);
    assert.equal(wrong.errorType, 'ValidationException');
    assert.equal(
      JSON.parse(wrong.text).message,
      'Malformed input request: #: required key [anthropic_version] not found#: extraneous key [model] is not permitted#: extraneous key [stream] is not permitted, please reformat your input and try again.',
    );
    const dated = await toBedrock({ anthropic_version: '2023-06-01', max_tokens: 10, messages: MESSAGES });
    assert.match(JSON.parse(dated.text).message, /#\/anthropic_version: "2023-06-01" is not a valid enum value/);
    assert.deepEqual(bedrock.takeRefusals().map((refusal) => refusal.rule), ['bedrock/body', 'bedrock/body']);
    assert.equal(llm.requests.length, 0, 'nothing refused at the door reached the model');
  });

  it('Bedrock: a request signed with another secret is a 403 InvalidSignatureException; a signed one reaches the Messages API rules', async () => {
    const forged = await toBedrock({ anthropic_version: 'bedrock-2023-05-31', max_tokens: 10, messages: MESSAGES }, 'another-secret');
    assert.equal(forged.status, 403);
    assert.equal(forged.errorType, 'InvalidSignatureException');
    assert.deepEqual(bedrock.takeRefusals().map((refusal) => refusal.rule), ['bedrock/sigv4']);

    // Signed, but a request the Messages API itself refuses (no max_tokens): the model's refusal, as Bedrock relays it.
    const refused = await toBedrock({ anthropic_version: 'bedrock-2023-05-31', messages: MESSAGES });
    assert.equal(refused.status, 400);
    assert.equal(refused.errorType, 'ValidationException');
    assert.match(JSON.parse(refused.text).message, /max_tokens/);
    assert.deepEqual(llm.takeRefusals().map((refusal) => refusal.rule), ['anthropic/max-tokens-required']);
    assert.equal(llm.requests[0]!.body.model, 'anthropic.claude-haiku-4-5-20251001-v1:0', 'the model came from the path');
  });

  it('Bedrock: an exception event before any output (overloaded) is retried, as the Messages API\'s overloaded_error is', async () => {
    llm.enqueue('anthropic', { blocks: [{ type: 'text', text: 'Never seen.' }], fault: { kind: 'error_after', events: 2 } }, { blocks: [{ type: 'text', text: 'Hello.' }] });
    const keys = { AWS_ACCESS_KEY_ID: AWS.accessKeyId, AWS_SECRET_ACCESS_KEY: AWS.secretAccessKey };
    const saved = Object.fromEntries(Object.keys(keys).map((name) => [name, process.env[name]]));
    Object.assign(process.env, keys);
    try {
      const provider = new AnthropicProvider(
        { apiKey: 'unused', model: 'anthropic.claude-haiku-4-5-20251001-v1:0', retryBaseDelayMs: 1 },
        bedrockEndpoint({ provider: 'aws', region: 'eu-west-3', baseURL: bedrock.url }),
      );
      const events: StreamEvent[] = [];
      for await (const event of provider.stream({ system: 'Be brief.', messages: [{ role: 'user', content: [{ type: 'text', text: 'Hi' }] }], tools: [] }, new AbortController().signal)) {
        events.push(event);
      }
      const retry = events.find((event) => event.type === 'retry');
      assert.ok(retry, `retried: ${JSON.stringify(events)}`);
      const done = events.at(-1) as Extract<StreamEvent, { type: 'done' }>;
      assert.deepEqual(done.response.content, [{ type: 'text', text: 'Hello.' }]);
    } finally {
      for (const [name, value] of Object.entries(saved)) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
    }
  });

  /** Exchanges `subjectToken` at the fake token endpoint as google-auth-library does for an external_account credential. */
  async function exchange(subjectToken: string): Promise<Response> {
    const form = new URLSearchParams({
      grant_type: 'urn:ietf:params:oauth:grant-type:token-exchange',
      audience: '//iam.googleapis.com/projects/1/locations/global/workloadIdentityPools/p/providers/q',
      scope: 'https://www.googleapis.com/auth/cloud-platform',
      requested_token_type: 'urn:ietf:params:oauth:token-type:access_token',
      subject_token: subjectToken,
      subject_token_type: 'urn:ietf:params:oauth:token-type:jwt',
    });
    return fetch(vertex.tokenUrl, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: form });
  }

  const predictUrl = (): string => `${vertex.baseUrl}/projects/crow-test-project/locations/us-east5/publishers/anthropic/models/claude-haiku-4-5@20251001:streamRawPredict`;
  const predict = (token: string, body: unknown): Promise<Response> =>
    fetch(predictUrl(), { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });

  it('Vertex AI: another subject token gets no access token, and a token it did not issue is 401 UNAUTHENTICATED', async () => {
    const denied = await exchange('not-the-subject-token');
    assert.equal(denied.status, 400);
    assert.equal(((await denied.json()) as { error: string }).error, 'invalid_grant');
    const unauthenticated = await predict('ya29.made-up', { anthropic_version: 'vertex-2023-10-16', stream: true, max_tokens: 10, messages: MESSAGES });
    assert.equal(unauthenticated.status, 401);
    assert.equal(((await unauthenticated.json()) as { error: { status: string } }).error.status, 'UNAUTHENTICATED');
    assert.deepEqual(vertex.takeRefusals().map((refusal) => refusal.rule), ['vertex/sts', 'vertex/bearer-token']);
  });

  it('Vertex AI: with an issued token, a body with the model or another version is refused, and a right one streams', async () => {
    const issued = (await (await exchange('the-subject-token')).json()) as { access_token: string; token_type: string };
    assert.equal(issued.token_type, 'Bearer');
    const withModel = await predict(issued.access_token, { anthropic_version: 'vertex-2023-10-16', model: 'claude', stream: true, max_tokens: 10, messages: MESSAGES });
    assert.equal(withModel.status, 400);
    assert.match(await withModel.text(), /model: Extra inputs are not permitted/);
    const firstParty = await predict(issued.access_token, { anthropic_version: '2023-06-01', stream: true, max_tokens: 10, messages: MESSAGES });
    assert.equal(firstParty.status, 400);
    assert.deepEqual(vertex.takeRefusals().map((refusal) => refusal.rule), ['vertex/body', 'vertex/body']);

    llm.enqueue('anthropic', { blocks: [{ type: 'text', text: 'Hello.' }] });
    const streamed = await predict(issued.access_token, { anthropic_version: 'vertex-2023-10-16', stream: true, max_tokens: 10, messages: MESSAGES });
    assert.equal(streamed.status, 200);
    assert.match(await streamed.text(), /event: message_stop/);
    assert.equal(llm.requests[0]!.body.model, 'claude-haiku-4-5@20251001');
  });
});
