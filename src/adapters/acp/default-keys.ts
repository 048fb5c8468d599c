import { providerApiKey, resolveSettings } from '../../config/provider-config';

/**
 * The environment variables of required API keys that are not set: the
 * default provider's, as the settings of `cwd` name it. Reads settings
 * only, so it can answer `initialize` without loading any provider.
 */
export function missingApiKeys(cwd: string, env: NodeJS.ProcessEnv): string[] {
  const settings = resolveSettings(cwd, {}, env);
  const entry = settings.providers[settings.provider]!;
  try {
    providerApiKey(entry, env);
    return [];
  } catch {
    return entry.apiKeyEnv === undefined ? [] : [entry.apiKeyEnv];
  }
}
