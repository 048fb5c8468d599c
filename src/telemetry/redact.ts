/**
 * Keeps secrets out of spans, logs and exports: the values of environment
 * variables whose names contain KEY, TOKEN or SECRET (API keys among them),
 * the credentials the one list of secret-variables.ts finds in the
 * environment (by name, by value: a URL's password, a connection string's
 * key, a vendor's token, a key copied under another name), and
 * bearer/basic credentials, api-key headers and URL passwords wherever
 * they appear.
 */
import { hiddenVariablesOf, secretValuesOf } from '../config/secret-variables';

const SECRET_NAME = /KEY|TOKEN|SECRET|PASSWORD/i;
/** Shorter values (e.g. "1", "true") would redact ordinary text. */
const MIN_SECRET_LENGTH = 8;
/** A variable known to hold a secret is redacted from this length on. */
const MIN_NAMED_LENGTH = 4;
const CREDENTIAL_PATTERNS: RegExp[] = [
  /\b(authorization\s*[:=]\s*)(?:bearer|basic)\s+[^\s"',;]+/gi,
  /\b(bearer\s+)[A-Za-z0-9._~+/=-]{12,}/gi,
  /\b((?:x-api-key|api[-_]?key|x-subscription-token)\s*[:=]\s*["']?)[^\s"',;]+/gi,
  // A URL's password, whatever its length: `postgres://app:[REDACTED]@db`.
  /(\b[a-z][a-z0-9+.-]*:\/\/[^\s/?#@:"']*:)[^\s/?#@"']+(?=@)/gi,
];
export const REDACTED = '[REDACTED]';

export class Redactor {
  private secrets: string[];

  /**
   * Knows the values in `env` of variables named like secrets, of the
   * variables `secretNames` lists whatever their names (a provider's
   * api_key_env, an MCP server's env), and the credentials hidden from
   * commands by value (secret-variables.ts): every secret in play.
   */
  constructor(env: NodeJS.ProcessEnv = process.env, secretNames: readonly string[] = []) {
    const named = new Set(secretNames);
    const hidden = new Set(hiddenVariablesOf(env, secretNames));
    const values = Object.entries(env)
      .filter(([name, value]) => value !== undefined && (named.has(name) ? value.length >= MIN_NAMED_LENGTH : (SECRET_NAME.test(name) || hidden.has(name)) && value.length >= MIN_SECRET_LENGTH))
      .map(([, value]) => value as string);
    const inside = secretValuesOf(env, secretNames).filter((secret) => secret.length >= MIN_SECRET_LENGTH);
    // Longest first, so a secret that contains another is replaced whole.
    this.secrets = [...new Set([...values, ...inside])].sort((a, b) => b.length - a.length);
  }

  /** Redacts these values too from now on (a key stored by crow login after this redactor was made). */
  learn(secrets: readonly string[]): void {
    const fresh = secrets.filter((secret) => secret.length >= MIN_NAMED_LENGTH);
    this.secrets = [...new Set([...this.secrets, ...fresh])].sort((a, b) => b.length - a.length);
  }

  text(value: string): string {
    let out = value;
    for (const secret of this.secrets) if (out.includes(secret)) out = out.split(secret).join(REDACTED);
    for (const pattern of CREDENTIAL_PATTERNS) out = out.replace(pattern, (_match, prefix: string) => `${prefix}${REDACTED}`);
    return out;
  }

  /** A deep copy of a JSON-like value with every string redacted. */
  value<T>(value: T): T {
    if (typeof value === 'string') return this.text(value) as T;
    if (Array.isArray(value)) return value.map((item) => this.value(item)) as T;
    if (value !== null && typeof value === 'object') {
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, this.value(v)])) as T;
    }
    return value;
  }
}
