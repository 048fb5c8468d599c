/**
 * The environment variables that hold credentials, one list for every
 * process Crow starts: the commands the agents run (child processes,
 * terminals, client terminals, the sandbox), Crow's own git, the eval
 * check, browser openers and search tools never get them, sandbox on or
 * off. The output redactor (telemetry/redact.ts) is a second line behind
 * this one, not a replacement: a command could print a value reversed or
 * re-encoded, so the value must never be there to print.
 *
 * A variable holds a credential by its name (isSecretVariable), by its
 * value (isSecretValue: a URL with a password, a connection string with a
 * key, a token in a vendor's own form), or because its value holds one of
 * those credentials (a key Crow holds for a provider, copied under another
 * name).
 *
 * Left to commands on purpose, as variables that name where a credential
 * lives rather than holding one, and that the tools a build runs need:
 * SSH_AUTH_SOCK (git over ssh asks the agent; the socket is found without
 * the variable too), GPG_AGENT_INFO, XAUTHORITY, KRB5CCNAME and
 * DBUS_SESSION_BUS_ADDRESS (paths and sockets at well-known places),
 * KUBECONFIG and other *_CONFIG paths. What such a file or socket holds is
 * kept from commands by the sandbox's view of the disk, not by the scrub.
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
  // GitLab CI: the registry credentials as JSON.
  'DOCKER_AUTH_CONFIG',
];

/** Words of a variable name that mark it as holding a credential, wherever they stand. */
const SECRET_WORDS = new Set([
  'KEY', 'KEYS', 'APIKEY', 'ACCESSKEY', 'SECRETKEY', 'PRIVATEKEY',
  'TOKEN', 'TOKENS', 'AUTHTOKEN', 'ACCESSTOKEN',
  'SECRET', 'SECRETS',
  'PASSWORD', 'PASSWORDS', 'PASSWD', 'PASSPHRASE',
  'CREDENTIAL', 'CREDENTIALS', 'CREDS',
  // A CI job's identity token (GitLab CI_JOB_JWT, CI_JOB_JWT_V2), a Sentry or database DSN, a chat webhook's URL.
  'JWT', 'DSN', 'WEBHOOK',
]);

/**
 * Words that mark a credential as the last word of a longer name only:
 * REDISCLI_AUTH, AZURE_DEVOPS_EXT_PAT, MYSQL_PWD, but not SSH_AUTH_SOCK
 * (the ssh agent's socket) or PWD (the current folder).
 */
const SECRET_LAST_WORDS = new Set(['AUTH', 'PAT', 'PWD']);

/** Parts of a name that mark a credential even inside a word: PGPASSWORD, MYSQLPASSWORD. */
const SECRET_PARTS = /PASSWORD|PASSWD|PASSPHRASE/;

/**
 * Whether a variable holds a credential by its name alone: one of the known
 * credential variables, a name holding PASSWORD (PGPASSWORD), or a name one
 * of whose words (split at `_`, `-`, `.`, `:`, `/` and lower-to-upper case
 * changes) is KEY, TOKEN, SECRET, PASSWORD, CREDENTIALS, JWT, DSN or the
 * like (ANTHROPIC_AUTH_TOKEN, GH_TOKEN, AWS_SECRET_ACCESS_KEY, CI_JOB_JWT,
 * SENTRY_DSN, npm_config__authToken), or whose last word is AUTH, PAT or
 * PWD (REDISCLI_AUTH, AZURE_DEVOPS_EXT_PAT, MYSQL_PWD).
 * Names the settings give (see secretVariableNames) come on top.
 */
export function isSecretVariable(name: string): boolean {
  const upper = name.toUpperCase();
  if (KNOWN_CREDENTIALS.includes(upper) || SECRET_PARTS.test(upper)) return true;
  const words = name
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .toUpperCase()
    .split(/[^A-Z0-9]+/)
    .filter(Boolean);
  if (words.length > 1 && SECRET_LAST_WORDS.has(words.at(-1)!)) return true;
  return words.some((word) => SECRET_WORDS.has(word));
}

