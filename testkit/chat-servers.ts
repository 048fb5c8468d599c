/**
 * The servers that answer on the Chat Completions route: OpenAI itself and
 * the OpenAI-compatible local servers people run models on. Each profile is
 * what that server does with a request (which output cap it reads, what it
 * refuses, how it streams tool calls and reasoning, what happens past its
 * context window), each fact with the source it was read from, so Crow's
 * requests can be tested against each.
 */
import { estimateTokens } from './token-estimate';
import { openaiRules } from './openai-rules';
import { openrouterErrorBody, openrouterRules } from './openrouter-rules';
import { invalidRequest, isObject, type Refusal, type RequestBody, type WireRule } from './wire-rules';

export type ChatServerName = 'openai' | 'azure' | 'openrouter' | 'ollama' | 'llama.cpp' | 'vllm' | 'lmstudio' | 'deepseek' | 'gemini';

/** The servers answering on `/v1/chat/completions` (Azure answers on its deployments' routes instead; see azure-rules.ts). */
export const CHAT_SERVERS: readonly ChatServerName[] = ['openai', 'ollama', 'llama.cpp', 'vllm', 'lmstudio', 'deepseek', 'gemini'];

/** How the server streams what the model produced. */
export interface ChatStreaming {
  /** `fragments`: a call's arguments arrive over several chunks; `whole`: each call in one chunk. */
  toolCalls: 'fragments' | 'whole';
  /** The untyped delta field reasoning streams in. */
  reasoningField: 'reasoning_content' | 'reasoning';
  /** Whether reasoning also streams as signed `reasoning_details` entries (OpenRouter). */
  reasoningDetails?: boolean;
  /** Whether the first tool call of each answer carries a thought signature in `extra_content.google` (Gemini). */
  signsToolCalls?: boolean;
}

/** What a server's rules know beyond the request: what it signed in the answers it sent. */
export interface ChatRuleContext {
  /** By tool call id, the signature of the reasoning the server sent before the call (OpenRouter). */
  signedCalls: ReadonlyMap<string, string>;
  /** By tool call id, the thought signature the server put on the call (Gemini). */
  issuedCallSignatures: ReadonlyMap<string, string>;
}

export interface ChatServerProfile {
  name: ChatServerName;
  /** The context window when a test sets none (tokens, by the fake's estimate). */
  defaultContextWindow: number;
  rules(contextWindow: number, context: ChatRuleContext): WireRule[];
  /** The output cap the server applies to this request, from the fields it reads; undefined = none. */
  outputCap(body: RequestBody): number | undefined;
  streaming: ChatStreaming;
  /**
   * What the server does with a prompt past its window before the rules see
   * it: here, drop the oldest messages until it fits (the rules refuse what
   * still does not). Undefined: nothing, the rules refuse it.
   */
  fitToWindow?(body: RequestBody, contextWindow: number): RequestBody;
  /** The JSON body of an error answer. */
  errorBody(refusal: Refusal): unknown;
}

export function chatPromptTokens(body: RequestBody): number {
  return estimateTokens([body.tools ?? [], body.messages ?? []]);
}

/** `{ error: { message, type, param, code } }`, as OpenAI (and servers copying it) answer errors. */
function openaiErrorBody(refusal: Refusal): unknown {
  return { error: { message: refusal.message, type: refusal.type, param: refusal.param ?? null, code: refusal.code ?? null } };
}

function firstNumber(body: RequestBody, fields: readonly string[]): number | undefined {
  for (const field of fields) {
    const value = body[field];
    if (typeof value === 'number' && Number.isFinite(value)) return value;
  }
  return undefined;
}

function local(server: string, name: string, source: string, check: (body: RequestBody) => Refusal | undefined): WireRule {
  return { name: `${server}/${name}`, source, check };
}

