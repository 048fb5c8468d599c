/**
 * The messages VS Code's language-model API hands a chat provider, turned into
 * our LlmRequest, and our responses turned back into tool calls VS Code can
 * carry. No `vscode` import: VS Code's part objects arrive as they are and are
 * read by their shape, so this conversion runs, and is tested, in plain Node.
 */
import { type AssistantBlock, type AssistantResponse, type ImageBlock, isCutOff, type LlmRequest, type Message, type ToolResultItem, type ToolSpec, type UserBlock } from '../../llm/types';

/**
 * LanguageModelChatMessageRole. System (3) is still a proposal in VS Code's
 * API, but hosts that have it send the system prompt with it.
 */
export const LM_ROLE = { user: 1, assistant: 2, system: 3 } as const;

/** LanguageModelChatRequestMessage as plain data: `content` holds VS Code part objects (or a bare string). */
export interface LmRequestMessage {
  readonly role: number;
  readonly content: string | readonly unknown[];
  readonly name?: string | undefined;
}

/** LanguageModelChatTool: a tool the caller offers the model. */
export interface LmTool {
  readonly name: string;
  readonly description: string;
  readonly inputSchema?: object | undefined;
}

/** A VS Code input part, recognised by its shape. */
export type LmPart =
  /** LanguageModelTextPart */
  | { kind: 'text'; text: string }
  /** LanguageModelToolCallPart: a call the model made earlier in the conversation. */
  | { kind: 'tool_call'; callId: string; name: string; input: unknown }
  /** LanguageModelToolResultPart: its content is more parts (text, data, prompt-tsx); newer hosts add `isError`. */
  | { kind: 'tool_result'; callId: string; content: readonly unknown[]; isError: boolean }
  /** LanguageModelDataPart: an image, or text/JSON bytes, or a marker some callers add (e.g. cache hints). */
  | { kind: 'data'; mimeType: string; data: Uint8Array }
  /** LanguageModelPromptTsxPart: a rendered @vscode/prompt-tsx tree, which tools may return. */
  | { kind: 'prompt_tsx'; value: object };

/** A tool call for LanguageModelToolCallPart. */
export interface LmToolCall {
  callId: string;
  name: string;
  input: object;
}

export interface LlmRequestOptions {
  tools?: readonly LmTool[] | undefined;
  /** Images the model cannot see are replaced by a note saying so. */
  supportsImages: boolean;
}

/** LanguageModelPartAudience.Assistant: parts whose audience leaves it out are for the user's eyes only. */
const AUDIENCE_ASSISTANT = 0;

/**
 * Reads a VS Code part by its fields; undefined for parts the model should
 * not get: unknown kinds, parts addressed to the user only, and thinking
 * from earlier answers (LanguageModelThinkingPart: a value with `id` and
 * `metadata`), which the APIs would reject without the vendor's signature.
 */
export function readPart(part: unknown): LmPart | undefined {
  if (typeof part === 'string') return { kind: 'text', text: part };
  if (typeof part !== 'object' || part === null) return undefined;
  const fields = part as Record<string, unknown>;
  if (Array.isArray(fields.audience) && !fields.audience.includes(AUDIENCE_ASSISTANT)) return undefined;
  if (typeof fields.callId === 'string') {
    if (typeof fields.name === 'string' && 'input' in fields) {
      return { kind: 'tool_call', callId: fields.callId, name: fields.name, input: fields.input };
    }
    if (Array.isArray(fields.content)) {
      return { kind: 'tool_result', callId: fields.callId, content: fields.content, isError: fields.isError === true };
    }
    return undefined;
  }
  if (typeof fields.mimeType === 'string' && fields.data instanceof Uint8Array) {
    return { kind: 'data', mimeType: fields.mimeType, data: fields.data };
  }
  if ('id' in fields || 'metadata' in fields) return undefined;
  if (typeof fields.value === 'string') return { kind: 'text', text: fields.value };
  if (typeof fields.value === 'object' && fields.value !== null) return { kind: 'prompt_tsx', value: fields.value };
  return undefined;
}

/**
 * The request for our provider. System messages join into the system prompt;
 * a user message's tool results go first, as their own `tool_results`
 * message, since the APIs want them right after the calls they answer.
 */
export function toLlmRequest(messages: readonly LmRequestMessage[], options: LlmRequestOptions): LlmRequest {
  const system: string[] = [];
  const history: Message[] = [];
  for (const message of messages) {
    const parts = partsOf(message.content);
    switch (message.role) {
      case LM_ROLE.system:
        system.push(textOf(parts));
        break;
      case LM_ROLE.assistant:
        history.push(...assistantMessage(parts));
        break;
      default:
        history.push(...userMessages(parts, options.supportsImages));
    }
  }
  return {
    system: system.filter((text) => text !== '').join('\n\n'),
    messages: history,
    tools: (options.tools ?? []).map(toToolSpec),
  };
}

function partsOf(content: string | readonly unknown[]): LmPart[] {
  if (typeof content === 'string') return content ? [{ kind: 'text', text: content }] : [];
  return content.flatMap((part) => readPart(part) ?? []);
}

function assistantMessage(parts: LmPart[]): Message[] {
  const content = parts.flatMap((part): AssistantBlock[] => {
    if (part.kind === 'text') return part.text ? [{ type: 'text', text: part.text }] : [];
    if (part.kind === 'tool_call') {
      return [{ type: 'tool_call', id: part.callId, name: part.name, arguments: JSON.stringify(part.input ?? {}) }];
    }
    return [];
  });
  return content.length > 0 ? [{ role: 'assistant', content }] : [];
}

