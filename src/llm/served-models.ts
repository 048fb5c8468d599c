/**
 * The models a configured server serves, from its own list (`GET /models`),
 * with what the list says of each: the context window and the output cap.
 * Anthropic's list gives both (`max_input_tokens`, `max_tokens`) and each
 * model's lifecycle; OpenAI-compatible servers give ids, some a window
 * (vLLM's `max_model_len`, OpenRouter's `context_length` and
 * `top_provider.max_completion_tokens`). Read once per server and key in a
 * process, in the background of what the person waits for: what is known
 * now is asked synchronously, a refresh is awaited only where a door can
 * wait (a picker being opened).
 */
import { BodyLimitError, boundedFetch, MODEL_SERVER_LIMITS } from './bounded-body';

export interface ServedModel {
  id: string;
  contextWindow?: number;
  outputCap?: number;
}

/** Where to ask and how to sign the request. */
export interface ServerAddress {
  kind: 'anthropic' | 'openai';
  /** Without a trailing slash; the list is at `${baseUrl}/models` (`/v1/models` on Anthropic's). */
  baseUrl: string;
  apiKey: string | undefined;
}

const ANTHROPIC_API = 'https://api.anthropic.com';
const OPENAI_API = 'https://api.openai.com/v1';
/** How long a listing may take before the doors go on with the configured models. */
const LIST_TIMEOUT_MS = 3_000;
/** A list is a few hundred models at most; one of more is no list Crow reads. */
const LIST_LIMITS = { ...MODEL_SERVER_LIMITS, bodyBytes: 4 * 1024 * 1024 };
/** A list is read only this far: pickers show it whole, and a server may send anything. */
const MAX_MODELS = 1_000;
/** A model id longer than this, or holding control characters, is no id a picker can show (and is left out). */
const MODEL_ID = /^[^\p{Cc}]{1,200}$/u;
/** A window or output cap past this is no count a model has (100M tokens): it is left out. */
const MAX_TOKENS = 100_000_000;
/** After a failed listing, how long before it is tried again. */
const RETRY_AFTER_MS = 60_000;

interface Listing {
  models?: ServedModel[];
  pending?: Promise<ServedModel[] | undefined>;
  failedAt?: number;
}

const listings = new Map<string, Listing>();

function keyOf(address: ServerAddress): string {
  return `${address.kind} ${address.baseUrl} ${address.apiKey ?? ''}`;
}

/** The server's models as last listed in this process; undefined when not (yet) listed. */
export function servedModels(address: ServerAddress): ServedModel[] | undefined {
  return listings.get(keyOf(address))?.models;
}

/**
 * Lists the server's models (once per process; a failure is tried again
 * after a minute). Undefined when the server has no list or did not answer
 * in time: the configured models stand. Never throws.
 */
export function refreshServedModels(address: ServerAddress): Promise<ServedModel[] | undefined> {
  const key = keyOf(address);
  const listing = listings.get(key) ?? {};
  listings.set(key, listing);
  if (listing.models) return Promise.resolve(listing.models);
  if (listing.pending) return listing.pending;
  if (listing.failedAt !== undefined && Date.now() - listing.failedAt < RETRY_AFTER_MS) return Promise.resolve(undefined);
  listing.pending = fetchList(address)
    .then((models) => {
      listing.models = models;
      return models;
    })
    .catch(() => {
      listing.failedAt = Date.now();
      return undefined;
    })
    .finally(() => (listing.pending = undefined));
  return listing.pending;
}

/** Where a configured provider lists its models; undefined for a kind that has no list Crow reads. */
export function serverAddress(entry: { type: string; baseUrl?: string }, apiKey: string | undefined): ServerAddress | undefined {
  // Bedrock and Vertex list models through their clouds' own APIs, which Crow does not read.
  const kind = entry.type === 'anthropic' ? 'anthropic' : entry.type === 'openai' || entry.type === 'openai-responses' ? 'openai' : undefined;
  if (kind === undefined) return undefined;
  return { kind, baseUrl: (entry.baseUrl ?? (kind === 'anthropic' ? ANTHROPIC_API : OPENAI_API)).replace(/\/+$/, ''), apiKey };
}

/** What the server's list says of `model`, when it has been listed. */
export function servedModel(entry: { type: string; baseUrl?: string }, apiKey: string | undefined, model: string): ServedModel | undefined {
  const address = serverAddress(entry, apiKey);
  return address ? servedModels(address)?.find((served) => served.id === model) : undefined;
}

async function fetchList(address: ServerAddress): Promise<ServedModel[]> {
  const anthropic = address.kind === 'anthropic';
  const url = `${address.baseUrl.replace(/\/+$/, '')}${anthropic ? '/v1/models?limit=1000' : '/models'}`;
  // Without a key, what the provider's own requests send (see providerFor): servers that need none ignore it.
  const key = address.apiKey ?? 'not-needed';
  const headers: Record<string, string> = anthropic ? { 'anthropic-version': '2023-06-01', 'x-api-key': key } : { authorization: `Bearer ${key}` };
  const response = await boundedFetch((input, init) => fetch(input, init), LIST_LIMITS)(url, { headers, signal: AbortSignal.timeout(LIST_TIMEOUT_MS) });
  if (!response.ok) throw new Error(`HTTP ${response.status}`);
  let body: unknown;
  try {
    body = await response.json();
  } catch (err) {
    throw err instanceof BodyLimitError ? err : new Error('the list is not JSON');
  }
  return parseList(body);
}

/**
 * The models of a list in either shape, read as hostile input: retired
 * models (Anthropic's lifecycle), ids a picker cannot show, repeated ids and
 * counts no model has are left out, and the list is cut at MAX_MODELS.
 */
export function parseList(body: unknown): ServedModel[] {
  const data = (body as { data?: unknown } | null)?.data;
  if (!Array.isArray(data)) throw new Error('the answer holds no list of models');
  const seen = new Set<string>();
  return data.flatMap((item): ServedModel[] => {
    if (typeof item !== 'object' || item === null || seen.size >= MAX_MODELS) return [];
    const entry = item as Record<string, unknown>;
    if (typeof entry.id !== 'string' || !MODEL_ID.test(entry.id) || seen.has(entry.id) || entry.lifecycle === 'retired') return [];
    seen.add(entry.id);
    const contextWindow = count(entry.max_input_tokens) ?? count(entry.context_length) ?? count(entry.max_model_len) ?? count(entry.context_window);
    const provider = entry.top_provider as Record<string, unknown> | undefined;
    const outputCap = count(entry.max_tokens) ?? count(provider?.max_completion_tokens) ?? count(entry.max_output_tokens);
    return [{ id: entry.id, ...(contextWindow !== undefined ? { contextWindow } : {}), ...(outputCap !== undefined ? { outputCap } : {}) }];
  });
}

function count(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isInteger(value) && value > 0 && value <= MAX_TOKENS ? value : undefined;
}
