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
}

export const FLAVOR_TRAITS: Record<ServerFlavor, FlavorTraits> = {
  openai: { capField: 'max_completion_tokens', toollessAnswer: 'tool_choice_none', dropsOverflow: false, echoesCallExtra: false },
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

/** The configured flavor, else the one the base URL tells: OpenAI's, DeepSeek's or Gemini's own API, a server on Ollama's or LM Studio's port, else generic. */
export function flavorOf(baseURL: string, configured: ServerFlavor | undefined): ServerFlavor {
  if (configured) return configured;
  try {
    const url = new URL(baseURL);
    if (url.hostname === 'api.openai.com') return 'openai';
    if (url.hostname === 'api.deepseek.com') return 'deepseek';
    if (url.hostname === 'generativelanguage.googleapis.com') return 'gemini';
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
