/**
 * How a failed attempt is judged (retry or not, and after how long) and
 * worded (what went wrong and what the user can do about it), for the SDK
 * errors both providers raise.
 */

/** Besides these, every 5xx (529 "overloaded" included) is retried. */
const RETRYABLE_STATUSES = new Set([408, 409, 429]);
import { errorText } from '../vocabulary/text';
import { StreamLimitError } from './sse';
import type { ContextOverflow } from './types';
/** Error types a server may send inside a stream (the HTTP status was already 200) that say "try again". */
const TRANSIENT_ERROR_TYPES = new Set(['overloaded_error', 'api_error', 'rate_limit_error', 'server_error']);
const CONNECTION_ERROR_CODES = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'EPIPE',
  'ETIMEDOUT',
  'EAI_AGAIN',
  'UND_ERR_SOCKET',
]);

type ErrorClass<T> = abstract new (...args: never[]) => T;

/** The shape both SDKs give an HTTP error (`status` is undefined for errors sent inside a stream). */
interface SdkApiError extends Error {
  status: number | undefined;
  headers: Headers | undefined;
  /** The parsed error body. */
  error: object | undefined;
  /** The error type the body names, e.g. "overloaded_error". */
  type?: string | null | undefined;
}

/** Who is on the other end, to judge failures and to word them so a user can act. */
export interface ProviderProfile {
  /** Names the server mid-sentence, e.g. "Anthropic" or "the server at http://localhost:11434/v1". */
  label: string;
  apiKeyEnv: string;
  model: string;
  baseURL: string;
  /** The SDK's error classes, which tell HTTP, in-stream and connection failures apart. */
  APIError: ErrorClass<SdkApiError>;
  APIConnectionError: ErrorClass<Error>;
}

export interface Diagnosis {
  /** For people: what went wrong and, where possible, what to do. */
  message: string;
  retryable: boolean;
  /** The wait the server asked for. */
  retryAfterMs?: number;
  /** Set when the prompt did not fit the model's context window. */
  overflow?: ContextOverflow;
}

/**
 * How each server says a prompt is over its context window, and where its
 * message puts the numbers: Anthropic ("prompt is too long: N tokens > M
 * maximum"), OpenAI ("maximum context length is M tokens. However, your
 * messages resulted in N tokens", code context_length_exceeded), vLLM
 * ("maximum context length is M tokens. However, … your prompt contains at
 * least N input tokens"), llama.cpp ("request (N tokens) exceeds the
 * available context size (M tokens)", exceed_context_size_error), LM Studio
 * ("keep the first N tokens … context length of only M tokens"), Ollama
 * ("the prompt is longer than the context length"), Bedrock ("Input is too
 * long"). `prompt` and `window` are the capture groups of the numbers.
 */