function contextRule(server: string, source: string, window: number, refusal: (tokens: number) => Refusal): WireRule {
  return local(server, 'context-window', source, (body) => {
    const tokens = chatPromptTokens(body);
    return tokens > window ? refusal(tokens) : undefined;
  });
}

const openai: ChatServerProfile = {
  name: 'openai',
  defaultContextWindow: 128_000,
  rules: openaiRules,
  // max_tokens is deprecated in favour of max_completion_tokens, which reasoning models require.
  outputCap: (body) => firstNumber(body, ['max_completion_tokens', 'max_tokens']),
  streaming: { toolCalls: 'fragments', reasoningField: 'reasoning_content' },
  errorBody: openaiErrorBody,
};

/**
 * Ollama (ollama/ollama openai/openai.go, server/prompt.go; docs/api/openai-compatibility.mdx):
 * reads only `max_tokens` (max_completion_tokens and tool_choice are not in
 * its request struct, so they are silently dropped), sends each tool call
 * whole in one chunk, streams reasoning as `reasoning`, and fits a long
 * prompt by silently dropping the oldest messages (always keeping the system
 * messages and the latest one); what still does not fit is refused (since
 * v0.30.10, commit bbb40a0a6).
 */
const ollama: ChatServerProfile = {
  name: 'ollama',
  defaultContextWindow: 4_096,
  rules: (window) => [
    contextRule('ollama', 'ollama/ollama#16712 (server/prompt.go)', window, () =>
      invalidRequest(
        'the prompt is longer than the context length currently available to the model; shorten the prompt, adjust the context length in settings, or use a model with a longer context length',
        { param: null, code: null },
      ),
    ),
  ],
  outputCap: (body) => firstNumber(body, ['max_tokens']),
  streaming: { toolCalls: 'whole', reasoningField: 'reasoning' },
  fitToWindow(body, window) {
    const messages: unknown[] = Array.isArray(body.messages) ? [...body.messages] : [];
    const tokens = (): number => chatPromptTokens({ ...body, messages });
    for (let i = 0; i < messages.length - 1 && tokens() > window; ) {
      if (isObject(messages[i]) && (messages[i] as RequestBody).role === 'system') i++;
      else messages.splice(i, 1);
    }
    return { ...body, messages };
  },
  errorBody: openaiErrorBody,
};

/**
 * llama.cpp's server (ggml-org/llama.cpp tools/server/server-common.cpp, server-context.cpp):
 * reads `n_predict` or `max_tokens` (`max_completion_tokens` only since
 * ggml-org/llama.cpp#19831, 2026-02: older servers ignore it, and so does
 * llama-cpp-python, abetlen/llama-cpp-python#1907), streams argument
 * fragments and `reasoning_content`, and refuses a prompt past its context.
 */
const LLAMA_CPP_SOURCE = 'ggml-org/llama.cpp tools/server/server-common.cpp (oaicompat_chat_params_parse)';
const llamaCpp: ChatServerProfile = {
  name: 'llama.cpp',
  defaultContextWindow: 4_096,
  rules: (window) => [
    local('llama.cpp', 'single-choice', LLAMA_CPP_SOURCE, (body) =>
      body.n !== undefined && body.n !== 1 ? invalidRequest('Only one completion choice is allowed') : undefined,
    ),
    local('llama.cpp', 'tool-choice', LLAMA_CPP_SOURCE, (body) =>
      body.tool_choice === undefined || ['auto', 'none', 'required'].includes(body.tool_choice)
        ? undefined
        : invalidRequest(`Invalid tool_choice: ${JSON.stringify(body.tool_choice)}`),
    ),
    local('llama.cpp', 'message-content', `${LLAMA_CPP_SOURCE}, common/chat.cpp`, (body) => {
      for (const message of Array.isArray(body.messages) ? body.messages : []) {
        if (!isObject(message)) continue;
        const hasContent = message.content !== undefined && message.content !== null;
        if (message.role === 'assistant' && !hasContent && !message.tool_calls?.length) {
          return invalidRequest("Assistant message must contain either 'content' or 'tool_calls'!");
        }
        if (message.role !== 'assistant' && message.content === undefined) return invalidRequest("All non-assistant messages must contain 'content'");
      }
      return undefined;
    }),
    contextRule('llama.cpp', 'ggml-org/llama.cpp tools/server/server-context.cpp (ERROR_TYPE_EXCEED_CONTEXT_SIZE)', window, (tokens) => ({
      ...invalidRequest(`request (${tokens} tokens) exceeds the available context size (${window} tokens), try increasing it`),
      type: 'exceed_context_size_error',
      extra: { n_prompt_tokens: tokens, n_ctx: window },
    })),
  ],
  outputCap: (body) => firstNumber(body, ['n_predict', 'max_tokens']),
  streaming: { toolCalls: 'fragments', reasoningField: 'reasoning_content' },
  errorBody: (refusal) => ({ error: { code: refusal.status, message: refusal.message, type: refusal.type, ...refusal.extra } }),
};

