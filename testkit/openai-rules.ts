/**
 * What OpenAI's Chat Completions API refuses, as rules of the strict fake
 * server, with the API's own `message`, `type`, `param` and `code`. Each rule
 * cites where it is documented or where a public report quotes the answer.
 */
import { estimateTokens } from './token-estimate';
import { invalidRequest, isObject, type Refusal, type RequestBody, type WireRule } from './wire-rules';

const API_REFERENCE = 'https://platform.openai.com/docs/api-reference/chat/create';
const REASONING = 'https://platform.openai.com/docs/guides/reasoning';

const TOOL_NAME = /^[a-zA-Z0-9_-]+$/;
const MAX_TOOL_NAME = 64;
const MAX_TOOLS = 128;
const ROLES = ['system', 'developer', 'user', 'assistant', 'tool'];

/** Reasoning models refuse `max_tokens` (and any temperature but 1): the o-series and the gpt-5 family. */
export function isReasoningModel(model: unknown): boolean {
  return typeof model === 'string' && /^(o\d|gpt-5)/.test(model);
}

function rule(name: string, source: string, check: (body: RequestBody) => Refusal | undefined): WireRule {
  return { name: `openai/${name}`, source, check };
}

function messagesOf(body: RequestBody): Record<string, any>[] {
  return Array.isArray(body.messages) ? body.messages.filter(isObject) : [];
}

function toolsOf(body: RequestBody): Record<string, any>[] {
  return Array.isArray(body.tools) ? body.tools.filter(isObject) : [];
}

const chatShapeRules: WireRule[] = [
  rule('model-required', API_REFERENCE, (body) =>
    typeof body.model === 'string' && body.model !== ''
      ? undefined
      : invalidRequest('you must provide a model parameter', { param: null, code: null }),
  ),
  rule('messages-required', API_REFERENCE, (body) =>
    Array.isArray(body.messages) && body.messages.length > 0
      ? undefined
      : invalidRequest("[] is too short - 'messages'", { param: null, code: null }),
  ),
  rule('roles', API_REFERENCE, (body) => {
    const index = messagesOf(body).findIndex((message) => !ROLES.includes(message.role));
    return index < 0
      ? undefined
      : invalidRequest(
          `Invalid value: '${messagesOf(body)[index]!.role}'. Supported values are: 'system', 'assistant', 'user', 'function', 'tool', and 'developer'.`,
          { param: `messages[${index}].role`, code: 'invalid_value' },
        );
  }),
  rule('assistant-content-or-calls', API_REFERENCE, (body) => {
    const index = messagesOf(body).findIndex(
      (message) => message.role === 'assistant' && (message.content === null || message.content === undefined) && !message.tool_calls?.length,
    );
    return index < 0
      ? undefined
      : invalidRequest("Invalid value for 'content': expected a string, got null.", { param: `messages.[${index}].content`, code: null });
  }),
  rule('empty-tool-calls', 'openai/openai-node#1341 quotes the refusal', (body) => {
    const index = messagesOf(body).findIndex((message) => Array.isArray(message.tool_calls) && message.tool_calls.length === 0);
    return index < 0
      ? undefined
      : invalidRequest(`Invalid 'messages[${index}].tool_calls': empty array. Expected an array with minimum length 1, but got an empty array instead.`, {
          param: `messages[${index}].tool_calls`,
          code: 'empty_array',
        });
  }),
  rule('tool-calls-answered', 'aliasrobotics/cai#111, BerriAI/litellm#10083 quote the refusal', (body) => {
    const messages = messagesOf(body);
    for (let m = 0; m < messages.length; m++) {
      const calls: Record<string, any>[] = messages[m]!.role === 'assistant' && Array.isArray(messages[m]!.tool_calls) ? messages[m]!.tool_calls : [];
      if (calls.length === 0) continue;
      const answered = new Set<string>();
      for (let n = m + 1; n < messages.length && messages[n]!.role === 'tool'; n++) answered.add(String(messages[n]!.tool_call_id));
      const missing = calls.map((call) => String(call.id)).filter((id) => !answered.has(id));
      if (missing.length > 0) {
        return invalidRequest(
          "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. " +
            `The following tool_call_ids did not have response messages: ${missing.join(', ')}`,
          { param: 'messages', code: null },
        );
      }
    }
    return undefined;
  }),
  rule('tool-message-follows-call', 'smarter-sh/smarter#264, miurla/morphic#136 quote the refusal', (body) => {
    const messages = messagesOf(body);
    let open = new Set<string>();
    for (let m = 0; m < messages.length; m++) {
      const message = messages[m]!;
      if (message.role === 'tool') {
        if (!open.has(String(message.tool_call_id))) {
          return invalidRequest("Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.", {
            param: `messages.[${m}].role`,
            code: null,
          });
        }
        continue;
      }
      open = new Set(message.role === 'assistant' && Array.isArray(message.tool_calls) ? message.tool_calls.map((call: any) => String(call.id)) : []);
    }
    return undefined;
  }),
];

