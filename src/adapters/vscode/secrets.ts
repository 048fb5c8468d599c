import * as vscode from 'vscode';

/** SecretStorage key of the API key held for an environment variable name. */
const SECRET_PREFIX = 'crow.apiKey.';
/** SecretStorage cannot list its keys on every VS Code we support: the names we stored are kept here (names only). */
const NAMES_KEY = 'crow.apiKeyNames';

/**
 * API keys, kept only in VS Code's SecretStorage under the name of the
 * environment variable the provider reads (ANTHROPIC_API_KEY, ...). The
 * engine sees them through `env()`: the extension host's environment with
 * the stored keys over it, so a key in the environment still works when
 * none is stored. Values never reach settings, logs or webviews.
 */
export class KeyStore {
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChange = this.changed.event;

  constructor(
    private readonly secrets: vscode.SecretStorage,
    private readonly state: vscode.Memento,
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

  /** The environment the engine runs with: process.env, stored keys over it. */
  async env(): Promise<NodeJS.ProcessEnv> {
    const env: NodeJS.ProcessEnv = { ...process.env };
    for (const name of this.names()) {
      const value = await this.secrets.get(SECRET_PREFIX + name);
      if (value) env[name] = value;
    }
    return env;
  }

  dispose(): void {
    this.changed.dispose();
  }
}
