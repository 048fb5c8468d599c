/**
 * The chat's provider set-up, host side: tells the view when the provider in
 * force has no key, stores a key the person gives (secret storage, through
 * ViewActions), tests a server of theirs and makes it the default. Nothing
 * needs a reload: the next prompt reads the settings and keys afresh.
 */
import { missingDefaultKey } from '../../../config/provider-config';
import type { Settings } from '../../../config/settings';
import { errorText } from '../../../vocabulary/text';
import type { HostMessage, SetupNeed, WebviewMessage } from '../../../../webview/chat/protocol';
import { settingsFor } from '../configuration';
import type { ChatHost } from './chat-session';
import { probeServer, serverBaseUrl } from './server-probe';

/** What the set-up writes into the settings: the default provider, and for a server of the person's its address and model. */
export interface ProviderChoice {
  /** `vscode`: a model VS Code already offers (see vscode-models.ts). */
  provider: 'anthropic' | 'openai' | 'vscode';
  /** The OpenAI-compatible server to use; absent: the provider's own endpoint. */
  baseUrl?: string;
  /** The model to use; absent: the one set now, or the provider's default when the provider changes. */
  model?: string;
}

/**
 * The `crow.*` settings a choice changes, given the provider and base URLs
 * set now: the provider; the model when one was picked, or cleared to the
 * provider's default when the provider changes; the server's address when
 * one was given (base URLs the person set for a key provider are theirs,
 * a gateway perhaps, and stay).
 */
export function providerSettings(choice: ProviderChoice, now: { provider: string; baseUrls: Record<string, string> }): Record<string, unknown> {
  const changes: Record<string, unknown> = { provider: choice.provider };
  if (choice.model !== undefined) changes['model'] = choice.model;
  else if (now.provider !== choice.provider) changes['model'] = '';
  if (choice.baseUrl !== undefined) changes['baseUrls'] = { ...now.baseUrls, [choice.provider]: choice.baseUrl };
  return changes;
}

/** What the set-up asks of VS Code itself (part of the chat's ViewActions). */
export interface SetupActions {
  /** Keeps a provider's key in VS Code's secret storage under its variable's name. */
  storeKey(variable: string, key: string): Promise<void>;
  /** Makes `provider` the default in the settings, at the server and with the model given (neither: the provider's own). */
  useProvider(choice: ProviderChoice): Promise<void>;
  /** Puts one role of a composition on `provider` (crow.primary.provider, crow.reviewer.provider). */
  useRoleProvider(role: 'primary' | 'coagent', provider: string): Promise<void>;
}

type KeyProvider = 'anthropic' | 'openai';

/** The variable each key provider reads, when the settings do not name another. */
const KEY_VARIABLES: Record<KeyProvider, string> = { anthropic: 'ANTHROPIC_API_KEY', openai: 'OPENAI_API_KEY' };

/** The set-up card's messages. */
export type SetupMessage = Extract<WebviewMessage, { type: 'setup_key' | 'test_server' | 'use_server' | 'use_vscode_model' }>;

export class ProviderSetup {
  constructor(
    private readonly host: ChatHost,
    private readonly post: (message: HostMessage) => void,
    private readonly actions: SetupActions,
  ) {}

  /** Answers one of the set-up card's messages; true when the providers changed (the pickers should be offered again). */
  async handle(message: SetupMessage): Promise<boolean> {
    switch (message.type) {
      case 'setup_key':
        return this.storeKey(message.provider, message.key);
      case 'test_server':
        await this.test(message.url, message.key);
        return false;
      case 'use_server':
        return this.useServer(message.url, message.model, message.key);
      case 'use_vscode_model':
        return this.useVscodeModel(message.model);
    }
  }

  /**
   * The provider in force and the key variable it lacks, with the models VS
   * Code already offers (which need no key); undefined when it can answer
   * (or the settings fail, which a prompt reports).
   */
  async need(): Promise<SetupNeed | undefined> {
    const found = await this.settings();
    if (!found) return undefined;
    const [variable] = missingDefaultKey(found.settings, found.env);
    if (variable === undefined) return undefined;
    const models = (this.host.configuration().vscodeModels ?? []).map((model) => ({ id: model.id, label: `${model.name} (${model.vendor})` }));
    return { provider: found.settings.provider, variable, ...(models.length > 0 ? { vscodeModels: models } : {}) };
  }

