import * as vscode from 'vscode';
import { engineEnvironment } from './key-sources';

/** SecretStorage key of the API key held for an environment variable name. */
const SECRET_PREFIX = 'crow.apiKey.';
/** SecretStorage cannot list its keys on every VS Code we support: the names we stored are kept here (names only). */
const NAMES_KEY = 'crow.apiKeyNames';

/**
 * API keys, kept only in VS Code's SecretStorage under the name of the
 * environment variable the provider reads (ANTHROPIC_API_KEY, ...). The
 * engine sees them through `env()`, which takes each key from the first
 * of: this SecretStorage ("Crow: Set API Key", set here on purpose), the
 * extension host's environment, the key `crow login` stored (the OS
 * keychain or Crow's private key file; read through `loginKeys`, so the
 * same sign-in serves the terminal, ACP clients and VS Code). Values
 * never reach settings, logs or webviews.
 */
export class KeyStore {
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChange = this.changed.event;

  constructor(
    private readonly secrets: vscode.SecretStorage,
    private readonly state: vscode.Memento,
    /** The keys `crow login` stored for variables `env` leaves unset (key-sources.ts loginKeysFor). */
    private readonly loginKeys?: (env: NodeJS.ProcessEnv) => Record<string, string>,
  ) {}

  /** Names of the variables with a stored key. */
  names(): string[] {
    return this.state.get<string[]>(NAMES_KEY, []);
  }

  async set(variable: string, value: string): Promise<void> {
    await this.secrets.store(SECRET_PREFIX + variable, value);
    await this.state.update(NAMES_KEY, [...new Set([...this.names(), variable])].sort());
    this.changed.fire();
  }

  async clear(variable: string): Promise<void> {
    await this.secrets.delete(SECRET_PREFIX + variable);
    await this.state.update(
      NAMES_KEY,
      this.names().filter((name) => name !== variable),
    );
    this.changed.fire();
  }

  /** The environment the engine runs with (see engineEnvironment). */
  async env(): Promise<NodeJS.ProcessEnv> {
    const stored: Record<string, string> = {};
    for (const name of this.names()) {
      const value = await this.secrets.get(SECRET_PREFIX + name);
      if (value) stored[name] = value;
    }
    return engineEnvironment(process.env, this.loginKeys?.(process.env) ?? {}, stored);
  }

  dispose(): void {
    this.changed.dispose();
  }
}
