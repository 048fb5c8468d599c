/**
 * Our LlmRequest as the messages and tools of VS Code's language-model API
 * (`LanguageModelChat.sendRequest`), and its response parts gathered back
 * into an AssistantResponse: the other direction of lm-messages.ts. Plain
 * data, no `vscode` import, so it runs and is tested in plain Node;
 * vscode-models.ts turns these descriptions into VS Code's part objects.
 */
import { type AssistantBlock, type AssistantResponse, emptyUsage, type LlmRequest, type Message, type StopReason, type ToolSpec } from '../../llm/types';
import { t } from './l10n';

/** The vendor Crow's own models are registered under (package.json's `languageModelChatProviders`). */
export const CROW_VENDOR = 'crow';

/** A content part of a LanguageModelChatMessage, described. */
export type ModelPart =
  /** LanguageModelTextPart */
  | { kind: 'text'; text: string }
  /** LanguageModelDataPart.image: only for models whose capabilities say they read images. */
  | { kind: 'image'; mimeType: string; data: Uint8Array }
  /** LanguageModelToolCallPart (assistant messages only). */
  | { kind: 'tool_call'; callId: string; name: string; input: object }
  /** LanguageModelToolResultPart (user messages only), answering the call with the same id. */
  | { kind: 'tool_result'; callId: string; content: ModelResultPart[] };

export type ModelResultPart = Extract<ModelPart, { kind: 'text' | 'image' }>;

/** A LanguageModelChatMessage, described. There is no system role outside a proposed API (`languageModelSystem`). */
export interface ModelMessage {
  role: 'user' | 'assistant';
  parts: ModelPart[];
}

/** LanguageModelChatTool. */
export interface ModelTool {
  name: string;
  description: string;
  inputSchema: object;
}

/**
 * The messages for `sendRequest`. The system prompt opens the first user
 * message (only extensions allowed the proposed `languageModelSystem` API
 * may send a system message); thinking is left out (its part is proposed
 * API too, and the vendors want it only with their own signatures); empty
 * text is left out (the vendors refuse empty content); tool results open a
 * user message, right after the calls they answer; and neighbours of one
 * role are joined into one message, as the vendors' APIs want turns to
 * alternate.
 */
export function toModelMessages(request: Pick<LlmRequest, 'system' | 'messages'>, options: { supportsImages: boolean }): ModelMessage[] {
  const messages: ModelMessage[] = [];
  const add = (message: ModelMessage): void => {
    if (message.parts.length === 0) return;
    const last = messages.at(-1);
    if (last?.role === message.role) last.parts.push(...message.parts);
    else messages.push(message);
  };
  if (request.system.trim() !== '') add({ role: 'user', parts: [{ kind: 'text', text: request.system }] });
  for (const message of request.messages) add(toModelMessage(message, options.supportsImages));
  return messages;
}

function toModelMessage(message: Message, supportsImages: boolean): ModelMessage {
  switch (message.role) {
    case 'user':
      return {
        role: 'user',
        parts: message.content.flatMap((block) => (block.type === 'text' ? textPart(block.text) : imagePart(block.mimeType, block.data, supportsImages))),
      };
    case 'assistant':
      return { role: 'assistant', parts: message.content.flatMap(assistantPart) };
    case 'tool_results':
      return {
        role: 'user',
        parts: message.results.map((result) => {
          const images = supportsImages ? (result.images ?? []).flatMap((image) => imagePart(image.mimeType, image.data, true)) : [];
          const text = result.content.trim() !== '' ? result.content : '(the tool returned no output)';
          return { kind: 'tool_result', callId: result.callId, content: [{ kind: 'text', text }, ...images] };
        }),
      };
  }
}

function assistantPart(block: AssistantBlock): ModelPart[] {
  switch (block.type) {
    case 'text':
      return textPart(block.text);
    case 'tool_call':
      return [{ kind: 'tool_call', callId: block.id, name: block.name, input: argumentsObject(block.arguments) }];
    case 'thinking':
    case 'redacted_thinking':
      return [];
  }
}

function textPart(text: string): ModelResultPart[] {
  return text.trim() !== '' ? [{ kind: 'text', text }] : [];
}

function imagePart(mimeType: string, base64: string, supportsImages: boolean): ModelResultPart[] {
  if (!supportsImages) return [{ kind: 'text', text: `[An image (${mimeType}) was left out: this model does not accept images.]` }];
  return [{ kind: 'image', mimeType, data: new Uint8Array(Buffer.from(base64, 'base64')) }];
}