/** A URL whose user part carries a password: `postgres://app:PASSWORD@db/app`, `redis://:PASSWORD@cache`. Group 1 is the password. */
const URL_PASSWORD = /\b[a-z][a-z0-9+.-]*:\/\/[^\s/?#@:]*:([^\s/?#@]+)@/gi;
/** A connection string's key (`Server=db;User Id=app;Password=...`, Azure's `AccountKey=...`). Group 1 is the key. */
const CONNECTION_KEY = /(?:^|;)\s*(?:password|pwd|accountkey|sharedaccesskey|sharedaccesssignature)\s*=\s*([^;]+)/gi;
/** Whole values in the forms vendors give their keys and tokens (Anthropic, OpenAI, GitHub, GitLab, Slack, AWS, Google, Hugging Face, npm, a JWT). */
const TOKEN_FORMS = [
  /^sk-[A-Za-z0-9_-]{20,}$/,
  /^gh[pousr]_[A-Za-z0-9]{30,}$/,
  /^github_pat_[A-Za-z0-9_]{40,}$/,
  /^glpat-[A-Za-z0-9_-]{20,}$/,
  /^xox[abposr]-[A-Za-z0-9-]{10,}$/,
  /^(?:AKIA|ASIA)[0-9A-Z]{16}$/,
  /^AIza[0-9A-Za-z_-]{35}$/,
  /^hf_[A-Za-z0-9]{30,}$/,
  /^npm_[A-Za-z0-9]{36}$/,
  /^eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]+$/,
];
/**
 * A credential this long or longer is looked for inside other variables'
 * values. API keys are longer; a short password is not looked for, as it
 * would match ordinary values (PGPASSWORD=postgres is in PGUSER and PATH).
 */
const MIN_COPIED_SECRET = 16;

/** The credentials held inside `value` itself: a URL's password, a connection string's key, the value whole when it is a token in a vendor's form. */
export function credentialsIn(value: string): string[] {
  const found = [...value.matchAll(URL_PASSWORD), ...value.matchAll(CONNECTION_KEY)].map((match) => match[1]!.trim());
  if (TOKEN_FORMS.some((form) => form.test(value.trim()))) found.push(value.trim());
  return found.filter((credential) => credential !== '');
}

/** Whether a value holds a credential whatever its variable's name (see credentialsIn). */
export function isSecretValue(value: string): boolean {
  return credentialsIn(value).length > 0;
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
 * The environment for a process Crow starts: `env` without the variables
 * hiddenVariablesOf finds. Every child process gets its environment from
 * here (or from a launch built on it).
 */
export function withoutSecrets(env: NodeJS.ProcessEnv, names: readonly string[] = []): NodeJS.ProcessEnv {
  const hidden = new Set(hiddenVariablesOf(env, names));
  return Object.fromEntries(Object.entries(env).filter(([name]) => !hidden.has(name)));
}

/**
 * The variables of `env` to remove before a command sees it: the names
 * given, those isSecretVariable knows by name, those isSecretValue knows by
 * value, and any whose value holds one of their values (a provider's key
 * copied under another name). Sorted, once each.
 */
export function hiddenVariablesOf(env: NodeJS.ProcessEnv, names: readonly string[] = []): string[] {
  const hidden = new Set(names);
  for (const [name, value] of Object.entries(env)) if (isSecretVariable(name) || (value !== undefined && isSecretValue(value))) hidden.add(name);
  const secrets = secretValuesOf(env, names).filter((secret) => secret.length >= MIN_COPIED_SECRET);
  for (const [name, value] of Object.entries(env)) if (value !== undefined && secrets.some((secret) => value.includes(secret))) hidden.add(name);
  return [...hidden].sort();
}

/**
 * Every credential `env` holds, for the redactor: the value of each
 * variable named as a credential (the names given, isSecretVariable) and
 * the credentials inside any value (credentialsIn). Once each.
 */
export function secretValuesOf(env: NodeJS.ProcessEnv, names: readonly string[] = []): string[] {
  const named = new Set(names);
  const found = new Set<string>();
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined || value === '') continue;
    if (named.has(name) || isSecretVariable(name)) found.add(value);
    for (const credential of credentialsIn(value)) found.add(credential);
  }
  return [...found];
}
