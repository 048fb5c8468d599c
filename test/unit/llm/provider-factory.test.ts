import assert from 'node:assert/strict';
import { providerFor } from '../../../src/llm';

describe('provider factory', () => {
  const entry = (models = {}) => ({ name: 'cloud', type: 'anthropic' as const, apiKeyEnv: 'CLOUD_KEY', models });

  it('carries the configured prices and vision capability of the model', () => {
    const provider = providerFor(
      {
        entry: entry({ 'claude-x': { vision: false, inputPerMtok: 3, outputPerMtok: 15, cacheReadPerMtok: 0.3 } }),
        model: 'claude-x',
        apiKey: 'k',
      },
      {},
    );
    assert.equal(provider.name, 'anthropic');
    assert.equal(provider.model, 'claude-x');
    assert.equal(provider.supportsImages, false);
    assert.deepEqual(provider.pricing, { input: 3, output: 15, cacheRead: 0.3 });
  });

  it('has no prices when the config gives none, and the vendor default for images', () => {
    const provider = providerFor({ entry: entry(), model: 'claude-y', apiKey: 'k' }, {});
    assert.equal(provider.pricing, undefined);
    assert.equal(provider.supportsImages, true);
  });
});
