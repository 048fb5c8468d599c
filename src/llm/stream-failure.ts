/**
 * How a failed attempt is judged (retry or not, and after how long) and
 * worded (what went wrong and what the user can do about it), for the SDK
 * errors both providers raise.
 */

/** Besides these, every 5xx (529 "overloaded" included) is retried. */
const RETRYABLE_STATUSES = new Set([408, 409, 429]);
import { errorText } from '../config/text';
import type { ErrorKind } from './types';
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
  /** Set for failures the engine can act on. */
  kind?: ErrorKind;
}

/**
 * How each server says a prompt is over its context window: Anthropic
 * ("prompt is too long: N tokens > M maximum"; earlier "input length and
 * `max_tokens` exceed context limit"), OpenAI and vLLM ("maximum context
 * length is N tokens", code context_length_exceeded), llama.cpp
 * (exceed_context_size_error), Ollama ("the prompt is longer than the
 * context length"), LM Studio ("loaded with context length of only N
 * tokens", "Context size has been exceeded"), Bedrock ("Input is too long").
 */
const CONTEXT_OVERFLOW = [
  /prompt is too long/i,
  /exceed context limit/i,
  /maximum context length/i,
  /context_length_exceeded/,
  /exceed_context_size_error|exceeds the available context size/i,
  /prompt is longer than the context length/i,
  /context length of only/i,
  /context size has been exceeded/i,
  /input is too long/i,
];

function isContextOverflow(status: number, error: SdkApiError, detail: string): boolean {
  if (status !== 400 && status !== 413) return false;
  const body = error.error as { error?: { code?: unknown; type?: unknown }; code?: unknown; type?: unknown } | undefined;
  const tags = [body?.error?.code, body?.error?.type, body?.code, body?.type, error.type].filter((tag) => typeof tag === 'string');
  return CONTEXT_OVERFLOW.some((pattern) => pattern.test(detail) || tags.some((tag) => pattern.test(tag as string)));
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
    if (isContextOverflow(status, error, detail)) diagnosis.kind = 'context_overflow';
    return diagnosis;
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

function httpErrorMessage(status: number, detail: string, profile: ProviderProfile): string {
  // The advice that follows brings its own full stop.
  const base = `${profile.label} returned HTTP ${status}: ${detail.replace(/\.\s*$/, '')}`;
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

/** The server's own words, without the SDK's status prefix or JSON wrapping. */
function serverMessage(error: SdkApiError): string {
  const body = error.error as { message?: unknown; error?: { message?: unknown } } | undefined;
  const message = body?.error?.message ?? body?.message;
  return typeof message === 'string' ? message : error.message;
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
