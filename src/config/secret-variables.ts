/**
 * The environment variables that hold our credentials. Commands the agents
 * run (every route: child processes, terminals, client terminals, the
 * sandbox) never get them, with the sandbox on or off.
 */
import type { Settings } from './settings';

/** Key variables of the built-in providers and the Brave backend, secret whatever the configuration says. */
const ALWAYS_SECRET = ['ANTHROPIC_API_KEY', 'OPENAI_API_KEY', 'BRAVE_API_KEY'];

/**
 * Whether a variable is one of ours by its name alone: the built-in key
 * variables, or CROW_* with KEY, TOKEN or SECRET in it. Configured names
 * (see secretVariableNames) come on top.
 */
export function isSecretVariable(name: string): boolean {
  const upper = name.toUpperCase();
  if (ALWAYS_SECRET.includes(upper)) return true;
  return upper.startsWith('CROW_') && /KEY|TOKEN|SECRET/.test(upper);
}

/**
 * Every variable the settings name as holding a secret: each provider's
 * api_key_env, each MCP server's env names and headers_env variables, the
 * web search backend's key, plus the built-in key variables. Sorted, once each.
 */
export function secretVariableNames(settings: Settings | undefined): string[] {
  const names = new Set(ALWAYS_SECRET);
  for (const provider of Object.values(settings?.providers ?? {})) {
    if (provider.apiKeyEnv !== undefined) names.add(provider.apiKeyEnv);
  }
  for (const server of Object.values(settings?.mcpServers ?? {})) {
    for (const name of server.env ?? []) names.add(name);
    for (const name of Object.values(server.headersEnv ?? {})) names.add(name);
  }
  const search = settings?.webSearch;
  if (search?.backend === 'brave' && search.apiKeyEnv !== undefined) names.add(search.apiKeyEnv);
  return [...names].sort();
}

/** `env` without our secrets: the names given and those isSecretVariable recognizes. */
export function withoutSecrets(env: NodeJS.ProcessEnv, names: readonly string[] = []): NodeJS.ProcessEnv {
  const hidden = new Set(names);
  return Object.fromEntries(Object.entries(env).filter(([name]) => !hidden.has(name) && !isSecretVariable(name)));
}

/** The variables of `env` to remove before a command sees it: the names given, and any set in `env` that isSecretVariable recognizes. */
export function hiddenVariablesOf(env: NodeJS.ProcessEnv, names: readonly string[] = []): string[] {
  return [...new Set([...names, ...Object.keys(env).filter(isSecretVariable)])].sort();
}
