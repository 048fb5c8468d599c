/**
 * Crow's configured models as a VS Code language model provider (vendor
 * "crow"). VS Code's own Chat, and so our `@crow` participant, answers
 * "Language model unavailable" until some model is registered; offering the
 * models Crow is configured with makes it work without Copilot, and lets any
 * extension reach them through `vscode.lm.selectChatModels({ vendor: 'crow' })`.
 */
import * as vscode from 'vscode';
import { t } from './l10n';
import { loadEngine } from './crow';
import type { ProviderConnection } from '../../config/provider-config';
import type { ProviderEntry, Settings } from '../../config/settings';
import type { AssistantResponse, LlmRequest, Provider } from '../../llm/types';
import { estimateTokens, type LmRequestMessage, type LmTool, toLlmRequest, toolCallsOf } from './lm-messages';

/** The engine parts this module uses load when VS Code first asks for the models: registering the provider happens at activation and must stay light. */
const engine = loadEngine;

import { CROW_VENDOR } from './model-request';
export { CROW_VENDOR };

/** The command that stores a key in SecretStorage, named in errors. */
const setKeyCommand = (): string => t('"Crow: Set API Key"');

/** How long a listing waits for the servers' own model lists before it offers the configured models. */
const SERVED_LIST_WAIT_MS = 2_000;

/** Output room assumed when the settings give no max_output_tokens (what the Anthropic provider asks for). */
const ASSUMED_MAX_OUTPUT_TOKENS = 8192;

/** The API each kind of provider speaks, for a model's tooltip: product names, not translated. */
const API_NAMES: Record<Exclude<ProviderEntry['type'], 'vscode'>, string> = {
  anthropic: 'Anthropic API',
  openai: 'OpenAI API',
  'openai-responses': 'OpenAI Responses API',
  bedrock: 'Claude on Amazon Bedrock',
  vertex: 'Claude on Google Vertex AI',
};

function apiName(type: ProviderEntry['type']): string {
  // Never offered as Crow's own model (see offeredModels): it would call back into VS Code.
  return type === 'vscode' ? t("VS Code's language models") : API_NAMES[type];
}

// The provider API (LanguageModelChatProvider, stable since VS Code 1.104) is
// newer than the @types/vscode we build against (^1.95, our engines floor),
// so the part of it used here is declared locally and looked up at run time.

/** LanguageModelChatInformation: one model in the model picker and in `selectChatModels`. */
export interface ChatModelInformation {
  readonly id: string;
  readonly name: string;
  readonly family: string;
  readonly version: string;
  readonly maxInputTokens: number;
  readonly maxOutputTokens: number;
  readonly tooltip?: string;
  readonly detail?: string;
  readonly capabilities: { readonly imageInput?: boolean; readonly toolCalling?: boolean | number };
}

/** ProvideLanguageModelChatResponseOptions. `toolMode` Required is served as Auto: our providers have no tool choice. */
interface ChatResponseOptions {
  readonly modelOptions?: { readonly [name: string]: unknown };
  readonly tools?: readonly LmTool[];
  readonly toolMode?: number;
}

type ChatResponsePart = vscode.LanguageModelTextPart | vscode.LanguageModelToolCallPart;

/** LanguageModelChatProvider. */
interface ChatModelProvider {
  readonly onDidChangeLanguageModelChatInformation?: vscode.Event<void>;
  provideLanguageModelChatInformation(options: { readonly silent: boolean }, token: vscode.CancellationToken): Promise<ChatModelInformation[]>;
  provideLanguageModelChatResponse(
    model: ChatModelInformation,
    messages: readonly LmRequestMessage[],
    options: ChatResponseOptions,
    progress: vscode.Progress<ChatResponsePart>,
    token: vscode.CancellationToken,
  ): Promise<void>;
  provideTokenCount(model: ChatModelInformation, text: string | LmRequestMessage, token: vscode.CancellationToken): Promise<number>;
}

type LanguageModelApi = typeof vscode.lm & {
  registerLanguageModelChatProvider?: (vendor: string, provider: ChatModelProvider) => vscode.Disposable;
};

export interface LanguageModelDeps {
  /** The engine's resolved settings, read afresh for every listing and request. */
  settings(): Settings;
  /** The environment with API keys (SecretStorage keys merged over process.env). */
  env(): Promise<NodeJS.ProcessEnv>;
  /** The list as last offered in this workspace, kept between windows. */
  cache?: ModelListCache;
  /** The engine's state: until it is loaded, a kept list is offered instead of loading it (see chatModelProvider). */
  engine?: EngineState;
}

export interface EngineState {
  loaded(): boolean;
  /** Calls `listener` once, when something loads the engine. */
  onLoad(listener: () => void): void;
}

export interface ModelListCache {
  read(): ChatModelInformation[] | undefined;
  write(models: readonly ChatModelInformation[]): void;
}

export interface LanguageModelsRegistration extends vscode.Disposable {
  /** Tells VS Code to list the models again: call it when settings or keys change. */
  refresh(): void;
}

