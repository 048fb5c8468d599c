/**
 * What differs between the servers that speak Chat Completions, where it
 * changes the requests Crow sends (each fact is from the server's source or
 * docs; testkit/chat-servers.ts plays each server by the same facts).
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
  /**
   * The field an assistant message with tool calls must carry its reasoning
   * back in, when the server requires it. DeepSeek in thinking mode (on by
   * default) answers 400 "Missing reasoning_content field in the assistant
   * message" otherwise, also when the turn had no reasoning
   * (api-docs.deepseek.com/guides/thinking_mode, "Tool Calls").
   */
  reasoningEcho?: 'reasoning_content';
  /**
   * Whether what the server attached to a tool call (`extra_content`, see
   * ToolCallBlock.extra) goes back with it. Not to OpenAI itself, whose
   * message schema allows no other fields; compatible servers ignore what
   * they do not know, and Gemini requires its thought signatures back.
   */
  echoesCallExtra: boolean;
  /**
   * Whether the signed `reasoning_details` a model streamed go back on the
   * assistant message with the tool calls they came with (OpenRouter; see
   * openrouter-reasoning.ts): a Claude model behind it refuses the next step
   * of a tool loop without them.
   */
  echoesReasoningDetails?: boolean;
}

export const FLAVOR_TRAITS: Record<ServerFlavor, FlavorTraits> = {
  openai: { capField: 'max_completion_tokens', toollessAnswer: 'tool_choice_none', dropsOverflow: false, echoesCallExtra: false },
  // Azure OpenAI serves OpenAI's models (max_completion_tokens since API version 2024-09-01-preview), with OpenAI's schema.
  azure: { capField: 'max_completion_tokens', toollessAnswer: 'tool_choice_none', dropsOverflow: false, echoesCallExtra: false },
  // OpenRouter documents max_tokens (openrouter.ai/docs/api-reference/parameters) and maps it to each upstream.
  openrouter: { capField: 'max_tokens', toollessAnswer: 'tool_choice_none', dropsOverflow: false, echoesCallExtra: true, echoesReasoningDetails: true },
  ollama: { capField: 'max_tokens', toollessAnswer: 'omit_tools', dropsOverflow: true, echoesCallExtra: true },
  'llama.cpp': { capField: 'max_tokens', toollessAnswer: 'tool_choice_none', dropsOverflow: false, echoesCallExtra: true },
  vllm: { capField: 'max_completion_tokens', toollessAnswer: 'tool_choice_none', dropsOverflow: false, echoesCallExtra: true },
  lmstudio: { capField: 'max_tokens', toollessAnswer: 'tool_choice_none', dropsOverflow: false, echoesCallExtra: true },
  deepseek: { capField: 'max_tokens', toollessAnswer: 'tool_choice_none', dropsOverflow: false, reasoningEcho: 'reasoning_content', echoesCallExtra: true },
  // Gemini's OpenAI-compatible endpoint (ai.google.dev/gemini-api/docs/openai): thought signatures ride on tool calls.
  gemini: { capField: 'max_tokens', toollessAnswer: 'tool_choice_none', dropsOverflow: false, echoesCallExtra: true },
  // max_tokens is the field every compatible server has read the longest.
  generic: { capField: 'max_tokens', toollessAnswer: 'tool_choice_none', dropsOverflow: false, echoesCallExtra: true },
};

/** Ports only one server uses by default; 8000 and 8080 (vLLM, llama.cpp) are too common to tell anything. */
const DEFAULT_PORTS: Record<string, ServerFlavor> = { '11434': 'ollama', '1234': 'lmstudio' };

/** Azure OpenAI's resource hosts (learn.microsoft.com/azure/ai-services/openai/reference, "endpoint"). */
const AZURE_HOST = /\.(openai\.azure\.com|cognitiveservices\.azure\.com)$/;

/** The configured flavor, else the one the base URL tells: OpenAI's, DeepSeek's or Gemini's own API, an Azure OpenAI resource, OpenRouter, a server on Ollama's or LM Studio's port, else generic. */
export function flavorOf(baseURL: string, configured: ServerFlavor | undefined): ServerFlavor {
  if (configured) return configured;
  try {
    const url = new URL(baseURL);
    if (url.hostname === 'api.openai.com') return 'openai';
    if (url.hostname === 'api.deepseek.com') return 'deepseek';
    if (url.hostname === 'generativelanguage.googleapis.com') return 'gemini';
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
