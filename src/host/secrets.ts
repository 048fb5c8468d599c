import type { Settings } from '../config/provider-config';

/** The vendors' own key variables, whatever the settings say. */
const VENDOR_KEYS = ['ANTHROPIC_API_KEY', 'OPENAI_API_KEY', 'BRAVE_API_KEY'];

/**
 * Every environment variable the settings send somewhere as a secret: each
 * provider's key, the variables MCP servers get or send as headers, the web
 * search key. Their values are redacted from whatever leaves the process.
 */
export function secretVariables(settings: Settings): string[] {
  const names = new Set(VENDOR_KEYS);
  for (const provider of Object.values(settings.providers)) if (provider.apiKeyEnv) names.add(provider.apiKeyEnv);
  for (const server of Object.values(settings.mcpServers ?? {})) {
    for (const name of server.env ?? []) names.add(name);
    for (const name of Object.values(server.headersEnv ?? {})) names.add(name);
  }
  const search = settings.webSearch;
  if (search?.backend === 'brave' && search.apiKeyEnv) names.add(search.apiKeyEnv);
  return [...names];
}