/**
 * Registers Crow's models with VS Code. On a VS Code without the provider
 * API (older than 1.104) this does nothing; the registration is then inert.
 */
export function registerLanguageModels(deps: LanguageModelDeps): LanguageModelsRegistration {
  const lm = vscode.lm as LanguageModelApi;
  const changed = new vscode.EventEmitter<void>();
  const registration =
    typeof lm.registerLanguageModelChatProvider === 'function'
      ? lm.registerLanguageModelChatProvider(CROW_VENDOR, chatModelProvider(deps, changed.event, () => changed.fire()))
      : undefined;
  return {
    refresh: () => changed.fire(),
    dispose: () => {
      registration?.dispose();
      changed.dispose();
    },
  };
}

/**
 * Listing needs the engine (settings, keys, context windows): a second or so
 * to load, which VS Code's chat does not wait for (a request whose model it
 * cannot list at that moment fails with "Language model unavailable"), and
 * which every window would pay at start-up. So until something else loads
 * the engine (the chat view, a prompt, a request to a model), the list kept
 * from the last listing in this workspace is the answer; once it is loaded,
 * VS Code is told to list again. Only a workspace's first window lists with
 * the engine at start-up.
 */
function chatModelProvider(deps: LanguageModelDeps, onDidChange: vscode.Event<void>, refresh: () => void): ChatModelProvider {
  let waitingForEngine = false;
  return {
    onDidChangeLanguageModelChatInformation: onDidChange,
    provideLanguageModelChatInformation: async () => {
      const kept = deps.engine && !deps.engine.loaded() ? deps.cache?.read() : undefined;
      if (kept !== undefined) {
        if (!waitingForEngine) deps.engine!.onLoad(refresh);
        waitingForEngine = true;
        return kept;
      }
      waitingForEngine = false;
      const settings = deps.settings();
      const env = await deps.env();
      const lists = engine().servedModelLists(settings, env);
      await lists.refresh(Object.keys(settings.providers), SERVED_LIST_WAIT_MS);
      const models = offeredModels(settings, env, lists.ids);
      deps.cache?.write(models);
      return models;
    },
    provideLanguageModelChatResponse: async (model, messages, options, progress, token) => {
      const provider = await connect(deps, model.id);
      const request = toLlmRequest(messages, { tools: options.tools, supportsImages: provider.supportsImages });
      const response = await streamInto(provider, request, progress, token);
      reportOutcome(model.id, response, progress);
    },
    provideTokenCount: async (_model, text) => estimateTokens(text),
  };
}

/**
 * The default model, always (when its key is missing, a request says how to
 * add one, which beats an empty model list), and every model configured under
 * a provider whose key is at hand or that needs none: its default_model and
 * its [providers.NAME.models] entries, but once the provider's server has
 * listed what it serves, only those it serves (a local server behind
 * "openai" does not serve OpenAI's default model).
 */
export function offeredModels(settings: Settings, env: NodeJS.ProcessEnv, served: (provider: string) => readonly string[] | undefined = () => undefined): ChatModelInformation[] {
  const offers = new Map<string, ChatModelInformation>();
  const defaultEntry = settings.providers[settings.provider];
  if (defaultEntry) {
    const detail = hasKey(defaultEntry, env) ? t('default') : t`needs an API key: run ${setKeyCommand()}`;
    offers.set(modelId(settings.provider, settings.model), modelInformation(settings, defaultEntry, settings.model, detail));
  }
  for (const entry of Object.values(settings.providers)) {
    // VS Code's own models are VS Code's to offer; through Crow they would be offered twice.
    if (entry.type === 'vscode' || !hasKey(entry, env)) continue;
    const listed = served(entry.name);
    const models = [entry.defaultModel, ...Object.keys(entry.models)].filter((model): model is string => model !== undefined && (listed === undefined || listed.includes(model)));
    for (const model of models) {
      const id = modelId(entry.name, model);
      if (!offers.has(id)) offers.set(id, modelInformation(settings, entry, model));
    }
  }
  return [...offers.values()];
}

/** A list kept by ModelListCache.write, or undefined when `value` is not one (an older or damaged entry). */
export function keptModels(value: unknown): ChatModelInformation[] | undefined {
  if (!Array.isArray(value) || value.length === 0) return undefined;
  const valid = value.every(
    (item: unknown) =>
      typeof item === 'object' &&
      item !== null &&
      ['id', 'name', 'family', 'version'].every((key) => typeof (item as Record<string, unknown>)[key] === 'string') &&
      ['maxInputTokens', 'maxOutputTokens'].every((key) => typeof (item as Record<string, unknown>)[key] === 'number') &&
      typeof (item as Record<string, unknown>)['capabilities'] === 'object' &&
      (item as Record<string, unknown>)['capabilities'] !== null,
  );
  return valid ? (value as ChatModelInformation[]) : undefined;
}

