/**
 * The wires Crow is tested on end to end, each as a person configures it:
 * the Anthropic API, OpenAI's, and the OpenAI-compatible local servers the
 * strict fake plays (see testkit/chat-servers.ts).
 */
import { promptTokens } from '../../testkit/anthropic-rules';
import { responsesPromptTokens } from '../../testkit/responses-rules';
import { CHAT_SERVER_PROFILES, type ChatServerName, chatPromptTokens } from '../../testkit/chat-servers';
import type { FakeApi, FakeLlmServer } from '../../testkit/fake-llm-server';

export interface Wire {
  name: string;
  api: FakeApi;
  chatServer?: ChatServerName;
  /** config.toml for this wire; with `window`, the context window Crow is told its model has. */
  config(server: FakeLlmServer, window?: number): string;
  env(server: FakeLlmServer): Record<string, string>;
}

const windowOf = (provider: string, model: string, window: number | undefined): string =>
  window === undefined ? '' : `[providers.${provider}.models."${model}"]\ncontext_window = ${window}\n`;

export const ANTHROPIC_WIRE: Wire = {
  name: 'Anthropic',
  api: 'anthropic',
  config: (_server, window) => windowOf('anthropic', 'claude-sonnet-4-6', window),
  env: (server) => ({ ANTHROPIC_API_KEY: 'k', ANTHROPIC_BASE_URL: server.anthropicBaseUrl }),
};

/** A base URL other than api.openai.com is told it is OpenAI by flavor (a proxy, say). */
export const OPENAI_WIRE: Wire = {
  name: 'OpenAI',
  api: 'openai',
  chatServer: 'openai',
  config: (_server, window) => `provider = "openai"\n[providers.openai]\nflavor = "openai"\n${windowOf('openai', 'gpt-5.4', window)}`,
  env: (server) => ({ OPENAI_API_KEY: 'k', OPENAI_BASE_URL: server.openaiBaseUrl }),
};

/** OpenAI's Responses API as a provider of its own type, on a reasoning model. */
export const RESPONSES_WIRE: Wire = {
  name: 'OpenAI Responses',
  api: 'openai-responses',
  config: (server, window) =>
    `provider = "gpt"\n[providers.gpt]\ntype = "openai-responses"\nbase_url = "${server.openaiBaseUrl}"\napi_key_env = "OPENAI_API_KEY"\ndefault_model = "gpt-5.4"\n${windowOf('gpt', 'gpt-5.4', window)}`,
  env: () => ({ OPENAI_API_KEY: 'k' }),
};

/** A local server as [providers.local], its flavor named. */
export function localWire(name: ChatServerName): Wire {
  return {
    name,
    api: 'openai',
    chatServer: name,
    config: (server, window) =>
      `provider = "local"\nmodel = "qwen3"\n[providers.local]\ntype = "openai"\nbase_url = "${server.openaiBaseUrl}"\nflavor = "${name}"\n${windowOf('local', 'qwen3', window)}`,
    env: () => ({}),
  };
}

export const LOCAL_SERVERS: ChatServerName[] = ['ollama', 'llama.cpp', 'vllm', 'lmstudio'];

/**
 * A vendor's hosted OpenAI-compatible API as [providers.ID], its flavor
 * named (its own host would tell it) and its key in the variable KEY_ENV.
 */
function hostedWire(name: string, server: 'gemini' | 'deepseek', model: string, keyEnv: string): Wire {
  return {
    name,
    api: 'openai',
    chatServer: server,
    config: (fake, window) =>
      `provider = "${server}"\nmodel = "${model}"\n[providers.${server}]\ntype = "openai"\nbase_url = "${fake.openaiBaseUrl}"\n` +
      `flavor = "${server}"\napi_key_env = "${keyEnv}"\n${windowOf(server, model, window)}`,
    env: () => ({ [keyEnv]: 'k' }),
  };
}

/** Gemini's OpenAI-compatible endpoint (generativelanguage.googleapis.com). */
export const GEMINI_WIRE = hostedWire('Gemini', 'gemini', 'gemini-3-pro-preview', 'GEMINI_API_KEY');

/** DeepSeek's own API (api.deepseek.com). */
export const DEEPSEEK_WIRE = hostedWire('DeepSeek', 'deepseek', 'deepseek-v4-pro', 'DEEPSEEK_API_KEY');

/** The prompt's size as the fake counts it. */
export function fakeTokens(wire: Wire, body: Record<string, unknown>): number {
  if (wire.api === 'openai-responses') return responsesPromptTokens(body);
  return wire.api === 'anthropic' ? promptTokens(body) : chatPromptTokens(body);
}

/** The output cap a request carries in the field its server reads. */
export function capRead(wire: Wire, body: Record<string, unknown>): number | undefined {
  if (wire.api === 'anthropic') return body.max_tokens as number;
  if (wire.api === 'openai-responses') return body.max_output_tokens as number;
  return CHAT_SERVER_PROFILES[wire.chatServer!].outputCap(body);
}