/** A call's arguments as the object LanguageModelToolCallPart carries; arguments that are not a JSON object (a cut-off call) become `{}`. */
function argumentsObject(text: string): object {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? value : {};
  } catch {
    return {};
  }
}

/** Tools as LanguageModelChatTool: a tool without a schema still gets an object schema, as the vendors want one. */
export function toModelTools(tools: readonly ToolSpec[]): ModelTool[] {
  return tools.map((tool) => ({ name: tool.name, description: tool.description, inputSchema: tool.inputSchema ?? { type: 'object', properties: {} } }));
}

/**
 * The text of a message as a tokenizer sees it, for counting where a
 * message object cannot be counted: its text, tool calls and results.
 */
export function messageText(message: ModelMessage): string {
  return message.parts
    .map((part) => {
      switch (part.kind) {
        case 'text':
          return part.text;
        case 'image':
          return '';
        case 'tool_call':
          return `${part.name} ${JSON.stringify(part.input)}`;
        case 'tool_result':
          return part.content.flatMap((inner) => (inner.kind === 'text' ? [inner.text] : [])).join('\n');
      }
    })
    .filter((text) => text !== '')
    .join('\n');
}

/**
 * Gathers a streamed response: text runs joined into one block each, tool
 * calls in the order they came. The stop reason follows from the content
 * (the API reports none): tool calls mean `tool_use`.
 */
export class ResponseGatherer {
  private readonly content: AssistantBlock[] = [];

  text(delta: string): void {
    if (delta === '') return;
    const last = this.content.at(-1);
    if (last?.type === 'text') last.text += delta;
    else this.content.push({ type: 'text', text: delta });
  }

  /** Adds a tool call. A second call with an id already used is kept too: the engine gives it an id of its own (llm/call-ids.ts), and both run. */
  toolCall(callId: string, name: string, input: unknown): void {
    this.content.push({ type: 'tool_call', id: callId, name, arguments: JSON.stringify(input ?? {}) });
  }

  /** The text and calls so far, for counting output tokens. */
  outputText(): string {
    return this.content.map((block) => (block.type === 'text' ? block.text : block.type === 'tool_call' ? `${block.name} ${block.arguments}` : '')).join('\n');
  }

  /** The response; `failure` ends it as `error` or `aborted` with what arrived so far. */
  finish(model: string, usage: { input: number; output: number }, failure?: { stopReason: Extract<StopReason, 'error' | 'aborted'>; message?: string }): AssistantResponse {
    const calls = this.content.some((block) => block.type === 'tool_call');
    const stopReason: StopReason = failure?.stopReason ?? (calls ? 'tool_use' : 'end_turn');
    return {
      content: this.content,
      stopReason,
      responseModel: model,
      finishReasons: [stopReason],
      usage: { ...emptyUsage(), input: usage.input, output: usage.output },
      ...(failure?.message !== undefined ? { errorMessage: failure.message } : {}),
    };
  }
}

/** What a failed request to a VS Code model amounts to, saying what to do next. */
export function modelFailure(error: unknown, model: string): string {
  const fields = typeof error === 'object' && error !== null ? (error as { code?: unknown; message?: unknown; cause?: unknown }) : {};
  switch (fields.code) {
    case 'NoPermissions':
      return t`Crow may not use the VS Code model ${model}: the permission was not given (VS Code asks once, and the answer was no or the dialog was closed). Send the prompt again and choose Allow, or allow Crow under Accounts > Manage Language Model Access, or pick another model.`;
    case 'Blocked':
      return t`VS Code blocked Crow's requests to ${model} (its quota or rate limit is used up for now): wait and send the prompt again, or pick another model in the model picker.`;
    case 'NotFound':
      return t`VS Code no longer offers the model ${model} (its extension was disabled, signed out or changed): pick another model in the model picker, or change crow.model.`;
  }
  const message = typeof fields.message === 'string' && fields.message !== '' ? fields.message : String(error);
  const cause = fields.cause instanceof Error && fields.cause.message !== message ? ` (${fields.cause.message})` : '';
  return t`The VS Code model ${model} failed: ${message}${cause}`;
}

/** A model id in Crow's settings: the vendor, a slash, and the model's own id (`copilot/gpt-4o`). */
export function vscodeModelId(model: { vendor: string; id: string }): string {
  return `${model.vendor}/${model.id}`;
}

/** The vendor and model id of one of Crow's ids; a bare id (no vendor) matches any vendor's model of that id. */
export function parseVscodeModelId(id: string): { vendor?: string; id: string } {
  const slash = id.indexOf('/');
  return slash > 0 ? { vendor: id.slice(0, slash), id: id.slice(slash + 1) } : { id };
}
