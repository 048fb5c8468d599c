/**
 * `crow login --check`: one small request with the key before it is kept,
 * the provider's model list (the cheapest request both APIs answer only to
 * a valid key: Anthropic's GET /v1/models, OpenAI's GET /models). Only the
 * status is read; the body is dropped unread.
 */
import type { ProviderEntry } from '../../config/settings';

export type KeyCheck = { ok: true; said: string } | { ok: false; why: string };

const ANTHROPIC_API = 'https://api.anthropic.com';
const OPENAI_API = 'https://api.openai.com/v1';
const CHECK_TIMEOUT_MS = 15_000;

export async function checkKey(entry: ProviderEntry, key: string): Promise<KeyCheck> {
  const request = checkRequest(entry, key);
  if (!request) return { ok: false, why: `--check cannot check a key of a ${entry.type} provider ("${entry.name}"); store it without --check.` };
  let status: number;
  try {
    const response = await fetch(request.url, { headers: request.headers, signal: AbortSignal.timeout(CHECK_TIMEOUT_MS), redirect: 'error' });
    status = response.status;
    await response.body?.cancel();
  } catch (err) {
    const reason = (err as Error).name === 'TimeoutError' ? `no answer in ${CHECK_TIMEOUT_MS / 1000} s` : (err as Error).message;
    return { ok: false, why: `could not reach ${request.host} to check the key (${reason}). Try again, or store it without --check.` };
  }
  if (status >= 200 && status < 300) return { ok: true, said: `${request.host} accepted the key.` };
  if (status === 401 || status === 403) return { ok: false, why: `${request.host} refused the key (HTTP ${status}): check that it is the whole key, for this provider, and not revoked.` };
  return { ok: false, why: `${request.host} answered HTTP ${status} to the check, so the key could not be checked. Try again, or store it without --check.` };
}

function checkRequest(entry: ProviderEntry, key: string): { url: string; host: string; headers: Record<string, string> } | undefined {
  const anthropic = entry.type === 'anthropic';
  if (!anthropic && entry.type !== 'openai' && entry.type !== 'openai-responses') return undefined;
  const base = (entry.baseUrl ?? (anthropic ? ANTHROPIC_API : OPENAI_API)).replace(/\/+$/, '');
  const url = anthropic ? `${base}/v1/models?limit=1` : `${base}/models`;
  const headers: Record<string, string> = anthropic ? { 'anthropic-version': '2023-06-01', 'x-api-key': key } : { authorization: `Bearer ${key}` };
  return { url, host: new URL(url).host, headers };
}
