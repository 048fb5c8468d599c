/**
 * "Crow: Sign In to MCP Server…": signs in to a remote MCP server of the
 * folder's configuration that asks for it (OAuth). A quick pick offers the
 * servers without a sign-in (the chat's notice names one and skips it);
 * the authorization page opens through the loopback redirect's one-time
 * start address (open-external.ts; the notification names its domain) and
 * comes back to the same
 * loopback redirect the CLI uses; the tokens go to SecretStorage. The
 * chat's next prompt uses them.
 */
import * as vscode from 'vscode';
import type { Crow } from './crow';
import { signInChoices } from './mcp-sign-in-choices';
import { openExactly } from './open-external';
import { workspaceRoot } from './workspace-root';
import { t } from './l10n';

/** How long the person has to finish in the browser. */
const SIGN_IN_TIMEOUT_MS = 5 * 60_000;

export async function signInToMcpServer(crow: Crow, secrets: vscode.SecretStorage, named: string | undefined): Promise<void> {
  const root = workspaceRoot();
  if (root === undefined) throw new Error(t('Open a folder first: its MCP servers are configured in its settings and config.toml.'));
  const engine = crow.engine();
  const env = await crow.keys.env();
  const settings = engine.settingsFor(root, engine.crowConfiguration(), env, vscode.workspace.isTrusted);
  const servers = engine.serversFromSettings(settings.mcpServers, env);
  const store = new engine.SecretTokenStore(secrets);
  const stored = new Set<string>();
  for (const server of servers) if (server.transport.type !== 'stdio' && (await store.load(server.transport.url))?.tokens) stored.add(server.transport.url);
  const choices = signInChoices(servers, (url) => stored.has(url));
  if (choices.length === 0) {
    void vscode.window.showInformationMessage(t('Crow: no MCP server with a url is configured here, so there is nothing to sign in to (crow.mcpServers, or [mcp_servers] in config.toml).'));
    return;
  }
  const chosen =
    named !== undefined
      ? servers.find((server) => server.name === named)
      : (
          await vscode.window.showQuickPick(
            choices.map((choice) => ({ ...choice, detail: choice.signedIn ? t('signed in: sign in again') : t('needs you to sign in') })),
            { title: t('Sign in to an MCP server'), placeHolder: t('The server to sign in to') },
          )
        )?.server;
  if (!chosen) {
    if (named !== undefined) throw new Error(t`there is no MCP server "${named}" in this folder's settings.`);
    return;
  }
  const result = await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: t`Signing in to MCP server "${chosen.name}"`, cancellable: true },
    (progress, token) => {
      const stop = new AbortController();
      token.onCancellationRequested(() => stop.abort());
      return engine.signInToServer(chosen, {
        store,
        cwd: root,
        signal: stop.signal,
        timeoutMs: SIGN_IN_TIMEOUT_MS,
        // Through the loopback launcher: a workbench in a browser rewrites the page's own address on the way.
        open: async (url, launcher) => {
          progress.report({ message: t`finish on ${url.host}'s page in your browser\u2026` });
          if (!(await openExactly(launcher))) throw new Error(t`the page of ${url.host} was not opened, so nobody can sign in`);
        },
      });
    },
  );
  const tools = result.tools === 1 ? t('it offers 1 tool') : t`it offers ${result.tools} tools`;
  void vscode.window.showInformationMessage(
    result.signedIn ? t`Crow: signed in to MCP server "${chosen.name}": ${tools}. The chat uses it from its next prompt.` : t`Crow: MCP server "${chosen.name}" did not ask for a sign-in (${tools}).`,
  );
}
