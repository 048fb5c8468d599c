/**
 * The request side of OpenAI's Responses API (POST /v1/responses): Crow's
 * provider-neutral history as input items, its tools as function tools, and
 * the thinking budget as a reasoning effort.
 *
 * Crow keeps the conversation itself and sends `store: false`, so nothing
 * lives on OpenAI's side between requests. A reasoning model's reasoning
 * then survives a tool turn only as the reasoning item it returned, with
 * `encrypted_content` (asked for by `include`), sent back unchanged and
 * before the function call it came with
 * (platform.openai.com/docs/guides/reasoning, "Keeping reasoning items in
 * context"). Crow's history carries that item whole, as JSON, in a
 * `redacted_thinking` block (see reasoningItemBlock).
 */
import type {
  FunctionTool,
  ResponseCreateParamsStreaming,
  ResponseInputContent,
  ResponseInputItem,
  ResponseReasoningItem,
} from 'openai/resources/responses/responses';
import type { ReasoningEffort } from 'openai/resources/shared';
import { cappedOutput } from './model-capabilities';
import { isOpenAIReasoningModel } from './openai-flavor';
import type { AssistantBlock, ImageBlock, LlmRequest, Message, RedactedThinkingBlock, ToolResultItem, ToolSpec, UserBlock } from './types';

export interface ResponsesFormatOptions {
  model: string;
  /** Used when the request sets no maxOutputTokens; absent = the server's default. */
  maxOutputTokens?: number;
  /** The most output tokens the model produces: no cap asked for goes past it. */
  outputCap?: number;
}

/** The fewest output tokens the API takes ("integer below minimum value. Expected a value >= 16"). */
export const MIN_OUTPUT_TOKENS = 16;

/** The fields of a reasoning item that go back as input; `status` is output-only and refused there ("Unknown parameter: 'input[n].status'"). */
const REASONING_INPUT_FIELDS = ['type', 'id', 'summary', 'content', 'encrypted_content'] as const;

/**
 * A reasoning item as the block Crow's history keeps it: its input fields as
 * JSON, unchanged. The JSON starts with `{"type":"reasoning"`, which no
 * Anthropic redacted_thinking `data` does (see isReasoningItemData).
 */
export function reasoningItemBlock(item: ResponseReasoningItem): RedactedThinkingBlock {
  const kept: Record<string, unknown> = {};
  for (const field of REASONING_INPUT_FIELDS) if (item[field] !== undefined && item[field] !== null) kept[field] = item[field];
  kept.summary ??= [];
  return { type: 'redacted_thinking', data: JSON.stringify(kept) };
}

/** Whether a redacted_thinking block's `data` is a Responses reasoning item (as opposed to Anthropic's encrypted thinking). */
export function isReasoningItemData(data: string): boolean {
  return data.startsWith('{"type":"reasoning"');
}