/**
 * vLLM (vllm-project/vllm vllm/entrypoints/openai/chat_completion/protocol.py):
 * reads `max_completion_tokens` (and the deprecated `max_tokens`), validates
 * `stream_options` and `tool_choice`, streams `reasoning` (renamed from
 * `reasoning_content`, vllm#27752 and #33402), and refuses a prompt past
 * its context. Each refusal names its parameter.
 */
const VLLM_SOURCE = 'vllm-project/vllm vllm/entrypoints/openai/chat_completion/protocol.py';
function vllmRefusal(message: string, param: string, value?: unknown): Refusal {
  const detail = value === undefined ? `parameter=${param}` : `parameter=${param}, value=${value}`;
  return { ...invalidRequest(`${message} (${detail})`, { param }), type: 'BadRequestError' };
}
const vllm: ChatServerProfile = {
  name: 'vllm',
  defaultContextWindow: 32_768,
  rules: (window) => [
    local('vllm', 'stream-options', VLLM_SOURCE, (body) =>
      body.stream_options && body.stream !== true ? vllmRefusal('Stream options can only be defined when `stream=True`.', 'stream_options') : undefined,
    ),
    local('vllm', 'tools-non-empty', VLLM_SOURCE, (body) =>
      Array.isArray(body.tools) && body.tools.length === 0
        ? vllmRefusal('`tools` must not be an empty array. Either provide at least one tool or omit the field entirely.', 'tools')
        : undefined,
    ),
    local('vllm', 'tool-choice', VLLM_SOURCE, (body) => {
      const choice = body.tool_choice;
      if (choice === undefined || choice === 'none') return undefined;
      if (!Array.isArray(body.tools)) return vllmRefusal('When using `tool_choice`, `tools` must be set.', 'tool_choice');
      if (choice === 'auto' || choice === 'required') return undefined;
      if (!isObject(choice)) {
        return vllmRefusal(`Invalid value for \`tool_choice\`: ${choice}! Only named tools, "none", "auto" or "required" are supported.`, 'tool_choice');
      }
      const names = body.tools.map((tool: RequestBody) => tool.function?.name);
      return names.includes(choice.function?.name)
        ? undefined
        : vllmRefusal('The tool specified in `tool_choice` does not match any of the specified `tools`', 'tool_choice');
    }),
    contextRule('vllm', 'vllm-project/vllm serving engine (_validate_input)', window, (tokens) =>
      vllmRefusal(
        `This model's maximum context length is ${window} tokens. However, you requested 0 output tokens and your prompt contains at least ${tokens} input tokens, ` +
          `for a total of at least ${tokens} tokens. Please reduce the length of the input prompt or the number of requested output tokens.`,
        'input_tokens',
        tokens,
      ),
    ),
  ],
  outputCap: (body) => firstNumber(body, ['max_completion_tokens', 'max_tokens']),
  streaming: { toolCalls: 'fragments', reasoningField: 'reasoning' },
  errorBody: (refusal) => ({ error: { message: refusal.message, type: refusal.type, param: refusal.param ?? null, code: refusal.status } }),
};

