/**
 * The chat controller's host as the extension builds one, over a plain
 * folder: the session store in `env`'s data home, the settings read through
 * `setting`, a NodeWorkspace on `root`. `extra` adds or replaces fields.
 */
import type { ChatHost } from '../../src/adapters/vscode/chat/chat-session';
import { readConfiguration } from '../../src/adapters/vscode/configuration';
import { dataHome } from '../../src/config/paths';
import { SessionStore } from '../../src/session/session-store';
import { NodeWorkspace } from '../../src/tools/node-workspace';

export function folderChatHost(root: string, env: NodeJS.ProcessEnv, setting: (key: string) => unknown = () => undefined, extra: Partial<ChatHost> = {}): ChatHost {
  return {
    root,
    dataHome: dataHome(env),
    store: new SessionStore({ dataHome: dataHome(env) }),
    env: async () => env,
    configuration: () => readConfiguration(setting),
    workspace: () => new NodeWorkspace(root),
    ...extra,
  };
}

/** What `find` finds, checked every 10 ms; throws after `timeoutMs`. */
export async function waitFor<T>(find: () => T | undefined, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = find();
    if (found !== undefined) return found;
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
