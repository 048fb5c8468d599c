/**
 * The chat models VS Code offers (Copilot's, other extensions'), as a
 * provider for Crow's own agents: settings' provider type `vscode`, model
 * `vendor/id` (e.g. `copilot/gpt-4o`). Crow's own models (vendor "crow")
 * are never used: a request would come back into Crow. The translation
 * itself is plain data in model-request.ts; this file makes VS Code's part
 * objects, sends, streams and counts.
 */
import * as vscode from 'vscode';
import { t } from './l10n';
import type { ProviderConnection } from '../../config/provider-config';
import { registerHostProvider } from '../../llm/host-providers';
import type { VscodeModelInfo } from './configuration';
import type { AssistantResponse, LlmRequest, Provider, StreamEvent } from '../../llm/types';
import {
  CROW_VENDOR,
  type ModelMessage,
  type ModelPart,
  modelFailure,
  messageText,
  parseVscodeModelId,
  ResponseGatherer,
  toModelMessages,
  toModelTools,
  vscodeModelId,
} from './model-request';
import { sendable } from '../../llm/tool-text';

/** What VS Code shows in its consent dialog the first time Crow sends to another extension's model. */
const justification = (): string => t("Crow's agents (the builder and its reviewer) run on this model when you pick it in Crow.");

/** One of VS Code's models as Crow's settings and pickers see it. */
export type VscodeModelOffer = VscodeModelInfo;

/** LanguageModelChat.capabilities (VS Code 1.104+; the @types we build against predate it). */
interface ModelCapabilities {
  readonly supportsImageToText?: boolean;
  readonly supportsToolCalling?: boolean;
}

function capabilitiesOf(model: vscode.LanguageModelChat): ModelCapabilities {
  return (model as vscode.LanguageModelChat & { capabilities?: ModelCapabilities }).capabilities ?? {};
}

/** The models Crow's agents can run on: VS Code's chat models that call tools, Crow's own left out. */
export async function offeredVscodeModels(): Promise<VscodeModelOffer[]> {
  const models = await vscode.lm.selectChatModels();
  return models
    .filter((model) => model.vendor !== CROW_VENDOR && capabilitiesOf(model).supportsToolCalling !== false)
    .map((model) => ({
      id: vscodeModelId(model),
      name: model.name,
      vendor: model.vendor,
      maxInputTokens: model.maxInputTokens,
      vision: capabilitiesOf(model).supportsImageToText === true,
    }));
}

/** The models as VS Code last listed them (kept current by useVscodeModels), for settings and pickers, which cannot wait. */
let known: VscodeModelOffer[] = [];

export function knownVscodeModels(): readonly VscodeModelOffer[] {
  return known;
}

/** Made on first use: the engine bundle is loaded (and checked in plain Node) without touching the vscode API. */
let knownChanged: vscode.EventEmitter<void> | undefined;
const changes = (): vscode.EventEmitter<void> => (knownChanged ??= new vscode.EventEmitter<void>());

/** Fires when the list knownVscodeModels gives has changed (a model arrived, say Copilot's after sign-in). */
export const onDidChangeKnownModels: vscode.Event<void> = (listener, thisArgs, disposables) => changes().event(listener, thisArgs, disposables);

/** Lists the models again; a failure keeps the last list (the provider itself asks VS Code afresh at every request). */
export async function refreshVscodeModels(): Promise<readonly VscodeModelOffer[]> {
  try {
    const listed = await offeredVscodeModels();
    const changed = JSON.stringify(listed) !== JSON.stringify(known);
    known = listed;
    if (changed) knownChanged?.fire();
  } catch {
    // VS Code without the language-model API, or a vendor failing to list: the last list stands.
  }
  return known;
}

/**
 * Makes provider type `vscode` work in this extension host and keeps the
 * model list current; the disposable takes both back.
 */
export function useVscodeModels(): vscode.Disposable {
  const unregister = registerHostProvider('vscode', (connection: ProviderConnection, options) => new VscodeModelProvider(connection.model, options.supportsImages));
  const watch = vscode.lm.onDidChangeChatModels(() => void refreshVscodeModels());
  void refreshVscodeModels();
  return new vscode.Disposable(() => {
    unregister();
    watch.dispose();
  });
}

class VscodeModelProvider implements Provider {
  readonly name = 'vscode';
  /** The settings' word (from the model's capabilities, kept in the provider entry); the model's own capabilities decide when sending. */
  readonly supportsImages: boolean;

  constructor(
    readonly model: string,
    supportsImages: boolean | undefined,
  ) {
    this.supportsImages = supportsImages ?? false;
  }

