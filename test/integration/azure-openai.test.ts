/**
 * Azure OpenAI as a flavor of the Chat Completions provider, against the
 * strict fake playing an Azure resource: the deployment in the path, the
 * `api-version` query parameter, the `api-key` header, and what Azure
 * answers when one of them is wrong.
 */
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { azureEndpoint } from '../../src/llm/chat-client';
import { OpenAIProvider } from '../../src/llm/openai';
import type { AssistantResponse, LlmRequest } from '../../src/llm/types';
import { FakeLlmServer } from '../../testkit/fake-llm-server';
import { binarySuite } from '../support/binary-suite';
import { runCrow } from '../support/crow-binary';
import { isolatedEnv } from '../support/isolated-env';

const DEPLOYMENT = 'team-gpt4o';
const ASK: LlmRequest = { system: '', messages: [{ role: 'user', content: [{ type: 'text', text: 'Hi' }] }], tools: [] };

async function answer(provider: OpenAIProvider): Promise<AssistantResponse> {
  let last: AssistantResponse | undefined;
  for await (const event of provider.stream(ASK, new AbortController().signal)) if (event.type === 'done') last = event.response;
  return last!;
}

describe('Azure OpenAI against the strict fake', () => {
  let server: FakeLlmServer;
  before(async () => {
    server = await FakeLlmServer.start({ chatServer: 'azure' });
    server.models = [DEPLOYMENT];
  });
  afterEach(() => {
    assert.deepEqual(server.takeRefusals(), [], 'no request was refused unexpectedly');
    server.reset();
  });
  after(() => server.close());

  const provider = (model: string, baseURL = `${server.url}/openai?api-version=2025-04-01-preview`): OpenAIProvider =>
    new OpenAIProvider({ apiKey: 'azure-key', apiKeyEnv: 'AZURE_OPENAI_API_KEY', model, baseURL, flavor: 'azure', maxRetries: 0 });

  it('reads the resource endpoint as the portal shows it, and the API version from its query', () => {
    assert.deepEqual(azureEndpoint('https://team.openai.azure.com/'), { baseURL: 'https://team.openai.azure.com/openai', apiVersion: '2024-10-21' });
    assert.deepEqual(azureEndpoint('https://team.openai.azure.com/openai?api-version=2025-04-01-preview'), {
      baseURL: 'https://team.openai.azure.com/openai',
      apiVersion: '2025-04-01-preview',
    });
  });

  it('sends the deployment in the path, the api-version, and the key as api-key', async () => {
    server.enqueue('openai', { blocks: [{ type: 'text', text: 'Hello from Azure.' }] });
    const response = await answer(provider(DEPLOYMENT));
    assert.equal(response.errorMessage, undefined);
    assert.deepEqual(response.content, [{ type: 'text', text: 'Hello from Azure.' }]);
    const [sent] = server.requestsFor('openai');
    assert.equal(sent!.path, `/openai/deployments/${DEPLOYMENT}/chat/completions`);
    assert.equal(sent!.headers['api-key'], 'azure-key');
    assert.equal(sent!.headers.authorization, undefined, 'the key is not sent as a bearer token');
  });

  it('without a version in the base URL, sends the latest generally available one', async () => {
    server.enqueue('openai', { blocks: [{ type: 'text', text: 'ok' }] });
    const response = await answer(provider(DEPLOYMENT, server.url));
    assert.equal(response.errorMessage, undefined);
  });

  it('a deployment the resource lacks is refused as Azure refuses it, and Crow says what to check', async () => {
    const response = await answer(provider('gpt-4o'));
    assert.equal(response.stopReason, 'error');
    assert.match(response.errorMessage!, /HTTP 404: The API deployment for this resource does not exist.*Check the model name \("gpt-4o"\)/);
    assert.deepEqual(server.takeRefusals().map((refusal) => refusal.rule), ['azure/deployment']);
  });

  it('refuses what Azure refuses on the request line and in the headers', async () => {
    const post = (path: string, headers: Record<string, string>) =>
      fetch(`${server.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify({ model: 'x', messages: [{ role: 'user', content: 'Hi' }] }) });
    const deployed = `/openai/deployments/${DEPLOYMENT}/chat/completions`;
    const cases: { rule: string; path: string; headers: Record<string, string>; status: number }[] = [
      { rule: 'azure/deployment-route', path: '/v1/chat/completions', headers: { 'api-key': 'k' }, status: 404 },
      { rule: 'azure/api-version', path: deployed, headers: { 'api-key': 'k' }, status: 404 },
      { rule: 'azure/deployment', path: '/openai/deployments/other/chat/completions?api-version=2024-10-21', headers: { 'api-key': 'k' }, status: 404 },
      { rule: 'azure/api-key', path: `${deployed}?api-version=2024-10-21`, headers: { authorization: 'Bearer k' }, status: 401 },
    ];
    for (const c of cases) {
      const refused = await post(c.path, c.headers);
      assert.equal(refused.status, c.status, c.rule);
      assert.deepEqual(server.takeRefusals().map((refusal) => refusal.rule), [c.rule]);
    }
  });
});

describe('Azure OpenAI through the binary', function () {
  this.timeout(60_000);
  const suite = binarySuite('azure');

  it('crow run: a tool turn on a deployment, configured as flavor "azure"', async () => {
    const fake = await FakeLlmServer.start({ chatServer: 'azure' });
    try {
      fake.models = [DEPLOYMENT];
      mkdirSync(join(suite.home, 'config', 'crow-agent'), { recursive: true });
      writeFileSync(
        join(suite.home, 'config', 'crow-agent', 'config.toml'),
        `provider = "azure"\n[providers.azure]\ntype = "openai"\nflavor = "azure"\nbase_url = "${fake.url}/openai?api-version=2024-10-21"\napi_key_env = "AZURE_OPENAI_API_KEY"\ndefault_model = "${DEPLOYMENT}"\n`,
      );
      writeFileSync(join(suite.root, 'a.txt'), 'hello from a\n');
      fake.enqueue('openai', { blocks: [{ type: 'tool_call', name: 'read_file', arguments: { path: 'a.txt' } }] }, { blocks: [{ type: 'text', text: 'It says hello from a.' }] });

      const run = await runCrow(['run', 'What does a.txt say?', '--agent', 'build', '--allow', 'all', '--no-undo'], isolatedEnv(suite.home, { AZURE_OPENAI_API_KEY: 'azure-key' }), suite.root);
      assert.equal(run.code, 0, run.stderr);
      assert.equal(run.stdout.trim(), 'It says hello from a.');
      assert.deepEqual(fake.takeRefusals(), []);
      const requests = fake.requestsFor('openai');
      assert.equal(requests.length, 2);
      for (const request of requests) {
        assert.equal(request.path, `/openai/deployments/${DEPLOYMENT}/chat/completions`);
        assert.equal(request.body.max_tokens, undefined, 'Azure reads max_completion_tokens');
      }
      assert.doesNotMatch(run.stderr + run.stdout, /azure-key/, 'the key is never shown');
    } finally {
      await fake.close();
    }
  });
});
