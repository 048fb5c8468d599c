/**
 * Sign-ins to remote MCP servers in the extension: VS Code's SecretStorage
 * (the OS keychain), one secret per server under a digest of its URL, so a
 * renamed server keeps its sign-in and a re-pointed one never gets another
 * server's token. Only the SecretStorage's three calls are used, so this
 * runs (and is tested) without VS Code.
 */
import { authKey, authRecordName, type McpAuthRecord, type McpTokenStore, recordFor } from '../../mcp/oauth-store';

/** The part of vscode.SecretStorage this needs. */
export interface SecretStore {
  get(key: string): PromiseLike<string | undefined>;
  store(key: string, value: string): PromiseLike<void>;
  delete(key: string): PromiseLike<void>;
}

const PREFIX = 'crow.mcpAuth.';

export class SecretTokenStore implements McpTokenStore {
  constructor(private readonly secrets: SecretStore) {}

  async load(serverUrl: string): Promise<McpAuthRecord | undefined> {
    const text = await this.secrets.get(PREFIX + authRecordName(serverUrl));
    if (text === undefined) return undefined;
    try {
      return recordFor(serverUrl, JSON.parse(text));
    } catch {
      return undefined;
    }
  }

  async save(record: McpAuthRecord): Promise<void> {
    await this.secrets.store(PREFIX + authRecordName(record.serverUrl), JSON.stringify({ ...record, serverUrl: authKey(record.serverUrl) }));
  }

  async remove(serverUrl: string): Promise<boolean> {
    const key = PREFIX + authRecordName(serverUrl);
    const there = (await this.secrets.get(key)) !== undefined;
    await this.secrets.delete(key);
    return there;
  }
}