/**
 * LM Studio (lmstudio-ai/docs 1_developer/3_openai-compat; its bug tracker #546, #237):
 * reads `max_tokens` (no `max_completion_tokens` among its payload
 * parameters), streams argument fragments and `reasoning_content`, accepts
 * `tool_choice` auto, none or required, and answers errors as a plain string.
 */
const lmstudio: ChatServerProfile = {
  name: 'lmstudio',
  defaultContextWindow: 4_096,
  rules: (window) => [
    local('lmstudio', 'tool-choice', 'https://lmstudio.ai/docs/developer/openai-compat/tools', (body) =>
      body.tool_choice === undefined || ['auto', 'none', 'required'].includes(body.tool_choice)
        ? undefined
        : invalidRequest(`Invalid tool_choice: ${JSON.stringify(body.tool_choice)}. Expected "auto", "none" or "required".`),
    ),
    contextRule('lmstudio', 'lmstudio-ai/lmstudio-bug-tracker#546 quotes the refusal', window, (tokens) =>
      invalidRequest(
        `Trying to keep the first ${tokens} tokens when context the overflows. However, the model is loaded with context length of only ${window} tokens, ` +
          'which is not enough. Try to load the model with a larger context length, or provide a shorter input.',
      ),
    ),
  ],
  outputCap: (body) => firstNumber(body, ['max_tokens']),
  streaming: { toolCalls: 'fragments', reasoningField: 'reasoning_content' },
  errorBody: (refusal) => ({ error: refusal.message }),
};

/**
 * DeepSeek's API (api-docs.deepseek.com/guides/thinking_mode and the
 * Chat Completion reference): thinking mode is on unless the request sends
 * `thinking: {type: "disabled"}`; it streams reasoning as
 * `reasoning_content`; an assistant message with tool calls must carry its
 * `reasoning_content` back in every later request, or the request is
 * refused ("Tool Calls" section; the message is quoted by
 * AstrBotDevs/AstrBot#4174 and anomalyco/opencode#9397). It reads
 * `max_tokens` and answers errors as OpenAI does.
 */
const DEEPSEEK_THINKING = 'https://api-docs.deepseek.com/guides/thinking_mode#tool-calls';
const deepseek: ChatServerProfile = {
  name: 'deepseek',
  defaultContextWindow: 128_000,
  rules: (window) => [
    local('deepseek', 'reasoning-content-on-tool-turns', DEEPSEEK_THINKING, (body) => {
      if (isObject(body.thinking) && body.thinking.type === 'disabled') return undefined;
      const messages: unknown[] = Array.isArray(body.messages) ? body.messages : [];
      const index = messages.findIndex(
        (message) => isObject(message) && message.role === 'assistant' && Array.isArray(message.tool_calls) && message.tool_calls.length > 0 && typeof message.reasoning_content !== 'string',
      );
      return index < 0
        ? undefined
        : invalidRequest(`Missing reasoning_content field in the assistant message at message index ${index}. For more information, please refer to ${DEEPSEEK_THINKING}`, {
            param: null,
            code: 'invalid_request_error',
          });
    }),
    contextRule('deepseek', 'https://api-docs.deepseek.com/quick_start/error_codes (400 Invalid Format; the context length message is OpenAI\'s)', window, (tokens) =>
      invalidRequest(`This model's maximum context length is ${window} tokens. However, you requested ${tokens} tokens. Please reduce the length of the messages.`, { param: null, code: 'invalid_request_error' }),
    ),
  ],
  outputCap: (body) => firstNumber(body, ['max_tokens']),
  streaming: { toolCalls: 'fragments', reasoningField: 'reasoning_content' },
  errorBody: openaiErrorBody,
};