  /** Makes provider "vscode" with `model` (one VS Code offers now) the default; false (with the reason) when VS Code does not offer it. */
  async useVscodeModel(model: string): Promise<boolean> {
    if (!(this.host.configuration().vscodeModels ?? []).some((offered) => offered.id === model)) {
      this.post({ type: 'setup_error', message: `VS Code does not offer "${model}" now: pick one of the models listed.` });
      return false;
    }
    return this.step(() => this.actions.useProvider({ provider: 'vscode', model }));
  }

  /** Shows the set-up while a key is missing, and takes it away once none is. */
  async announce(): Promise<void> {
    const need = await this.need();
    this.post({ type: 'setup', ...(need ? { need } : {}) });
  }

  /** Stores the key of `provider` and makes it the default; false (with the reason under the form) when that failed. */
  async storeKey(provider: KeyProvider, key: string): Promise<boolean> {
    const value = this.validKey(key);
    if (value === undefined) return false;
    return this.step(async () => {
      await this.actions.storeKey(await this.keyVariable(provider), value);
      await this.actions.useProvider({ provider });
    });
  }

  /** Asks the server at `url` for its models (with `key`, when one was typed) and tells the view. */
  async test(url: string, key?: string): Promise<void> {
    const probe = await probeServer(url, { ...(key?.trim() ? { key: key.trim() } : {}) });
    this.post({ type: 'server_test', url, ...probe });
  }

  /**
   * Makes the server at `url` with `model` the default, its key (when one
   * was typed) kept in VS Code's secret storage as the key "openai" reads;
   * false (with the reason) when the address, model or key will not do.
   */
  async useServer(url: string, model: string, key?: string): Promise<boolean> {
    const base = serverBaseUrl(url);
    if ('problem' in base) {
      this.post({ type: 'setup_error', message: base.problem });
      return false;
    }
    const name = model.trim();
    if (!/^\S{1,200}$/.test(name)) {
      this.post({ type: 'setup_error', message: 'Pick one of the models the server listed (Test lists them).' });
      return false;
    }
    const typed = key?.trim() ? this.validKey(key) : '';
    if (typed === undefined) return false;
    return this.step(async () => {
      if (typed !== '') await this.actions.storeKey(await this.keyVariable('openai'), typed);
      await this.actions.useProvider({ provider: 'openai', baseUrl: base.url, model: name });
    });
  }

  /** The key as typed, trimmed; undefined (with the reason under the form) when it cannot be one. */
  private validKey(key: string): string | undefined {
    const value = key.trim();
    if (value !== '' && !/\s/.test(value) && value.length <= 1000) return value;
    this.post({ type: 'setup_error', message: 'That does not look like an API key: paste the key alone, one word without spaces.' });
    return undefined;
  }

  /** Runs a set-up step, then tells the view where things stand; a failure is said under the form. */
  private async step(work: () => Promise<void>): Promise<boolean> {
    try {
      await work();
    } catch (err) {
      this.post({ type: 'setup_error', message: `Could not save that: ${errorText(err)}` });
      return false;
    }
    await this.announce();
    return true;
  }

  /** The variable the configured provider reads its key from (config.toml may name another). */
  private async keyVariable(provider: KeyProvider): Promise<string> {
    return (await this.settings())?.settings.providers[provider]?.apiKeyEnv ?? KEY_VARIABLES[provider];
  }

  /** The folder's settings with the keys as they are now; undefined when they fail to resolve (a prompt reports that). */
  private async settings(): Promise<{ settings: Settings; env: NodeJS.ProcessEnv } | undefined> {
    const env = await this.host.env();
    try {
      return { settings: settingsFor(this.host.root, this.host.configuration(), env, this.host.trusted?.() ?? false), env };
    } catch {
      return undefined;
    }
  }
}