  async *stream(request: LlmRequest, signal: AbortSignal): AsyncIterable<StreamEvent> {
    const gathered = new ResponseGatherer();
    const usage = { input: 0, output: 0 };
    const source = new vscode.CancellationTokenSource();
    const cancel = (): void => source.cancel();
    signal.addEventListener('abort', cancel, { once: true });
    const end = (failure?: Parameters<ResponseGatherer['finish']>[2]): StreamEvent => ({ type: 'done', response: gathered.finish(this.model, usage, failure) });
    try {
      if (signal.aborted) return yield end({ stopReason: 'aborted' });
      const chat = await this.chatModel();
      const images = capabilitiesOf(chat).supportsImageToText ?? this.supportsImages;
      // As every provider sends it (tool-text.ts): call ids valid and unique, tool blocks as text where no tools go.
      const described = toModelMessages(sendable(request), { supportsImages: images });
      const messages = described.map(toChatMessage);
      const tools = toModelTools(request.tools);
      usage.input = await countInput(chat, messages, described, JSON.stringify(tools), source.token);
      if (usage.input > chat.maxInputTokens) return yield { type: 'done', response: overflowed(gathered.finish(this.model, usage), usage.input, chat.maxInputTokens) };
      const response = await chat.sendRequest(messages, { justification: justification(), tools }, source.token);
      for await (const part of response.stream) {
        if (signal.aborted) break;
        if (part instanceof vscode.LanguageModelTextPart) {
          gathered.text(part.value);
          if (part.value !== '') yield { type: 'text_delta', delta: part.value };
        } else if (part instanceof vscode.LanguageModelToolCallPart) {
          gathered.toolCall(part.callId, part.name, part.input);
          yield { type: 'tool_call_start', id: part.callId, name: part.name };
        }
      }
      if (signal.aborted) return yield end({ stopReason: 'aborted' });
      usage.output = await chat.countTokens(gathered.outputText(), source.token);
      yield end();
    } catch (error) {
      yield end(signal.aborted ? { stopReason: 'aborted' } : { stopReason: 'error', message: modelFailure(error, this.model) });
    } finally {
      signal.removeEventListener('abort', cancel);
      source.dispose();
    }
  }

  /** The model the settings name; throws saying which models VS Code offers when it offers no such one. */
  private async chatModel(): Promise<vscode.LanguageModelChat> {
    const wanted = parseVscodeModelId(this.model);
    if (wanted.vendor === CROW_VENDOR) {
      throw new Error(t`${this.model} is one of Crow's own models (vendor "crow"): running Crow's agents on it would loop back into Crow. Pick a model of another vendor, or the Crow provider it stands for.`);
    }
    const selector = wanted.vendor !== undefined ? { vendor: wanted.vendor, id: wanted.id } : { id: wanted.id };
    const [found] = (await vscode.lm.selectChatModels(selector)).filter((model) => model.vendor !== CROW_VENDOR);
    if (found) return found;
    const offered = (await offeredVscodeModels()).map((model) => model.id);
    const list = offered.length > 0 ? t`VS Code offers: ${offered.join(', ')}.` : t('VS Code offers no chat model now: install and sign in to an extension that provides one (GitHub Copilot Chat, for one).');
    throw new Error(t`VS Code offers no model "${this.model}". ${list} Pick one in the model picker, or change crow.model.`);
  }
}

/** The prompt's size in the model's own tokens: each message, and the tools' names, descriptions and schemas. */
async function countInput(
  chat: vscode.LanguageModelChat,
  messages: vscode.LanguageModelChatMessage[],
  described: ModelMessage[],
  tools: string,
  token: vscode.CancellationToken,
): Promise<number> {
  const counts = await Promise.all([
    ...messages.map((message, index) => chat.countTokens(message, token).then(undefined, () => chat.countTokens(messageText(described[index]!), token))),
    chat.countTokens(tools, token),
  ]);
  return counts.reduce((sum, count) => sum + count, 0);
}

function overflowed(response: AssistantResponse, promptTokens: number, windowTokens: number): AssistantResponse {
  return {
    ...response,
    stopReason: 'error',
    finishReasons: ['error'],
    errorMessage: t`The prompt (${promptTokens} tokens) does not fit the model's input window (${windowTokens} tokens).`,
    overflow: { windowTokens, promptTokens },
  };
}

/** LanguageModelDataPart (VS Code 1.104+), where the host has it. */
type DataPartClass = { image(data: Uint8Array, mimeType: string): unknown };

function toChatMessage(message: ModelMessage): vscode.LanguageModelChatMessage {
  const parts = message.parts.map(toChatPart) as (vscode.LanguageModelTextPart & vscode.LanguageModelToolCallPart & vscode.LanguageModelToolResultPart)[];
  return message.role === 'user' ? vscode.LanguageModelChatMessage.User(parts) : vscode.LanguageModelChatMessage.Assistant(parts);
}

function toChatPart(part: ModelPart): unknown {
  switch (part.kind) {
    case 'text':
      return new vscode.LanguageModelTextPart(part.text);
    case 'image':
      return imagePart(part.mimeType, part.data);
    case 'tool_call':
      return new vscode.LanguageModelToolCallPart(part.callId, part.name, part.input);
    case 'tool_result':
      return new vscode.LanguageModelToolResultPart(
        part.callId,
        part.content.map((inner) => (inner.kind === 'text' ? new vscode.LanguageModelTextPart(inner.text) : imagePart(inner.mimeType, inner.data))),
      );
  }
}

function imagePart(mimeType: string, data: Uint8Array): unknown {
  const dataPart = (vscode as unknown as { LanguageModelDataPart?: DataPartClass }).LanguageModelDataPart;
  return dataPart ? dataPart.image(data, mimeType) : new vscode.LanguageModelTextPart(`[An image (${mimeType}) was left out: this VS Code cannot send images to models.]`);
}
