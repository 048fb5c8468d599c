/**
 * Everything of the engine the extension uses, in one module that
 * crow.ts `loadEngine()` requires on first use: activation only registers
 * views and commands, and the SDKs, tools and sessions load when someone
 * sends a prompt, opens the chat or asks for models. esbuild.mjs bundles it
 * as its own file (dist/engine.js), so activation does not even parse it.
 * Importing it does nothing but define; `useVscodeRipgrep` is called by the
 * loader. State both sides need (the running sessions) is reached through here.
 */
import { pickableAgents } from '../../agents/assemble';
import { AgentRegistry } from '../../config/agent-registry';
import { dataHome } from '../../config/paths';
import { SessionStore } from '../../session/session-store';
import type { Workspace } from '../../tools/workspace';
import type { ChatHost } from './chat/chat-session';
import { useRipgrepFallback } from '../../tools/run-ripgrep';
import { vscodeRipgrep } from './ripgrep';
import { crowConfiguration } from './settings';
import { attemptsCheckSetting } from './attempts-check-setting';
import { VscodeWorkspace } from './vscode-workspace';
import { type SecretStore, SecretTokenStore } from './mcp-secret-store';
import { knownVscodeModels, onDidChangeKnownModels } from './vscode-models';

/** Lets the tools find rg in VS Code itself when @vscode/ripgrep is not shipped (the packaged extension). */
export function useVscodeRipgrep(): void {
  const shipped = vscodeRipgrep();
  if (shipped !== undefined) useRipgrepFallback(shipped);
}

export { useL10nBundle } from './l10n';
export { knownVscodeModels, refreshVscodeModels, useVscodeModels } from './vscode-models';
export { ChatController } from './chat/chat-controller';
export { htmlReport, markdownReport, reportScript } from '../../eval/eval-report';
export { runEval } from '../../eval/eval-runner';
export { loadTasks } from '../../eval/eval-task';

/** The agents a person can pick in a folder (for `@crow /agent`), read from its definitions. */
export function agentNames(root: string, trusted: boolean): string[] {
  return pickableAgents(AgentRegistry.load(root, process.env, { trusted }).registry).map((agent) => agent.name);
}
export { ChatSession } from './chat/chat-session';
export { settingsFor } from './configuration';
export { crowConfiguration } from './settings';
export { exportJson, exportMarkdown } from '../../session/session-export';
export { GitSnapshotManager } from '../../journal/git-snapshots';
export { RestoreError } from '../../journal/snapshot-restore';
export { UndoLog } from '../../journal/undo-log';
export { closeAllPools } from './workspace/terminal-pool';
export { countFiles, countPlanned, nothingToUndo, PLANNED, planUndo } from '../../journal/restore-plan';
export { Redactor } from '../../telemetry/redact';
export { resolveSettings } from '../../config/provider-config';
export { SessionStore } from '../../session/session-store';
export { dataHome as dataHomeOf } from '../../config/paths';
export { contextWindowFor } from '../../agents/definition-agent';
export { providerApiKey } from '../../config/provider-config';
export { ConfigError } from '../../config/settings';
export { providerFor } from '../../llm';
export { servedModelLists } from '../../host/served-model-lists';
export { liveSessions } from './chat/live-sessions';
export { serversFromSettings } from '../../mcp/server-config';
export { signInToServer } from '../../mcp/oauth-sign-in';
export { SecretTokenStore } from './mcp-secret-store';

/**
 * The host of every session in a folder: its store, keys, settings and VS
 * Code-backed workspace. `log` is the Crow output channel (never given keys).
 */
export function chatHost(
  root: string,
  env: () => Promise<NodeJS.ProcessEnv>,
  workspaces: Map<string, VscodeWorkspace>,
  log: (message: string) => void,
  trusted: () => boolean,
  lastSession?: ChatHost['lastSession'],
  secrets?: SecretStore,
): ChatHost {
  const data = dataHome(process.env);
  return {
    root,
    ...(secrets ? { mcpTokens: new SecretTokenStore(secrets) } : {}),
    ...(lastSession ? { lastSession } : {}),
    log,
    dataHome: data,
    store: new SessionStore({ dataHome: data }),
    env,
    // VS Code's own models join the settings as provider "vscode".
    configuration: () => ({ ...crowConfiguration(), vscodeModels: knownVscodeModels() }),
    watchVscodeModels: (listener) => {
      const subscription = onDidChangeKnownModels(listener);
      return () => subscription.dispose();
    },
    trusted,
    attemptsCheck: attemptsCheckSetting,
    workspace: (): Workspace => {
      let workspace = workspaces.get(root);
      if (!workspace) {
        // Why commands run as child processes rather than in the Crow terminal, once per change of route.
        let lastRoute = '';
        workspace = new VscodeWorkspace(root, {
          onCommandRoute: (route) => {
            const line = route.kind === 'terminal' ? `Commands run in the terminal "${route.terminal}".` : `Commands run as child processes: ${route.reason}`;
            if (line !== lastRoute) log(line);
            lastRoute = line;
          },
        });
        workspaces.set(root, workspace);
      }
      return workspace;
    },
  };
}
