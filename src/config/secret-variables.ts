/**
 * The environment variables that hold credentials, one list for every
 * process Crow starts: the commands the agents run (child processes,
 * terminals, client terminals, the sandbox), Crow's own git, the eval
 * check, browser openers and search tools never get them, sandbox on or
 * off. The output redactor (telemetry/redact.ts) is a second line behind
 * this one, not a replacement: a command could print a value reversed or
 * re-encoded, so the value must never be there to print.
 */
import type { Settings } from './settings';

/**
 * Variables vendors' SDKs and tools read credentials from whose names the
 * pattern below does not catch (the pattern catches ANTHROPIC_AUTH_TOKEN,
 * AWS_SECRET_ACCESS_KEY, GITHUB_TOKEN, HF_TOKEN and the like by themselves).
 */
const KNOWN_CREDENTIALS = [
  'ANTHROPIC_API_KEY',
  'OPENAI_API_KEY',
  'BRAVE_API_KEY',
  // Google: a path to a service-account key file, which gives the same access as a key.
  'GOOGLE_APPLICATION_CREDENTIALS',
  'CLOUDSDK_AUTH_ACCESS_TOKEN_FILE',
  // AWS: a profile's credentials are as good as its keys; the web identity file is a token.
  'AWS_WEB_IDENTITY_TOKEN_FILE',
  'AWS_CONTAINER_AUTHORIZATION_TOKEN',
  'AWS_CONTAINER_CREDENTIALS_FULL_URI',
  'AWS_CONTAINER_CREDENTIALS_RELATIVE_URI',
  // Azure: a client certificate stands for the client secret.
  'AZURE_CLIENT_CERTIFICATE_PATH',
  'AZURE_FEDERATED_TOKEN_FILE',
  // npm's registry credentials as npm_config_ variables.
  'NPM_CONFIG__AUTH',
  'NPM_CONFIG__AUTHTOKEN',
  // Hugging Face's token file.
  'HF_TOKEN_PATH',
];

/** Words of a variable name that mark it as holding a credential. */
const SECRET_WORDS = new Set([
  'KEY', 'KEYS', 'APIKEY', 'ACCESSKEY', 'SECRETKEY', 'PRIVATEKEY',
  'TOKEN', 'TOKENS', 'AUTHTOKEN', 'ACCESSTOKEN',
  'SECRET', 'SECRETS',
  'PASSWORD', 'PASSWORDS', 'PASSWD', 'PASSPHRASE',
  'CREDENTIAL', 'CREDENTIALS',
]);

/**
 * Whether a variable holds a credential by its name alone: one of the known
 * credential variables, or a name one of whose words (split at `_`, `-`,
 * `.`, `:`, `/` and lower-to-upper case changes) is KEY, TOKEN, SECRET,
 * PASSWORD, CREDENTIALS or the like (ANTHROPIC_AUTH_TOKEN, GH_TOKEN,
 * AWS_SECRET_ACCESS_KEY, AZURE_CLIENT_SECRET, npm_config__authToken).
 * Names the settings give (see secretVariableNames) come on top.
 */
export function isSecretVariable(name: string): boolean {
  const upper = name.toUpperCase();
  if (KNOWN_CREDENTIALS.includes(upper)) return true;
  const words = name
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .toUpperCase()
    .split(/[^A-Z0-9]+/);
  return words.some((word) => SECRET_WORDS.has(word));
}

/**
 * Every variable the settings name as holding a secret: each provider's
 * api_key_env, each MCP server's env names and headers_env variables, the
 * web search backend's key, plus the known credential variables. Sorted, once each.
 */
export function secretVariableNames(settings: Settings | undefined): string[] {
  const names = new Set(KNOWN_CREDENTIALS.slice(0, 3));
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

/**
 * The environment for a process Crow starts: `env` without the names given
 * and without every variable isSecretVariable recognizes. Every child
 * process gets its environment from here (or from a launch built on it).
 */
export function withoutSecrets(env: NodeJS.ProcessEnv, names: readonly string[] = []): NodeJS.ProcessEnv {
  const hidden = new Set(names);
  return Object.fromEntries(Object.entries(env).filter(([name]) => !hidden.has(name) && !isSecretVariable(name)));
}

/** The variables of `env` to remove before a command sees it: the names given, and any set in `env` that isSecretVariable recognizes. */
export function hiddenVariablesOf(env: NodeJS.ProcessEnv, names: readonly string[] = []): string[] {
  return [...new Set([...names, ...Object.keys(env).filter(isSecretVariable)])].sort();
}
