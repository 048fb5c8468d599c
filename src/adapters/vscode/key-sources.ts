/**
 * Where the extension's engine finds API keys, in order: the key set with
 * "Crow: Set API Key" (VS Code's SecretStorage, set here on purpose), the
 * extension host's environment, the key `crow login` stored (the OS
 * keychain or Crow's private key file, shared with the CLI and ACP
 * clients). Kept apart from secrets.ts so it runs without the workbench.
 */
import { LoginKeys, storedKeysFor } from '../../config/login-keys';
import { dataHome } from '../../config/paths';

/**
 * The environment the engine runs with: `env`, the login keys for the
 * variables it leaves unset or empty, and SecretStorage's keys over both.
 */
export function engineEnvironment(env: NodeJS.ProcessEnv, loginKeys: Record<string, string>, secretStorage: Record<string, string>): NodeJS.ProcessEnv {
  const unset = Object.entries(loginKeys).filter(([variable]) => !env[variable]);
  return { ...env, ...Object.fromEntries(unset), ...secretStorage };
}

/**
 * The keys `crow login` stored for variables `env` leaves unset (light
 * enough for activation: one lstat when none is stored, the keychain module
 * loaded only for a key kept there). What cannot be read goes to `warn`,
 * never a key.
 */
export function loginKeysFor(env: NodeJS.ProcessEnv, warn: (problem: string) => void, store: LoginKeys = new LoginKeys(dataHome(env))): Record<string, string> {
  const { keys, problems } = storedKeysFor(env, store);
  for (const problem of problems) warn(problem);
  return keys;
}
