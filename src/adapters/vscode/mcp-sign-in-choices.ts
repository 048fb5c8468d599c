/**
 * What "Crow: Sign In to MCP Server…" offers, worked out without VS Code:
 * the folder's remote servers (those with a url), the ones without a
 * sign-in first; and the words of the chat's sign-in notice.
 */
import type { McpServerConfig } from '../../mcp/server-config';
import { t } from './l10n';

/** The command's title, as the palette shows it. */
export function signInCommandTitle(): string {
  return t('Crow: Sign In to MCP Server…');
}

/** How a VS Code user signs in to a server that asks (the chat's notice offers a button too). */
export function vscodeSignInHint(): string {
  return t`use "${signInCommandTitle()}" (the Sign in button here, or the Command Palette)`;
}

export interface SignInChoice {
  server: McpServerConfig;
  label: string;
  description: string;
  signedIn: boolean;
}

/**
 * The servers to pick from: the remote ones, those without a sign-in
 * (the ones that need it) only, unless all have one (then all, to sign in
 * again), in configuration order.
 */
export function signInChoices(servers: readonly McpServerConfig[], signedIn: (url: string) => boolean): SignInChoice[] {
  const remote = servers.flatMap((server) => (server.transport.type === 'stdio' ? [] : [{ server, url: server.transport.url }]));
  const all = remote.map(({ server, url }) => ({ server, label: server.name, description: url, signedIn: signedIn(url) }));
  const needing = all.filter((choice) => !choice.signedIn);
  return needing.length > 0 ? needing : all;
}