/**
 * Gemini's OpenAI-compatible endpoint (ai.google.dev/gemini-api/docs/openai
 * and docs/thought-signatures): the first function call of an answer
 * carries a thought signature in `extra_content.google.thought_signature`,
 * which must come back on that call in every request of the current turn
 * (since the last user message): a missing one is refused (the message is
 * quoted by 0xsline/OpenChatCut#6 and TokenRhythm/opensquilla#225), an
 * altered one too ("Corrupted thought signature.", anomalyco/opencode#4832).
 * Function calls arrive whole; errors come as a list of one error object.
 */
const THOUGHT_SIGNATURES = 'https://ai.google.dev/gemini-api/docs/thought-signatures';
function geminiRefusal(message: string): Refusal {
  return { status: 400, type: 'INVALID_ARGUMENT', message };
}
const gemini: ChatServerProfile = {
  name: 'gemini',
  defaultContextWindow: 1_048_576,
  rules: (window, { issuedCallSignatures }) => [
    local('gemini', 'thought-signature', THOUGHT_SIGNATURES, (body) => {
      const messages: unknown[] = Array.isArray(body.messages) ? body.messages : [];
      const turnStart = messages.findLastIndex((message) => isObject(message) && message.role === 'user') + 1;
      for (let m = turnStart; m < messages.length; m++) {
        const message = messages[m];
        if (!isObject(message) || message.role !== 'assistant' || !Array.isArray(message.tool_calls)) continue;
        for (const call of message.tool_calls) {
          const issued = isObject(call) ? issuedCallSignatures.get(call.id) : undefined;
          if (issued === undefined) continue;
          const sent = call.extra_content?.google?.thought_signature;
          if (sent === undefined) {
            return geminiRefusal(
              'Function call is missing a thought_signature in functionCall parts. This is required for tools to work correctly, and missing thought_signature may lead to degraded model performance. ' +
                `Additional data, function call \`default_api:${call.function?.name}\` , position ${m + 1}. Please refer to ${THOUGHT_SIGNATURES} for more details.`,
            );
          }
          if (sent !== issued) return geminiRefusal('Corrupted thought signature.');
        }
      }
      return undefined;
    }),
    contextRule('gemini', 'the Gemini API\'s 400 for a prompt past the model\'s input limit', window, (tokens) =>
      geminiRefusal(`The input token count (${tokens}) exceeds the maximum number of tokens allowed (${window}).`),
    ),
  ],
  outputCap: (body) => firstNumber(body, ['max_completion_tokens', 'max_tokens']),
  streaming: { toolCalls: 'whole', reasoningField: 'reasoning_content', signsToolCalls: true },
  errorBody: (refusal) => [{ error: { code: refusal.status, message: refusal.message, status: refusal.type } }],
};

/**
 * Azure OpenAI: OpenAI's models, so OpenAI's body rules, cap fields and
 * streaming, behind its own route, version parameter and key header
 * (azure-rules.ts). Its deployments are the fake server's `models`.
 */
const azure: ChatServerProfile = { ...openai, name: 'azure' };

/**
 * OpenRouter (openrouter-rules.ts) with an Anthropic model upstream: reads
 * `max_tokens`, streams reasoning as `reasoning` and as `reasoning_details`,
 * and refuses a tool loop that loses the signed reasoning.
 */
const openrouter: ChatServerProfile = {
  name: 'openrouter',
  defaultContextWindow: 200_000,
  rules: (_window, { signedCalls }) => openrouterRules(signedCalls),
  outputCap: (body) => firstNumber(body, ['max_tokens']),
  streaming: { toolCalls: 'fragments', reasoningField: 'reasoning', reasoningDetails: true },
  errorBody: openrouterErrorBody,
};

export const CHAT_SERVER_PROFILES: Record<ChatServerName, ChatServerProfile> = {
  openai,
  azure,
  openrouter,
  ollama,
  'llama.cpp': llamaCpp,
  vllm,
  lmstudio,
  deepseek,
  gemini,
};
