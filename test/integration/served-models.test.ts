/**
 * The models a configured server serves, as its own list says: offered in
 * the model pickers (here, crow acp's config options, updated once the list
 * arrives), and their output caps and windows applied to the requests.
 */
import assert from 'node:assert/strict';
import { parseList } from '../../src/llm/served-models';
import { startAcp } from '../support/crow-binary';
import { binarySuite } from '../support/binary-suite';

describe("a server's list of models", function () {
  this.timeout(30_000);
  const suite = binarySuite('served-models');

  it('crow acp offers the models the server lists once it has listed them, and keeps requests under the cap the list gives', async () => {
    suite.llm.models = [{ id: 'claude-sonnet-4-6', contextWindow: 50_000, outputCap: 4_000 }, 'claude-haiku-4-5'];
    const agent = startAcp(suite.root, suite.home, { ANTHROPIC_API_KEY: 'k', ANTHROPIC_BASE_URL: suite.llm.anthropicBaseUrl });
    try {
      await agent.client.initialize();
      const { sessionId, configOptions } = await agent.client.newSession(suite.root);
      const modelsOf = (options: typeof configOptions) =>
        (options ?? []).flatMap((option) => (option.id === 'model' && option.type === 'select' ? option.options.map((choice) => ('value' in choice ? choice.value : '')) : []));
      assert.ok(!modelsOf(configOptions).includes('claude-haiku-4-5'), 'not offered before the list arrived');
      await agent.client.until(() => agent.client.updates(sessionId, 'config_option_update').length > 0, 10_000);
      const offered = modelsOf(agent.client.updates(sessionId, 'config_option_update').at(-1)!.configOptions);
      assert.deepEqual(offered, ['claude-sonnet-4-6', 'claude-haiku-4-5']);

      suite.llm.enqueue('anthropic', { blocks: [{ type: 'text', text: 'Hello.' }] });
      assert.equal((await agent.client.prompt(sessionId, 'Hi')).stopReason, 'end_turn');
      assert.equal(suite.llm.requestsFor('anthropic')[0]!.body.max_tokens, 4_000, 'the listed output cap');
    } finally {
      assert.equal(await agent.stop(), 0, agent.stderr());
    }
  });

  it('reads each server shape: Anthropic (window, cap, lifecycle), vLLM and OpenRouter', () => {
    assert.deepEqual(
      parseList({
        data: [
          { type: 'model', id: 'claude-opus-4-6', max_input_tokens: 200_000, max_tokens: 128_000, lifecycle: 'active' },
          { type: 'model', id: 'claude-2.1', lifecycle: 'retired' },
          { id: 'qwen3', object: 'model', max_model_len: 32_768 },
          { id: 'google/gemini-3-pro', context_length: 1_048_576, top_provider: { max_completion_tokens: 65_536 } },
          { id: '' },
          'junk',
        ],
      }),
      [
        { id: 'claude-opus-4-6', contextWindow: 200_000, outputCap: 128_000 },
        { id: 'qwen3', contextWindow: 32_768 },
        { id: 'google/gemini-3-pro', contextWindow: 1_048_576, outputCap: 65_536 },
      ],
    );
    assert.throws(() => parseList({ error: 'no' }), /no list of models/);
  });

  it('reads a hostile list as input, not as truth: bad ids, repeats, absurd counts and a flood are left out', () => {
    const listed = parseList({
      data: [
        { id: 'ok', max_model_len: 1e12 },
        { id: 'ok', max_model_len: 8_192 },
        { id: 'x'.repeat(201) },
        { id: 'evil\u001b]0;title\u0007' },
        { id: 'line\nbreak' },
        { id: 7 },
        ...Array.from({ length: 5_000 }, (_, i) => ({ id: `m${i}`, context_length: -5 })),
      ],
    });
    assert.deepEqual(listed[0], { id: 'ok' }, 'a window of a trillion tokens is no window');
    assert.equal(listed.length, 1_000, 'cut at 1,000 models');
    assert.ok(listed.every((model) => /^(ok|m\d+)$/.test(model.id) && model.contextWindow === undefined));
  });
});
