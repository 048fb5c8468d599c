import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PRESETS } from '../../src/config/control-flow';
import { AnthropicProvider } from '../../src/llm/anthropic';
import { OpenAIProvider } from '../../src/llm/openai';
import { FakeLlmServer } from '../../testkit/fake-llm-server';
import { baseAgent, composition, flowFixture, runFlow, tools, type FlowFixture } from '../support/flows';

describe('per-role providers: a local executor and a cloud reviewer', () => {
  let local: FakeLlmServer;
  let cloud: FakeLlmServer;
  let fx: FlowFixture;

  before(async () => {
    local = await FakeLlmServer.start();
    cloud = await FakeLlmServer.start();
  });
  after(async () => {
    await local.close();
    await cloud.close();
  });
  beforeEach(() => (fx = flowFixture({ 'notes.md': '# Notes\n' })));
  afterEach(() => fx.dispose());

  it("sends each agent's requests to its own endpoint, through the real SDKs", async () => {
    local.enqueue(
      'openai',
      { blocks: [{ type: 'tool_call', name: 'write_file', arguments: { path: 'notes.md', content: '# Notes\n\n- shipped\n' } }] },
      { blocks: [{ type: 'text', text: 'Added the line.' }] },
      { blocks: [{ type: 'text', text: 'I added "- shipped" to notes.md.' }] },
    );
    cloud.enqueue(
      'anthropic',
      { blocks: [{ type: 'tool_call', name: 'read_file', arguments: { path: 'notes.md' } }] },
      { blocks: [{ type: 'tool_call', name: 'task_complete', arguments: { summary: 'notes.md now lists "shipped".' } }] },
    );
    const executor = new OpenAIProvider({ apiKey: 'none', baseURL: local.openaiBaseUrl, model: 'qwen-local', maxRetries: 0 });
    const reviewer = new AnthropicProvider({ apiKey: 'cloud-key', baseURL: cloud.anthropicBaseUrl, model: 'claude-review', maxRetries: 0 });
    const agent = composition({
      flow: PRESETS.verify,
      primary: baseAgent('builder', executor, fx.workspace, tools('read_file', 'write_file', 'task_complete')),
      coagent: baseAgent('verifier', reviewer, fx.workspace, tools('read_file', 'task_complete')),
    });

    const { result } = await runFlow(agent, fx.session, 'Add "- shipped" to notes.md.');

    assert.equal(result.status, 'completed', result.message);
    assert.equal(readFileSync(join(fx.root, 'notes.md'), 'utf8'), '# Notes\n\n- shipped\n');
    assert.deepEqual(local.requests.map((r) => [r.api, r.body.model]), [
      ['openai', 'qwen-local'],
      ['openai', 'qwen-local'],
      ['openai', 'qwen-local'],
    ]);
    assert.deepEqual(cloud.requests.map((r) => [r.api, r.body.model]), [
      ['anthropic', 'claude-review'],
      ['anthropic', 'claude-review'],
    ]);
    const brief = JSON.stringify(cloud.requests[0]!.body.messages);
    assert.match(brief, /I added \\"- shipped\\" to notes\.md\./, "the reviewer reads the executor's summary");
    assert.doesNotMatch(brief, /Added the line\./, "but not the executor's history");
    assert.equal(result.usage.output > 0, true);
  });
});