function modelInformation(settings: Settings, entry: ProviderEntry, model: string, detail?: string): ChatModelInformation {
  const info = entry.models[model];
  // contextWindowFor falls back on the default provider's kind: name this entry's provider the default to get its own.
  const contextWindow = engine().contextWindowFor({ ...settings, provider: entry.name }, model);
  const maxOutputTokens = Math.min(settings.maxOutputTokens ?? ASSUMED_MAX_OUTPUT_TOKENS, Math.floor(contextWindow / 2));
  // Vendors' own APIs see images; other OpenAI-compatible servers mostly do not (as the providers assume).
  const imageInput = info?.vision ?? settings.images ?? (entry.type !== 'openai' || entry.baseUrl === undefined);
  return {
    id: modelId(entry.name, model),
    name: `${model} (${entry.name})`,
    family: model,
    version: model,
    maxInputTokens: contextWindow - maxOutputTokens,
    maxOutputTokens,
    // No base URL here: one may carry credentials (user:password@host).
    tooltip: t`${model} through Crow's "${entry.name}" provider (${apiName(entry.type)})`,
    ...(detail !== undefined ? { detail } : {}),
    // VS Code's chat only picks models that call tools; a model configured with tools = false says otherwise.
    capabilities: { toolCalling: info?.tools ?? true, imageInput },
  };
}

function modelId(provider: string, model: string): string {
  return `${provider}/${model}`;
}

/** Provider names have no "/" (see NameSchema), so the first one splits an id; model names may hold more. */
function parseModelId(id: string): { provider: string; model: string } {
  const slash = id.indexOf('/');
  return { provider: id.slice(0, slash), model: id.slice(slash + 1) };
}

function hasKey(entry: ProviderEntry, env: NodeJS.ProcessEnv): boolean {
  try {
    engine().providerApiKey(entry, env);
    return true;
  } catch {
    return false;
  }
}

/** The provider for a model id, from the settings and keys of this moment. Throws saying what to do. */
async function connect(deps: LanguageModelDeps, id: string): Promise<Provider> {
  const { provider, model } = parseModelId(id);
  const settings = deps.settings();
  const entry = settings.providers[provider];
  if (!entry) {
    throw new Error(t`Crow has no provider "${provider}" any more: pick another model, or add [providers.${provider}] to config.toml (Crow: Open Config Folder).`);
  }
  const connection: ProviderConnection = { entry, model, apiKey: apiKeyFor(entry, await deps.env()) };
  return engine().providerFor(connection, settings);
}

function apiKeyFor(entry: ProviderEntry, env: NodeJS.ProcessEnv): string | undefined {
  try {
    return engine().providerApiKey(entry, env);
  } catch (error) {
    if (!(error instanceof engine().ConfigError)) throw error;
    const local = entry.type === 'openai' ? t(', or point "crow.baseUrls" at a local OpenAI-compatible server') : '';
    throw new Error(
      t`No API key for provider "${entry.name}": run ${setKeyCommand()}, or set the environment variable ${entry.apiKeyEnv ?? ''} before starting VS Code${local}.`,
    );
  }
}

/** Streams text as it arrives and returns the final response. The token's cancellation aborts the request. */
async function streamInto(
  provider: Provider,
  request: LlmRequest,
  progress: vscode.Progress<ChatResponsePart>,
  token: vscode.CancellationToken,
): Promise<AssistantResponse> {
  const controller = new AbortController();
  const cancellation = token.onCancellationRequested(() => controller.abort());
  if (token.isCancellationRequested) controller.abort();
  try {
    for await (const event of provider.stream(request, controller.signal)) {
      if (event.type === 'text_delta') progress.report(new vscode.LanguageModelTextPart(event.delta));
      else if (event.type === 'done') return event.response;
    }
  } finally {
    cancellation.dispose();
  }
  throw new Error(t('Crow: the model stream ended without a result. Try again; if it persists, report it with the trace (Crow: Show Trace).'));
}

/**
 * Tool calls arrive whole, once the response is complete (our provider
 * stream carries their arguments only in the final response). A failed
 * request becomes a thrown Error, which VS Code shows to the user; a
 * cancelled one just ends.
 */
function reportOutcome(id: string, response: AssistantResponse, progress: vscode.Progress<ChatResponsePart>): void {
  switch (response.stopReason) {
    case 'aborted':
      // Only the caller's token aborts: it asked to stop, and ends its stream itself.
      return;
    case 'error':
      throw new Error(requestErrorMessage(id, response.errorMessage));
    case 'refusal':
      throw new Error(requestErrorMessage(id, t('the model declined to continue (the provider reported a refusal); rephrase the request')));
    case 'end_turn':
    case 'tool_use':
    case 'max_tokens':
    case 'pause_turn':
      for (const call of toolCallsOf(response)) {
        progress.report(new vscode.LanguageModelToolCallPart(call.callId, call.name, call.input));
      }
  }
}

/** The provider's diagnosis already says what failed; a key problem also gets the VS Code way to fix it. */
function requestErrorMessage(id: string, diagnosis: string | undefined): string {
  const message = t`Crow model ${id}: ${diagnosis ?? t('the request failed')}`;
  return /HTTP 40[13]\b/.test(message) ? `${message} ${t`To replace the key, run ${setKeyCommand()}.`}` : message;
}
