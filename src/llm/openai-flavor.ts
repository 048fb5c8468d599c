/**
 * What differs between the servers that speak Chat Completions, where it
 * changes the requests Crow sends (each fact is from the server's source or
 * docs; src/testing/chat-servers.ts plays each server by the same facts).
 */
import type { ServerFlavor } from '../config/settings-file';

export type { ServerFlavor } from '../config/settings-file';

export interface FlavorTraits {
  /**
   * The field the server reads as the output cap. OpenAI's reasoning models
   * refuse `max_tokens`; Ollama, LM Studio, llama-cpp-python and llama.cpp
   * servers before 2026-02 ignore `max_completion_tokens`, so the cap
   * silently vanishes there; vLLM reads both.
   */
  capField: 'max_completion_tokens' | 'max_tokens';
  /**
   * How an answer without tool calls is asked for: keep the tools and send
   * `tool_choice: "none"`, or, on a server that ignores tool_choice
   * (Ollama), send no tools (it takes tool calls in the history without them).
   */
  toollessAnswer: 'tool_choice_none' | 'omit_tools';
  /**
   * Whether the server fits an over-long prompt by silently dropping its
   * oldest messages (Ollama), so that a prompt past the window is noticed
   * only by the prompt tokens it reports.
   */
  dropsOverflow: boolean;
}

export const FLAVOR_TRAITS: Record<ServerFlavor, FlavorTraits> = {
  openai: { capField: 'max_completion_tokens', toollessAnswer: 'tool_choice_none', dropsOverflow: false },
  // Azure OpenAI serves OpenAI's models (max_completion_tokens since API version 2024-09-01-preview).
  azure: { capField: 'max_completion_tokens', toollessAnswer: 'tool_choice_none', dropsOverflow: false },
  // OpenRouter documents max_tokens (openrouter.ai/docs/api-reference/parameters) and maps it to each upstream.
  openrouter: { capField: 'max_tokens', toollessAnswer: 'tool_choice_none', dropsOverflow: false },
  ollama: { capField: 'max_tokens', toollessAnswer: 'omit_tools', dropsOverflow: true },
  'llama.cpp': { capField: 'max_tokens', toollessAnswer: 'tool_choice_none', dropsOverflow: false },
  vllm: { capField: 'max_completion_tokens', toollessAnswer: 'tool_choice_none', dropsOverflow: false },
  lmstudio: { capField: 'max_tokens', toollessAnswer: 'tool_choice_none', dropsOverflow: false },
  // max_tokens is the field every compatible server has read the longest.
  generic: { capField: 'max_tokens', toollessAnswer: 'tool_choice_none', dropsOverflow: false },
};

/** Ports only one server uses by default; 8000 and 8080 (vLLM, llama.cpp) are too common to tell anything. */
const DEFAULT_PORTS: Record<string, ServerFlavor> = { '11434': 'ollama', '1234': 'lmstudio' };

/** Azure OpenAI's resource hosts (learn.microsoft.com/azure/ai-services/openai/reference, "endpoint"). */
const AZURE_HOST = /\.(openai\.azure\.com|cognitiveservices\.azure\.com)$/;

/** The configured flavor, else the one the base URL tells: OpenAI's own API, an Azure OpenAI resource, OpenRouter, a server on Ollama's or LM Studio's port, else generic. */
export function flavorOf(baseURL: string, configured: ServerFlavor | undefined): ServerFlavor {
  if (configured) return configured;
  try {
    const url = new URL(baseURL);
    if (url.hostname === 'api.openai.com') return 'openai';
    if (AZURE_HOST.test(url.hostname)) return 'azure';
    if (url.hostname === 'openrouter.ai') return 'openrouter';
    return DEFAULT_PORTS[url.port] ?? 'generic';
  } catch {
    return 'generic';
  }
}

/**
 * OpenAI's reasoning models (the o-series and the gpt-5 family) take no
 * sampling temperature but the default and refuse `max_tokens`; gpt-4o and
 * gpt-4.1 take both (platform.openai.com/docs/guides/reasoning).
 */
export function isOpenAIReasoningModel(model: string): boolean {
  return /^(o\d|gpt-5)/.test(model);
}