const CONTEXT_OVERFLOW: { pattern: RegExp; prompt?: number; window?: number }[] = [
  { pattern: /prompt is too long: (\d+) tokens > (\d+) maximum/i, prompt: 1, window: 2 },
  { pattern: /input length and `max_tokens` exceed context limit: (\d+) \+ \d+ > (\d+)/i, prompt: 1, window: 2 },
  { pattern: /maximum context length is (\d+) tokens\. However, your messages resulted in (\d+) tokens/i, window: 1, prompt: 2 },
  { pattern: /maximum context length is (\d+) tokens\. However,.*?prompt contains at least (\d+) input tokens/is, window: 1, prompt: 2 },
  { pattern: /maximum context length is (\d+) tokens\. However, you requested \d+ tokens \((\d+) in the messages/i, window: 1, prompt: 2 },
  { pattern: /maximum context length is (\d+) tokens/i, window: 1 },
  { pattern: /context_length_exceeded/ },
  { pattern: /request \((\d+) tokens\) exceeds the available context size \((\d+) tokens\)/i, prompt: 1, window: 2 },
  { pattern: /exceed_context_size_error|exceeds the available context size/i },
  { pattern: /keep the first (\d+) tokens when context the overflows.*?context length of only (\d+) tokens/is, prompt: 1, window: 2 },
  { pattern: /context length of only (\d+) tokens/i, window: 1 },
  { pattern: /prompt is longer than the context length/i },
  { pattern: /context size has been exceeded/i },
  { pattern: /input is too long/i },
];

/** The overflow a refused request reports, with its numbers where the message has them; undefined for any other failure. */
function contextOverflow(status: number, error: SdkApiError, detail: string): ContextOverflow | undefined {
  if (status !== 400 && status !== 413) return undefined;
  const body = error.error as { error?: Record<string, unknown>; code?: unknown; type?: unknown } | undefined;
  const tags = [body?.error?.code, body?.error?.type, body?.code, body?.type, error.type].filter((tag): tag is string => typeof tag === 'string');
  for (const { pattern, prompt, window } of CONTEXT_OVERFLOW) {
    const match = pattern.exec(detail) ?? tags.map((tag) => pattern.exec(tag)).find(Boolean);
    if (!match) continue;
    // llama.cpp also gives both numbers as fields of its error object.
    const windowTokens = positive(window !== undefined ? match[window] : body?.error?.n_ctx);
    const promptTokens = positive(prompt !== undefined ? match[prompt] : body?.error?.n_prompt_tokens);
    return { ...(windowTokens !== undefined ? { windowTokens } : {}), ...(promptTokens !== undefined ? { promptTokens } : {}) };
  }
  return undefined;
}

function positive(value: unknown): number | undefined {
  const number = Number(value);
  return Number.isInteger(number) && number > 0 ? number : undefined;
}

export function diagnose(error: unknown, profile: ProviderProfile): Diagnosis {
  if (error instanceof profile.APIError && error.status !== undefined) {
    const status = error.status;
    const detail = serverMessage(error);
    const diagnosis: Diagnosis = {
      message: httpErrorMessage(status, detail, profile),
      retryable: RETRYABLE_STATUSES.has(status) || status >= 500,
      retryAfterMs: requestedDelay(error.headers),
    };
    const overflow = contextOverflow(status, error, detail);
    if (overflow) diagnosis.overflow = overflow;
    return diagnosis;
  }
  if (error instanceof StreamLimitError) {
    // Not retried: a server that sends this is broken (or is no model server), and would cost as much memory again.
    return {
      message: `${profile.label} ${error.message}, so the answer was abandoned. A model server does not send that: check the base URL (${profile.baseURL}) and any proxy in between`,
      retryable: false,
    };
  }
  if (isConnectionError(error, profile)) {
    return { message: `the connection to ${profile.label} failed (${causeText(error)})`, retryable: true };
  }
  if (error instanceof profile.APIError) {
    return {
      message: `${profile.label} sent an error in the stream: ${serverMessage(error)}`,
      retryable: TRANSIENT_ERROR_TYPES.has(error.type ?? ''),
    };
  }
  return { message: `${profile.label} stream failed: ${causeText(error)}`, retryable: false };
}

/** How much of a server's error message is shown: a sentence or a few, not a page. */
const MAX_DETAIL_CHARS = 1_000;

function httpErrorMessage(status: number, detail: string, profile: ProviderProfile): string {
  const shown = detail.length > MAX_DETAIL_CHARS ? `${detail.slice(0, MAX_DETAIL_CHARS)}… (${detail.length} characters in all)` : detail;
  // The advice that follows brings its own full stop.
  const base = `${profile.label} returned HTTP ${status}: ${shown.replace(/\.\s*$/, '')}`;
  switch (status) {
    case 401:
      return `${base}. Check ${profile.apiKeyEnv}.`;
    case 403:
      return `${base}. Check that the key in ${profile.apiKeyEnv} may use model "${profile.model}".`;
    case 404:
      return `${base}. Check the model name ("${profile.model}") and the base URL (${profile.baseURL}).`;
    default:
      return base;
  }
}

/** The server's own words, without the SDK's status prefix or JSON wrapping; a web page reduced to its title. */
function serverMessage(error: SdkApiError): string {
  const body = error.error as { message?: unknown; error?: { message?: unknown } } | undefined;
  const message = body?.error?.message ?? body?.message;
  if (typeof message === 'string') return pageTitle(message) ?? message;
  // The SDKs put the status before a body that is no JSON error ("500 Bad Gateway"); the message around it says the status already.
  const text = error.status !== undefined && error.message.startsWith(`${error.status} `) ? error.message.slice(`${error.status} `.length) : error.message;
  return pageTitle(text) ?? text;
}

/**
 * What an HTML error page says in a line: its title (else its first
 * heading), and who sent it. A proxy, gateway or load balancer in front of
 * the model server answers with a page, not with the API's JSON error; the
 * page itself is markup nobody should have to read. Undefined for text that
 * is no page.
 */
function pageTitle(text: string): string | undefined {
  if (!/^\s*(<!doctype html|<html|<head|<body|<\?xml|<h1|<title)/i.test(text)) return undefined;
  const heading = /<title[^>]*>([\s\S]*?)<\/title>/i.exec(text) ?? /<h1[^>]*>([\s\S]*?)<\/h1>/i.exec(text);
  const title = heading?.[1]?.replace(/<[^>]*>/g, '').replace(/\s+/g, ' ').trim().slice(0, 200);
  return `${title || 'an HTML page'} (a web page, not the API's answer: a proxy or gateway in front of the model server answered)`;
}

/** The wait a `retry-after-ms` or `retry-after` (seconds or HTTP date) header asks for, if any. */
function requestedDelay(headers: Headers | undefined): number | undefined {
  const ms = Number(headers?.get('retry-after-ms') ?? NaN);
  if (ms >= 0) return ms;
  const retryAfter = headers?.get('retry-after');
  if (!retryAfter) return undefined;
  const secondsToWait = Number(retryAfter);
  if (secondsToWait >= 0) return secondsToWait * 1000;
  const date = Date.parse(retryAfter);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

/** Connection failures surface as the SDK's connection error or, mid-body, as a bare fetch TypeError. */
function isConnectionError(error: unknown, profile: ProviderProfile): boolean {
  if (error instanceof profile.APIConnectionError) return true;
  if (error instanceof TypeError && (error.message === 'terminated' || error.message === 'fetch failed')) return true;
  for (let cause = error, depth = 0; cause instanceof Error && depth < 4; cause = cause.cause, depth++) {
    const code = (cause as NodeJS.ErrnoException).code;
    if (code && CONNECTION_ERROR_CODES.has(code)) return true;
  }
  return false;
}

/** The error's message, followed by its causes' where they add something. */
function causeText(error: unknown): string {
  const parts: string[] = [];
  for (let cause = error, depth = 0; cause !== undefined && depth < 4; depth++) {
    const message = errorText(cause).replace(/\.$/, '');
    if (message && !parts.includes(message)) parts.push(message);
    cause = cause instanceof Error ? cause.cause : undefined;
  }
  return parts.join(': ') || 'unknown error';
}