function userMessages(parts: LmPart[], supportsImages: boolean): Message[] {
  const results: ToolResultItem[] = [];
  const content: UserBlock[] = [];
  for (const part of parts) {
    if (part.kind === 'tool_result') results.push(toolResult(part, supportsImages));
    else content.push(...userBlocks(part, supportsImages));
  }
  const messages: Message[] = [];
  if (results.length > 0) messages.push({ role: 'tool_results', results });
  if (content.length > 0) messages.push({ role: 'user', content });
  return messages;
}

function userBlocks(part: LmPart, supportsImages: boolean): UserBlock[] {
  switch (part.kind) {
    case 'text':
      return part.text ? [{ type: 'text', text: part.text }] : [];
    case 'data':
      return dataBlocks(part.mimeType, part.data, supportsImages);
    case 'prompt_tsx': {
      const text = textInTree(part.value).join('');
      return text ? [{ type: 'text', text }] : [];
    }
    case 'tool_call':
    case 'tool_result':
      return [];
  }
}

function toolResult(result: Extract<LmPart, { kind: 'tool_result' }>, supportsImages: boolean): ToolResultItem {
  const blocks = result.content.flatMap((part) => {
    const read = readPart(part);
    return read ? userBlocks(read, supportsImages) : [];
  });
  const text = blocks.flatMap((block) => (block.type === 'text' ? [block.text] : [])).join('\n');
  const images = blocks.filter((block): block is ImageBlock => block.type === 'image');
  return {
    callId: result.callId,
    content: text || (images.length > 0 ? '(the tool returned images)' : '(the tool returned no output)'),
    isError: result.isError,
    ...(images.length > 0 ? { images } : {}),
  };
}

/**
 * Images become image blocks (or a note when the model cannot see them);
 * text and JSON bytes become text. Anything else is a marker meant for
 * another vendor's API (such as a cache hint) and is left out.
 */
function dataBlocks(mimeType: string, data: Uint8Array, supportsImages: boolean): UserBlock[] {
  if (mimeType.startsWith('image/')) {
    if (!supportsImages) return [{ type: 'text', text: `[An image (${mimeType}) was left out: this model does not accept images.]` }];
    return [{ type: 'image', mimeType, data: Buffer.from(data).toString('base64') }];
  }
  if (mimeType.startsWith('text/') || mimeType === 'application/json') {
    return [{ type: 'text', text: Buffer.from(data).toString('utf8') }];
  }
  return [];
}

/** A prompt-tsx tree keeps its text in `{ type: 2, text }` nodes under `node` and `children`; collected in order. */
function textInTree(value: unknown, depth = 0): string[] {
  if (depth > 64 || typeof value !== 'object' || value === null) return [];
  if (Array.isArray(value)) return value.flatMap((item) => textInTree(item, depth + 1));
  const node = value as Record<string, unknown>;
  if (typeof node.text === 'string') return [node.text];
  return [...textInTree(node.node, depth + 1), ...textInTree(node.children, depth + 1)];
}

function textOf(parts: LmPart[]): string {
  return parts.flatMap((part) => (part.kind === 'text' ? [part.text] : [])).join('');
}

/** Tools without a schema take no arguments: the APIs still want an object schema. */
function toToolSpec(tool: LmTool): ToolSpec {
  const inputSchema = (tool.inputSchema as Record<string, unknown> | undefined) ?? { type: 'object', properties: {} };
  return { name: tool.name, description: tool.description, inputSchema };
}

/**
 * The tool calls of a finished response, for LanguageModelToolCallPart, whose
 * input must be an object. Arguments that are not a JSON object (a model's
 * mistake) become `{}`: the caller's validation then tells the model which
 * arguments are missing, as it would for any wrong call.
 */
/** The response's tool calls for VS Code, leaving out one the output cap cut off (its arguments are incomplete). */
export function toolCallsOf(response: AssistantResponse): LmToolCall[] {
  return response.content.flatMap((block) =>
    block.type === 'tool_call' && !isCutOff(block, response) ? [{ callId: block.id, name: block.name, input: parseObject(block.arguments) }] : [],
  );
}

function parseObject(text: string): object {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? value : {};
  } catch {
    return {};
  }
}

/** Tokens an image is counted as: vendors charge on the order of a thousand for a screenshot-sized one. */
const IMAGE_TOKENS = 1000;

/**
 * A cheap token estimate, about four characters per token, for
 * provideTokenCount: VS Code uses it to budget prompts, and the vendors'
 * tokenizers are not available offline. Exact counts come back as usage.
 */
export function estimateTokens(input: string | LmRequestMessage): number {
  if (typeof input === 'string') return tokensOfText(input);
  return partsOf(input.content).reduce((sum, part) => sum + partTokens(part), 0);
}

function partTokens(part: LmPart): number {
  switch (part.kind) {
    case 'tool_call':
      return tokensOfText(part.name + JSON.stringify(part.input ?? {}));
    case 'tool_result':
      return part.content.reduce((sum: number, inner) => {
        const read = readPart(inner);
        return sum + (read ? partTokens(read) : 0);
      }, 0);
    default:
      return userBlocks(part, true).reduce((sum, block) => sum + (block.type === 'text' ? tokensOfText(block.text) : IMAGE_TOKENS), 0);
  }
}

function tokensOfText(text: string): number {
  return Math.ceil(text.length / 4);
}
