import type {
  CacheControlEphemeral,
  ContentBlockParam,
  MessageCreateParamsStreaming,
  MessageParam,
  Tool,
} from '@anthropic-ai/sdk/resources/messages';
import { ImageAdmission } from './anthropic-images';
import { fitOutput } from './model-capabilities';
import type { AssistantBlock, LlmRequest, Message, ToolResultItem, ToolSpec, UserBlock } from './types';
import { clipCounted } from '../vocabulary/text';

/** The Messages API requires max_tokens; this is ours when nobody sets one. */
const DEFAULT_ANTHROPIC_MAX_TOKENS = 8192;

/** How much of a malformed call's arguments is echoed back to the model. */
const MAX_ECHOED_ARGUMENTS = 2000;

const EPHEMERAL: CacheControlEphemeral = { type: 'ephemeral' };


export interface AnthropicFormatOptions {
  model: string;
  /** Used when the request sets no maxOutputTokens. */
  defaultMaxTokens?: number;
  /** The most output tokens the model takes (thinking included); undefined: none known. */
  outputCap?: number;
}

/**
 * Translates a provider-neutral request into a streaming Messages API call.
 * Prompt-cache breakpoints go on the system prompt, the last tool and the last
 * message block, so each turn reuses the previous turn's cached prefix.
 */
export function toAnthropicParams(request: LlmRequest, options: AnthropicFormatOptions): MessageCreateParamsStreaming {
  const messages = toAnthropicMessages(request.messages);
  const asked = request.thinkingBudget ?? 0;
  const thinking = asked > 0 && thinkingLeadsToolLoop(messages);
  const answer = request.maxOutputTokens ?? options.defaultMaxTokens ?? DEFAULT_ANTHROPIC_MAX_TOKENS;
  // max_tokens covers thinking too, must exceed the budget, and may not pass the model's cap (see fitOutput).
  const { maxTokens, budget } = fitOutput(answer, thinking ? asked : 0, options.outputCap);
  const params: MessageCreateParamsStreaming = { model: options.model, max_tokens: maxTokens, messages, stream: true };
  if (request.system) params.system = [{ type: 'text', text: request.system, cache_control: EPHEMERAL }];
  if (request.tools.length > 0) params.tools = toAnthropicTools(request.tools);
  if (request.toolChoice === 'none' && params.tools) params.tool_choice = { type: 'none' };
  if (thinking) params.thinking = { type: 'enabled', budget_tokens: budget };
  return params;
}

/**
 * With thinking on, the API requires the assistant message whose tool calls
 * are being answered to open with its thinking block. One without (its
 * thinking was cut off, or it came from another provider or from a turn
 * without thinking) can only be sent with thinking off, as the API's own
 * error message advises; the next step has thinking again.
 */
function thinkingLeadsToolLoop(messages: MessageParam[]): boolean {
  const [assistant, results] = messages.slice(-2);
  if (assistant?.role !== 'assistant' || results?.role !== 'user' || !Array.isArray(assistant.content)) return true;
  if (!assistant.content.some((block) => block.type === 'tool_use')) return true;
  const first = assistant.content[0];
  return first?.type === 'thinking' || first?.type === 'redacted_thinking';
}

function toAnthropicTools(tools: ToolSpec[]): Tool[] {
  const converted: Tool[] = tools.map((tool) => ({
    name: tool.name,
    description: tool.description,
    input_schema: { ...tool.inputSchema, type: 'object' },
  }));
  converted[converted.length - 1]!.cache_control = EPHEMERAL;
  return converted;
}

/**
 * Converts the history. Tool results become user messages, and consecutive
 * messages of one role merge, since the API requires user and assistant to
 * alternate: a user message that follows tool results lands after the
 * tool_result blocks, where the API expects them.
 */
export function toAnthropicMessages(history: Message[]): MessageParam[] {
  const malformedArguments = findMalformedArguments(history);
  const images = new ImageAdmission(history);
  const messages: MessageParam[] = [];
  for (const message of history) {
    const [role, content] = convertMessage(message, malformedArguments, images);
    if (content.length === 0) continue;
    const previous = messages[messages.length - 1];
    if (previous?.role === role && Array.isArray(previous.content)) previous.content.push(...content);
    else messages.push({ role, content });
  }
  endWithoutTrailingWhitespace(messages);
  markLastBlockForCaching(messages);
  return messages;
}

