/**
 * What OpenAI's Responses API (POST /v1/responses) refuses, as rules of the
 * strict fake server, with the API's own status, `message`, `type`, `param`
 * and `code`. Each rule cites the API reference, the SDK's request types, or
 * a public report quoting the answer.
 */
import { isReasoningModel } from './openai-rules';
import { sealedId } from './responses-seal';
import { estimateTokens } from './token-estimate';
import { invalidRequest, isObject, type Refusal, type RequestBody, type WireRule } from './wire-rules';

const API_REFERENCE = 'https://platform.openai.com/docs/api-reference/responses/create';
const REASONING = 'https://platform.openai.com/docs/guides/reasoning ("Keeping reasoning items in context", "Encrypted reasoning items")';

/** The request fields of POST /v1/responses (openai-node 6.49, ResponseCreateParamsBase); any other is refused. */
const REQUEST_FIELDS = new Set([
  'background', 'context_management', 'conversation', 'include', 'input', 'instructions', 'max_output_tokens', 'max_tool_calls',
  'metadata', 'model', 'moderation', 'parallel_tool_calls', 'previous_response_id', 'prompt', 'prompt_cache_key', 'prompt_cache_options',
  'prompt_cache_retention', 'reasoning', 'safety_identifier', 'service_tier', 'store', 'stream', 'stream_options', 'temperature', 'text',
  'tool_choice', 'tools', 'top_logprobs', 'top_p', 'truncation', 'user',
]);
/** A reasoning input item's fields (ResponseReasoningItem); `status` is output-only. */
const REASONING_ITEM_FIELDS = new Set(['type', 'id', 'summary', 'content', 'encrypted_content']);
const EFFORTS = ['none', 'minimal', 'low', 'medium', 'high', 'xhigh'];
const MIN_OUTPUT_TOKENS = 16;
const TOOL_NAME = /^[a-zA-Z0-9_-]+$/;

/** A function call the server sent right after a reasoning item: the items' ids. */
export interface IssuedCall {
  itemId: string;
  reasoningId: string;
}

export interface ResponsesRuleOptions {
  contextWindow: number;
  /** By call_id, the function calls this server issued after a reasoning item (recorded as replies are sent). */
  issuedCalls: ReadonlyMap<string, IssuedCall>;
}

function rule(name: string, source: string, check: (body: RequestBody) => Refusal | undefined): WireRule {
  return { name: `openai-responses/${name}`, source, check };
}

/** The input as items; a string input is one user message. */
export function inputItems(body: RequestBody): Record<string, any>[] {
  if (typeof body.input === 'string') return [{ type: 'message', role: 'user', content: body.input }];
  return Array.isArray(body.input) ? body.input.filter(isObject) : [];
}

/** An item's type: a message may leave `type` out (EasyInputMessage). */
function kindOf(item: Record<string, any>): string {
  return typeof item.type === 'string' ? item.type : 'message';
}

const isAssistantOutput = (item: Record<string, any> | undefined): boolean =>
  item !== undefined && (kindOf(item) === 'function_call' || (kindOf(item) === 'message' && item.role === 'assistant'));

const inputError = (message: string, code: string | null = null): Refusal => invalidRequest(message, { param: 'input', code });

const shapeRules: WireRule[] = [
  rule('unknown-parameter', `${API_REFERENCE}; the refusal as quoted in pydantic/pydantic-ai#3653`, (body) => {
    const unknown = Object.keys(body).find((key) => !REQUEST_FIELDS.has(key));
    return unknown === undefined ? undefined : invalidRequest(`Unknown parameter: '${unknown}'.`, { param: unknown, code: 'unknown_parameter' });
  }),
  rule('model-required', API_REFERENCE, (body) =>
    typeof body.model === 'string' && body.model !== '' ? undefined : invalidRequest('Missing required parameter: \'model\'.', { param: 'model', code: 'missing_required_parameter' }),
  ),
  rule('max-output-tokens-minimum', `${API_REFERENCE}; the refusal as quoted in vectorize-io/hindsight#58`, (body) => {
    const cap = body.max_output_tokens;
    return typeof cap === 'number' && cap < MIN_OUTPUT_TOKENS
      ? invalidRequest(`Invalid 'max_output_tokens': integer below minimum value. Expected a value >= ${MIN_OUTPUT_TOKENS}, but got ${cap} instead.`, {
          param: 'max_output_tokens',
          code: 'integer_below_min_value',
        })
      : undefined;
  }),
  rule('reasoning-item-fields', 'openai-node ResponseReasoningItem (status is output-only); the refusal as quoted in 1jehuang/jcode#1028', (body) => {
    const items = inputItems(body);
    for (let i = 0; i < items.length; i++) {
      if (kindOf(items[i]!) !== 'reasoning') continue;
      const unknown = Object.keys(items[i]!).find((key) => !REASONING_ITEM_FIELDS.has(key));
      if (unknown !== undefined) return invalidRequest(`Unknown parameter: 'input[${i}].${unknown}'.`, { param: `input[${i}].${unknown}`, code: 'unknown_parameter' });
      if (!Array.isArray(items[i]!.summary)) {
        return invalidRequest(`Missing required parameter: 'input[${i}].summary'.`, { param: `input[${i}].summary`, code: 'missing_required_parameter' });
      }
    }
    return undefined;
  }),
];

