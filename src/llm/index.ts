import type { ProviderConnection } from '../config/provider-config';
import { ConfigError, type ModelInfo, type ProviderEntry, type Settings } from '../config/settings';
import type { ModelPricing, Provider } from './types';
import type { HttpProviderOptions } from './resilient-stream';
import { speaksMessagesApi } from '../config/settings-file';
import { hostProvider } from './host-providers';
import { knownOutputCap } from './model-capabilities';
import { servedModel } from './served-models';
import type { CloudPlace } from './cloud-place';

/** The settings that shape every provider: retries, timeouts, output and image defaults. */
export type ProviderLimits = Pick<Settings, 'maxRetries' | 'idleTimeoutMs' | 'maxOutputTokens' | 'images'>;

/**
 * Builds the provider for a connection. Whether the model sees images comes
 * from its declared capabilities, else from the `images` setting, else from
 * the provider's own default.
 */
export function providerFor(connection: ProviderConnection, limits: ProviderLimits): Provider {
  const { entry, model, apiKey } = connection;
  const info = entry.models[model];
  const supportsImages = info?.vision ?? limits.images;
  if (entry.type === 'vscode') return hostProvider(entry.type, connection, supportsImages);
  const pricing = pricingFor(info);
  const outputCap = info?.outputCap ?? servedModel(entry, apiKey, model)?.outputCap ?? (speaksMessagesApi(entry.type) ? knownOutputCap(model) : undefined);
  const options: HttpProviderOptions = {
    apiKey: apiKey ?? 'not-needed',
    model,
    ...(entry.apiKeyEnv !== undefined ? { apiKeyEnv: entry.apiKeyEnv } : {}),
    ...(entry.baseUrl !== undefined ? { baseURL: entry.baseUrl } : {}),
    ...(entry.flavor !== undefined ? { flavor: entry.flavor } : {}),
    ...(limits.maxRetries !== undefined ? { maxRetries: limits.maxRetries } : {}),
    ...(limits.idleTimeoutMs !== undefined ? { idleTimeoutMs: limits.idleTimeoutMs } : {}),
    ...(limits.maxOutputTokens !== undefined ? { maxOutputTokens: limits.maxOutputTokens } : {}),
    ...(supportsImages !== undefined ? { supportsImages } : {}),
    ...(outputCap !== undefined ? { outputCap } : {}),
    ...(pricing ? { pricing } : {}),
  };
  // Each wire (and its SDK) is loaded when a provider of that type is made: a run on one never sets up the other.
  switch (entry.type) {
    case 'anthropic': {
      const { AnthropicProvider } = require('./anthropic') as typeof import('./anthropic');
      return new AnthropicProvider(options);
    }
    case 'openai': {
      const { OpenAIProvider } = require('./openai') as typeof import('./openai');
      return new OpenAIProvider(options);
    }
    case 'openai-responses': {
      const { OpenAIResponsesProvider } = require('./openai-responses') as typeof import('./openai-responses');
      return new OpenAIResponsesProvider(options);
    }
    // Claude on a cloud: the Anthropic provider on the cloud SDK's client, each SDK in a bundle of its own (esbuild.mjs).
    case 'bedrock':
    case 'vertex': {
      const { AnthropicProvider } = require('./anthropic') as typeof import('./anthropic');
      const place: CloudPlace = { provider: entry.name };
      if (entry.region !== undefined) place.region = entry.region;
      if (entry.projectId !== undefined) place.projectId = entry.projectId;
      if (entry.baseUrl !== undefined) place.baseURL = entry.baseUrl;
      if (apiKey !== undefined) place.apiKey = apiKey;
      if (entry.type === 'bedrock') {
        const { bedrockEndpoint } = require('./bedrock-endpoint') as typeof import('./bedrock-endpoint');
        return new AnthropicProvider(options, bedrockEndpoint(place));
      }
      const region = vertexRegion(entry);
      const { vertexEndpoint } = require('./vertex-endpoint') as typeof import('./vertex-endpoint');
      return new AnthropicProvider(options, vertexEndpoint({ ...place, region }));
    }
  }
}

/** A Vertex AI provider's region, which the SDK cannot do without: the entry's, else CLOUD_ML_REGION (as the SDK reads it). */
function vertexRegion(entry: ProviderEntry, env: NodeJS.ProcessEnv = process.env): string {
  const region = entry.region ?? (env.CLOUD_ML_REGION || undefined);
  if (region !== undefined) return region;
  throw new ConfigError(
    `Provider "${entry.name}" (Claude on Google Vertex AI) has no region: set providers.${entry.name}.region (e.g. "us-east5", or "global") or CLOUD_ML_REGION.`,
  );
}

/** A model's prices, when its configuration states both the input and the output price. */
export function pricingFor(info: ModelInfo | undefined): ModelPricing | undefined {
  if (info?.inputPerMtok === undefined || info.outputPerMtok === undefined) return undefined;
  return {
    input: info.inputPerMtok,
    output: info.outputPerMtok,
    ...(info.cacheReadPerMtok !== undefined ? { cacheRead: info.cacheReadPerMtok } : {}),
    ...(info.cacheWritePerMtok !== undefined ? { cacheWrite: info.cacheWritePerMtok } : {}),
  };
}