/** What OpenAI's own API adds to the shared shape rules. */
function openaiOnly(contextWindow: number): WireRule[] {
  return [
    rule('tool-name', 'brekkylab/ailoy#109 (pattern), home-assistant/core#121325 (length) quote the refusals', (body) => {
      const tools = toolsOf(body);
      for (let t = 0; t < tools.length; t++) {
        const name = String(tools[t]!.function?.name ?? '');
        const param = `tools[${t}].function.name`;
        if (!TOOL_NAME.test(name)) {
          return invalidRequest(`Invalid '${param}': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'.`, {
            param,
            code: 'invalid_value',
          });
        }
        if (name.length > MAX_TOOL_NAME) {
          return invalidRequest(
            `Invalid '${param}': string too long. Expected a string with maximum length ${MAX_TOOL_NAME}, but got a string with length ${name.length} instead.`,
            { param, code: 'string_above_max_length' },
          );
        }
      }
      return undefined;
    }),
    rule('tools-count', 'vishalmysore/Tools4AI#16 (too many), continuedev/continue#3370 (empty) quote the refusals', (body) => {
      const count = toolsOf(body).length;
      if (Array.isArray(body.tools) && count === 0) {
        return invalidRequest("Invalid 'tools': empty array. Expected an array with minimum length 1, but got an empty array instead.", {
          param: 'tools',
          code: 'empty_array',
        });
      }
      return count > MAX_TOOLS
        ? invalidRequest(
            `Invalid 'tools': array too long. Expected an array with maximum length ${MAX_TOOLS}, but got an array with length ${count} instead.`,
            { param: 'tools', code: 'array_above_max_length' },
          )
        : undefined;
    }),
    rule('tool-options-need-tools', 'Upsonic/Upsonic#323 and client code quoting openai.BadRequestError', (body) => {
      if (toolsOf(body).length > 0) return undefined;
      const option = ['tool_choice', 'parallel_tool_calls'].find((name) => body[name] !== undefined);
      return option
        ? invalidRequest(`Invalid value for '${option}': '${option}' is only allowed when 'tools' are specified.`, { param: option, code: null })
        : undefined;
    }),
    rule('max-tokens-both', 'langchain-ai/langgraph#5943 quotes the refusal', (body) =>
      body.max_tokens !== undefined && body.max_completion_tokens !== undefined
        ? invalidRequest("Setting 'max_tokens' and 'max_completion_tokens' at the same time is not supported.", {
            param: 'max_tokens',
            code: 'invalid_parameter_combination',
          })
        : undefined,
    ),
    // o1, o3, o4-mini and the gpt-5 family (griptape#312, teilomillet/gollm#33 quote the refusal); gpt-4o and gpt-4.1 accept it.
    rule('max-tokens-reasoning-model', REASONING, (body) =>
      body.max_tokens !== undefined && isReasoningModel(body.model)
        ? invalidRequest("Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.", {
            param: 'max_tokens',
            code: 'unsupported_parameter',
          })
        : undefined,
    ),
    rule('temperature-reasoning-model', REASONING, (body) =>
      body.temperature !== undefined && body.temperature !== 1 && isReasoningModel(body.model)
        ? invalidRequest(
            `Unsupported value: 'temperature' does not support ${body.temperature} with this model. Only the default (1) value is supported.`,
            { param: 'temperature', code: 'unsupported_value' },
          )
        : undefined,
    ),
    rule('stream-options-need-stream', 'BerriAI/litellm#5803 quotes the refusal', (body) =>
      body.stream_options !== undefined && body.stream_options !== null && body.stream !== true
        ? invalidRequest("The 'stream_options' parameter is only allowed when 'stream' is enabled.", { param: 'stream_options', code: null })
        : undefined,
    ),
    rule('context-window', 'crewAIInc/crewAI-examples#121, webtimemachine/wtm2#579 quote the refusal', (body) => {
      const tokens = estimateTokens([body.tools ?? [], body.messages ?? []]);
      return tokens > contextWindow
        ? invalidRequest(
            `This model's maximum context length is ${contextWindow} tokens. However, your messages resulted in ${tokens} tokens. Please reduce the length of the messages.`,
            { param: 'messages', code: 'context_length_exceeded' },
          )
        : undefined;
    }),
  ];
}

/** Every rule of OpenAI's Chat Completions API, in the order it checks them. Tool history without `tools` is accepted. */
export function openaiRules(contextWindow: number): WireRule[] {
  return [...chatShapeRules, ...openaiOnly(contextWindow)];
}