/** Reasoning items as a client keeping its own history (store: false) must send them back. */
function reasoningRules(issuedCalls: ReadonlyMap<string, IssuedCall>): WireRule[] {
  return [
    rule('reasoning-not-stored', `${REASONING}; the 404 as quoted in can1357/oh-my-pi#41 and anomalyco/opencode#7724`, (body) => {
      if (body.store !== false) return undefined;
      const item = inputItems(body).find((candidate) => kindOf(candidate) === 'reasoning' && typeof candidate.encrypted_content !== 'string');
      return item === undefined
        ? undefined
        : {
            status: 404,
            type: 'invalid_request_error',
            message: `Item with id '${item.id}' not found. Items are not persisted when \`store\` is set to false. Try again with \`store\` set to true, or remove this item from your input.`,
            param: 'input',
            code: null,
          };
    }),
    rule('encrypted-content-verified', `${REASONING}; the refusal as quoted in openai/codex#8145 and smallmain/vscode-unify-chat-provider#178`, (body) => {
      const item = inputItems(body).find(
        (candidate) => kindOf(candidate) === 'reasoning' && typeof candidate.encrypted_content === 'string' && sealedId(candidate.encrypted_content) !== candidate.id,
      );
      return item === undefined
        ? undefined
        : invalidRequest(`The encrypted content for item ${item.id} could not be verified. Reason: Encrypted content could not be decrypted or parsed.`, {
            param: null,
            code: 'invalid_encrypted_content',
          });
    }),
    rule('reasoning-needs-following-item', `${REASONING}; the refusal as quoted in continuedev/continue#8933 and openai/openai-node#1567`, (body) => {
      const items = inputItems(body);
      const index = items.findIndex((item, i) => kindOf(item) === 'reasoning' && !isAssistantOutput(items[i + 1]));
      return index < 0 ? undefined : inputError(`Item '${items[index]!.id}' of type 'reasoning' was provided without its required following item.`);
    }),
    // The API ties a function call to its reasoning by item id; Crow sends no item ids, so the fake ties them by call_id, which is stricter.
    rule('function-call-needs-reasoning', `${REASONING}; the refusal as quoted in cline/cline#12242 and mastra-ai/mastra#8738`, (body) => {
      const items = inputItems(body);
      for (let i = 0; i < items.length; i++) {
        const issued = kindOf(items[i]!) === 'function_call' ? issuedCalls.get(String(items[i]!.call_id)) : undefined;
        if (!issued || reasoningBefore(items, i, issued.reasoningId)) continue;
        return inputError(`Item '${issued.itemId}' of type 'function_call' was provided without its required 'reasoning' item: '${issued.reasoningId}'.`);
      }
      return undefined;
    }),
  ];
}

/** Whether the reasoning item `id` comes before item `index` within the same model turn (only output items between). */
function reasoningBefore(items: Record<string, any>[], index: number, id: string): boolean {
  for (let i = index - 1; i >= 0; i--) {
    const item = items[i]!;
    if (kindOf(item) === 'reasoning' && item.id === id) return true;
    if (kindOf(item) !== 'reasoning' && !isAssistantOutput(item)) return false;
  }
  return false;
}

