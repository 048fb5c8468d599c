import assert from 'node:assert/strict';
import { flavorOf, isOpenAIReasoningModel } from '../../../src/llm/openai-flavor';

describe('which OpenAI-compatible server a provider is', () => {
  it('is the configured flavor, else told from the base URL', () => {
    assert.equal(flavorOf('https://api.openai.com/v1', undefined), 'openai');
    assert.equal(flavorOf('http://localhost:11434/v1', undefined), 'ollama');
    assert.equal(flavorOf('http://127.0.0.1:1234/v1', undefined), 'lmstudio');
    assert.equal(flavorOf('http://gpu-box:8000/v1', undefined), 'generic', '8000 and 8080 are too common to tell');
    assert.equal(flavorOf('http://gpu-box:8000/v1', 'vllm'), 'vllm');
    assert.equal(flavorOf('http://my-proxy.example/v1', 'openai'), 'openai');
    assert.equal(flavorOf('not a url', undefined), 'generic');
  });

  it('tells Azure OpenAI resources and OpenRouter from their hosts', () => {
    assert.equal(flavorOf('https://team.openai.azure.com/openai', undefined), 'azure');
    assert.equal(flavorOf('https://team.cognitiveservices.azure.com/openai?api-version=2024-10-21', undefined), 'azure');
    assert.equal(flavorOf('https://openrouter.ai/api/v1', undefined), 'openrouter');
    assert.equal(flavorOf('https://openai.azure.com.example/v1', undefined), 'generic', 'only the real suffix counts');
  });

  it("knows OpenAI's reasoning models", () => {
    for (const model of ['o1', 'o3-mini', 'o4-mini', 'gpt-5', 'gpt-5.4', 'gpt-5-mini']) assert.ok(isOpenAIReasoningModel(model), model);
    for (const model of ['gpt-4o', 'gpt-4.1', 'qwen3', 'llama3.1:8b']) assert.ok(!isOpenAIReasoningModel(model), model);
  });
});
