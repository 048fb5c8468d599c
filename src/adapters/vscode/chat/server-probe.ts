/**
 * "Test" in the chat's provider set-up: asks an OpenAI-compatible server
 * (Ollama, LM Studio, vLLM, llama.cpp's server) which models it serves, by
 * `GET {base}/models`, as each of them answers it. The address is the
 * person's, the answer the server's: both are checked, and what comes back
 * is cut to what the view shows. Plain Node.
 */
import { errorText } from '../../../vocabulary/text';
import { t } from '../l10n';

export interface ServerProbe {
  ok: boolean;
  /** One sentence for the view: what was found, or what to check. */
  message: string;
  /** The models the server lists, as it names them (at most MAX_MODELS). */
  models: string[];
}

const TIMEOUT_MS = 5_000;
const MAX_BODY_BYTES = 1_000_000;
const MAX_MODELS = 200;
const MAX_NAME = 200;

/** The base URL as Crow would use it, or a sentence saying what is wrong with it. */
export function serverBaseUrl(input: string): { url: string } | { problem: string } {
  const text = input.trim();
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return { problem: t`"${text.slice(0, 80)}" is not a URL: give the server's address, e.g. http://localhost:11434/v1 for Ollama.` };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return { problem: t`The address must start with http:// or https://, not ${url.protocol}//.` };
  if (url.username || url.password) return { problem: t('Leave the user name and password out of the address: Crow sends a key only from the key field or the environment.') };
  if (url.search || url.hash) return { problem: t('The address is the server\'s base (e.g. http://localhost:11434/v1), without "?" or "#" parts.') };
  return { url: url.toString().replace(/\/+$/, '') };
}

/** Asks the server at `input` for its models, sending `key` as a bearer token when given; never throws. */
export async function probeServer(input: string, options: { key?: string; signal?: AbortSignal } = {}): Promise<ServerProbe> {
  const { key, signal } = options;
  const base = serverBaseUrl(input);
  if ('problem' in base) return { ok: false, message: base.problem, models: [] };
  const where = `${base.url}/models`;
  let response: Response;
  try {
    const timeout = AbortSignal.timeout(TIMEOUT_MS);
    response = await fetch(where, { signal: signal ? AbortSignal.any([signal, timeout]) : timeout, redirect: 'error', headers: { accept: 'application/json', ...(key ? { authorization: `Bearer ${key}` } : {}) } });
  } catch (err) {
    const reason = err instanceof Error && err.name === 'TimeoutError' ? `no answer in ${TIMEOUT_MS / 1000} s` : errorText(err);
    return { ok: false, message: t`Could not reach ${base.url} (${reason}). Is the server running, and is the address right?`, models: [] };
  }
  if (!response.ok) {
    const hint =
      response.status === 404 ? ' The address should end where the API starts, often in /v1.'
      : response.status === 401 || response.status === 403 ? (key ? ' It refused the key: check it and test again.' : ' It asks for a key: type it in the key field and test again.')
      : '';
    return { ok: false, message: `${base.url} answered HTTP ${response.status} to GET /models.${hint}`, models: [] };
  }
  const models = modelNames(await boundedText(response));
  if (models === undefined) return { ok: false, message: `${base.url} answered, but not with an OpenAI-style model list: is it an OpenAI-compatible server?`, models: [] };
  if (models.length === 0) return { ok: true, message: t`Connected, but ${base.url} serves no model yet: pull or load one, then test again.`, models };
  return { ok: true, message: models.length === 1 ? t`Connected: ${base.url} serves 1 model.` : t`Connected: ${base.url} serves ${models.length} models.`, models };
}

/** The body as text, at most MAX_BODY_BYTES of it (a larger body is cut, and will not parse). */
async function boundedText(response: Response): Promise<string> {
  const reader = response.body?.getReader();
  if (!reader) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > MAX_BODY_BYTES) {
      await reader.cancel();
      break;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** The ids of `{data: [{id}]}`, one plain line each; undefined when the text is not such a list. */
export function modelNames(text: string): string[] | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  const data = typeof parsed === 'object' && parsed !== null ? (parsed as { data?: unknown }).data : undefined;
  if (!Array.isArray(data)) return undefined;
  const names = data
    .map((entry: unknown) => (typeof entry === 'object' && entry !== null ? (entry as { id?: unknown }).id : undefined))
    .filter((id): id is string => typeof id === 'string')
    .map((id) => id.replace(/[\u0000-\u001f\u007f]/g, '').trim().slice(0, MAX_NAME))
    .filter((id) => id !== '');
  return [...new Set(names)].slice(0, MAX_MODELS);
}