const toolCallRules: WireRule[] = [
  rule('function-call-output-has-call', `${API_REFERENCE}; the refusal as quoted in microsoft/vscode#320060 and continuedev/continue#10092`, (body) => {
    const items = inputItems(body);
    const calls = new Set<string>();
    for (const item of items) {
      if (kindOf(item) === 'function_call') calls.add(String(item.call_id));
      if (kindOf(item) === 'function_call_output' && !calls.has(String(item.call_id))) {
        return inputError(`No tool call found for function call output with call_id ${item.call_id}.`);
      }
    }
    return undefined;
  }),
  rule('function-call-answered', `${API_REFERENCE}; the refusal as quoted in anomalyco/opencode#16717 and Azure/azure-sdk-for-python#46092`, (body) => {
    const items = inputItems(body);
    const answered = new Set(items.filter((item) => kindOf(item) === 'function_call_output').map((item) => String(item.call_id)));
    const open = items.find((item) => kindOf(item) === 'function_call' && !answered.has(String(item.call_id)));
    return open === undefined ? undefined : inputError(`No tool output found for function call ${open.call_id}.`);
  }),
  rule('tool-name', 'https://platform.openai.com/docs/guides/function-calling (names: a-z, A-Z, 0-9, _ and -)', (body) => {
    const tools: Record<string, any>[] = Array.isArray(body.tools) ? body.tools.filter(isObject) : [];
    const index = tools.findIndex((tool) => tool.type === 'function' && !TOOL_NAME.test(String(tool.name ?? '')));
    return index < 0
      ? undefined
      : invalidRequest(`Invalid 'tools[${index}].name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'.`, {
          param: `tools[${index}].name`,
          code: 'invalid_value',
        });
  }),
  rule('strict-schema', 'https://platform.openai.com/docs/guides/function-calling ("Strict mode": every object closed, every property required)', (body) => {
    const tools: Record<string, any>[] = Array.isArray(body.tools) ? body.tools.filter(isObject) : [];
    for (let t = 0; t < tools.length; t++) {
      const tool = tools[t]!;
      if (tool.type !== 'function' || tool.strict !== true) continue;
      const problem = strictProblem(tool.parameters);
      if (problem) {
        return invalidRequest(`Invalid schema for function '${tool.name}': In context=(), ${problem}.`, { param: `tools[${t}].parameters`, code: 'invalid_function_parameters' });
      }
    }
    return undefined;
  }),
];

/** What a strict function's top-level schema lacks, or undefined. */
function strictProblem(schema: unknown): string | undefined {
  if (!isObject(schema)) return undefined;
  if (schema.additionalProperties !== false) return "'additionalProperties' is required to be supplied and to be false";
  const properties = Object.keys(isObject(schema.properties) ? schema.properties : {});
  const required = new Set(Array.isArray(schema.required) ? schema.required : []);
  const missing = properties.find((name) => !required.has(name));
  return missing === undefined ? undefined : `'required' is required to be supplied and to be an array including every key in properties. Missing '${missing}'`;
}

function modelRules(contextWindow: number): WireRule[] {
  return [
    rule('reasoning-effort', `${API_REFERENCE} (reasoning.effort)`, (body) => {
      const effort = body.reasoning?.effort;
      return effort === undefined || effort === null || EFFORTS.includes(effort)
        ? undefined
        : invalidRequest(`Invalid value: '${effort}'. Supported values are: ${EFFORTS.map((value) => `'${value}'`).join(', ')}.`, {
            param: 'reasoning.effort',
            code: 'invalid_value',
          });
    }),
    rule('reasoning-needs-reasoning-model', REASONING, (body) =>
      isObject(body.reasoning) && body.reasoning.effort !== undefined && !isReasoningModel(body.model)
        ? invalidRequest("Unsupported parameter: 'reasoning.effort' is not supported with this model.", { param: 'reasoning.effort', code: 'unsupported_parameter' })
        : undefined,
    ),
    rule('temperature-reasoning-model', REASONING, (body) =>
      body.temperature !== undefined && body.temperature !== 1 && isReasoningModel(body.model)
        ? invalidRequest("Unsupported parameter: 'temperature' is not supported with this model.", { param: 'temperature', code: 'unsupported_parameter' })
        : undefined,
    ),
    rule('context-window', `${API_REFERENCE}; code context_length_exceeded (platform.openai.com/docs/guides/error-codes)`, (body) => {
      const tokens = responsesPromptTokens(body);
      return tokens > contextWindow
        ? invalidRequest('Your input exceeds the context window of this model. Please adjust your input and try again.', { param: 'input', code: 'context_length_exceeded' })
        : undefined;
    }),
  ];
}

export function responsesPromptTokens(body: RequestBody): number {
  return estimateTokens([body.instructions ?? '', body.tools ?? [], body.input ?? []]);
}

/** Every rule of the Responses API, in the order the fake checks them. */
export function responsesRules(options: ResponsesRuleOptions): WireRule[] {
  return [...shapeRules, ...reasoningRules(options.issuedCalls), ...toolCallRules, ...modelRules(options.contextWindow)];
}
