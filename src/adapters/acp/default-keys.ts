import { missingDefaultKey, resolveSettings } from '../../config/provider-config';

/**
 * The environment variables of required API keys that are not set: the
 * default provider's, as the settings of `cwd` name it (an untrusted
 * project's provider left out, as its sessions would). Reads settings only,
 * so it can answer `initialize` without loading any provider.
 */
export function missingApiKeys(cwd: string, env: NodeJS.ProcessEnv): string[] {
  return missingDefaultKey(resolveSettings(cwd, {}, env), env);
}
