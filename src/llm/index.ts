import type { ResolvedConfig } from '../config/provider-config';
import { AnthropicProvider } from './anthropic';
import { OpenAIProvider } from './openai';
import type { Provider } from './types';

/** Builds the provider a resolved configuration names. */
export function createProvider(config: ResolvedConfig): Provider {
  const options = {
    apiKey: config.apiKey ?? 'not-needed',
    apiKeyEnv: config.apiKeyEnv,
    model: config.model,
    ...(config.baseUrl !== undefined ? { baseURL: config.baseUrl } : {}),
    ...(config.maxRetries !== undefined ? { maxRetries: config.maxRetries } : {}),
    ...(config.idleTimeoutMs !== undefined ? { idleTimeoutMs: config.idleTimeoutMs } : {}),
    ...(config.maxOutputTokens !== undefined ? { maxOutputTokens: config.maxOutputTokens } : {}),
    ...(config.images !== undefined ? { supportsImages: config.images } : {}),
  };
  switch (config.provider) {
    case 'anthropic':
      return new AnthropicProvider(options);
    case 'openai':
      return new OpenAIProvider(options);
  }
}