function convertMessage(
  message: Message,
  malformedArguments: Map<string, string>,
  images: ImageAdmission,
): ['user' | 'assistant', ContentBlockParam[]] {
  switch (message.role) {
    case 'user':
      return ['user', message.content.flatMap((block) => userBlock(block, images))];
    case 'assistant':
      return ['assistant', message.content.flatMap(assistantBlock)];
    case 'tool_results':
      return ['user', message.results.map((result) => toolResultBlock(result, malformedArguments.get(result.callId), images))];
  }
}

/** The API refuses text blocks that are empty or only whitespace, so they are left out. */
function textBlock(text: string): ContentBlockParam[] {
  return text.trim() ? [{ type: 'text', text }] : [];
}

function userBlock(block: UserBlock, images: ImageAdmission): ContentBlockParam[] {
  if (block.type === 'image') return [images.admit(block)];
  return textBlock(block.text);
}

/**
 * A conversation may end with an assistant message (continuing a paused
 * turn); the API refuses one whose last text ends in whitespace.
 */
function endWithoutTrailingWhitespace(messages: MessageParam[]): void {
  const last = messages[messages.length - 1];
  if (last?.role !== 'assistant' || !Array.isArray(last.content)) return;
  const block = last.content[last.content.length - 1];
  if (block?.type === 'text') block.text = block.text.trimEnd();
}

/**
 * Thinking without a signature (cut off mid-stream, or produced by another
 * provider) would be rejected, so it is left out; so is text of whitespace only.
 */
function assistantBlock(block: AssistantBlock): ContentBlockParam[] {
  switch (block.type) {
    case 'text':
      return textBlock(block.text);
    case 'thinking':
      return block.signature ? [{ type: 'thinking', thinking: block.text, signature: block.signature }] : [];
    case 'redacted_thinking':
      // Other providers' reasoning kept in this block (Responses items, OpenRouter details) is JSON, which Anthropic's data never is.
      return block.data.startsWith('{') ? [] : [{ type: 'redacted_thinking', data: block.data }];
    case 'tool_call':
      return [{ type: 'tool_use', id: block.id, name: block.name, input: parseToolInput(block.arguments) ?? {} }];
  }
}

/** The call's input object (empty arguments mean none), or undefined when they are not a JSON object. */
function parseToolInput(raw: string): Record<string, unknown> | undefined {
  if (raw.trim() === '') return {};
  try {
    const value: unknown = JSON.parse(raw);
    const isObject = typeof value === 'object' && value !== null && !Array.isArray(value);
    return isObject ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** Raw arguments of calls whose input cannot be replayed as an object, by call id. */
function findMalformedArguments(history: Message[]): Map<string, string> {
  const malformed = new Map<string, string>();
  for (const message of history) {
    if (message.role !== 'assistant') continue;
    for (const block of message.content) {
      if (block.type === 'tool_call' && parseToolInput(block.arguments) === undefined) {
        malformed.set(block.id, block.arguments);
      }
    }
  }
  return malformed;
}

/**
 * A call with malformed arguments is replayed with input `{}`; its result
 * then says what the model actually sent, so it does not learn that `{}` failed.
 */
function toolResultBlock(result: ToolResultItem, malformedArguments: string | undefined, images: ImageAdmission): ContentBlockParam {
  const content =
    malformedArguments === undefined
      ? result.content
      : `(Your arguments for this call were not a valid JSON object, so they are shown as {}. ` +
        `You sent: ${clipCounted(malformedArguments, MAX_ECHOED_ARGUMENTS)})\n${result.content}`;
  if (!result.images?.length) return { type: 'tool_result', tool_use_id: result.callId, content, is_error: result.isError };
  const blocks = [{ type: 'text' as const, text: content }, ...result.images.map((image) => images.admit(image))];
  return {
    type: 'tool_result',
    tool_use_id: result.callId,
    content: blocks as Extract<ContentBlockParam, { type: 'tool_result' }>['content'],
    is_error: result.isError,
  };
}


/** Only the block kinds this converter produces are marked; thinking cannot carry cache_control. */
function markLastBlockForCaching(messages: MessageParam[]): void {
  const content = messages[messages.length - 1]?.content;
  const last = Array.isArray(content) ? content[content.length - 1] : undefined;
  if (last?.type === 'text' || last?.type === 'image' || last?.type === 'tool_use' || last?.type === 'tool_result') {
    last.cache_control = EPHEMERAL;
  }
}