/** The reasoning item a block holds, or undefined when it holds something else (another provider's redacted thinking, or damaged JSON). */
function reasoningItemOf(block: RedactedThinkingBlock): ResponseReasoningItem | undefined {
  if (!isReasoningItemData(block.data)) return undefined;
  try {
    const item = JSON.parse(block.data) as ResponseReasoningItem;
    return typeof item.id === 'string' && Array.isArray(item.summary) ? item : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Whether the model reasons, so that its reasoning items are asked for: an
 * OpenAI reasoning model by name, or any model the request gives a thinking
 * budget. Other models refuse the reasoning parameters.
 */
function reasons(request: LlmRequest, model: string): boolean {
  return isOpenAIReasoningModel(model) || (request.thinkingBudget ?? 0) > 0;
}

/** The effort a thinking budget (in tokens) comes closest to; the API takes no budget. */
export function effortFor(budget: number): ReasoningEffort {
  if (budget <= 4_096) return 'low';
  if (budget <= 16_384) return 'medium';
  return 'high';
}

export function toResponsesParams(request: LlmRequest, options: ResponsesFormatOptions): ResponseCreateParamsStreaming {
  const params: ResponseCreateParamsStreaming = {
    model: options.model,
    input: toResponsesInput(request.messages),
    stream: true,
    store: false,
  };
  if (request.system) params.instructions = request.system;
  if (request.tools.length > 0) {
    params.tools = request.tools.map(toFunctionTool);
    if (request.toolChoice === 'none') params.tool_choice = 'none';
  }
  const maxOutputTokens = cappedOutput(request.maxOutputTokens ?? options.maxOutputTokens, options.outputCap);
  if (maxOutputTokens !== undefined) params.max_output_tokens = Math.max(MIN_OUTPUT_TOKENS, maxOutputTokens);
  if (request.temperature !== undefined) params.temperature = request.temperature;
  if (reasons(request, options.model)) {
    params.include = ['reasoning.encrypted_content'];
    const budget = request.thinkingBudget ?? 0;
    // Summaries are asked for only when thinking is wanted: they need a verified organization on some models.
    if (budget > 0) params.reasoning = { effort: effortFor(budget), summary: 'auto' };
  }
  return params;
}

/**
 * `strict: false` keeps the schema as written: left out, the Responses API
 * makes a function strict, turning every optional argument into a required
 * one (function-calling guide, "Strict mode").
 */
function toFunctionTool(tool: ToolSpec): FunctionTool {
  return { type: 'function', name: tool.name, description: tool.description, parameters: tool.inputSchema, strict: false };
}

export function toResponsesInput(history: readonly Message[]): ResponseInputItem[] {
  const items: ResponseInputItem[] = [];
  for (const message of history) {
    switch (message.role) {
      case 'user':
        items.push({ type: 'message', role: 'user', content: message.content.map(inputContent) });
        break;
      case 'assistant':
        items.push(...assistantItems(message.content));
        break;
      case 'tool_results':
        items.push(...message.results.map(functionCallOutput));
        items.push(...toolImages(message.results));
        break;
    }
  }
  return items;
}

function inputContent(block: UserBlock): ResponseInputContent {
  if (block.type === 'text') return { type: 'input_text', text: block.text };
  return inputImage(block);
}

function inputImage(image: ImageBlock): ResponseInputContent {
  return { type: 'input_image', image_url: `data:${image.mimeType};base64,${image.data}`, detail: 'auto' };
}

/**
 * One assistant turn as output items, in the order the model produced them.
 * Thinking text is not sent (the reasoning item holds its summary); a
 * reasoning item goes back only when a function call or message follows it
 * in the same turn, as the API requires ("provided without its required
 * following item"): a turn cut off after its reasoning leaves it behind.
 */
function assistantItems(blocks: readonly AssistantBlock[]): ResponseInputItem[] {
  const items: ResponseInputItem[] = [];
  let reasoning: ResponseReasoningItem | undefined;
  const follow = (item: ResponseInputItem): void => {
    if (reasoning) items.push(reasoning);
    reasoning = undefined;
    items.push(item);
  };
  for (const block of blocks) {
    switch (block.type) {
      case 'redacted_thinking':
        reasoning = reasoningItemOf(block) ?? reasoning;
        break;
      case 'text':
        if (block.text) follow({ type: 'message', role: 'assistant', content: block.text });
        break;
      case 'tool_call':
        follow({ type: 'function_call', call_id: block.id, name: block.name, arguments: block.arguments });
        break;
      case 'thinking':
        break;
    }
  }
  return items;
}

/** The output has no error flag; the session already labels failed results in their text. */
function functionCallOutput(result: ToolResultItem): ResponseInputItem {
  return { type: 'function_call_output', call_id: result.callId, output: result.content };
}

/** Images a tool returned follow its output in one user message, as on Chat Completions. */
function toolImages(results: readonly ToolResultItem[]): ResponseInputItem[] {
  const content = results.flatMap((result) =>
    (result.images ?? []).flatMap((image): ResponseInputContent[] => [{ type: 'input_text', text: `Image returned by tool call ${result.callId}:` }, inputImage(image)]),
  );
  return content.length > 0 ? [{ type: 'message', role: 'user', content }] : [];
}
