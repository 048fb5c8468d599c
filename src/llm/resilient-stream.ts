/**
 * The part of streaming that both providers share: retries with backoff for
 * failures that happen before anything reached the consumer (a stall
 * included), an idle timeout
 * for stalled streams, prompt abort, and turning every failure into a final
 * `done` event. Providers supply how to open a stream and how to read it.
 */
import { type AssistantBlock, type AssistantResponse, emptyUsage, type ModelPricing, type StopReason, type StreamEvent, type Usage } from './types';
import { type ProviderProfile, diagnose } from './stream-failure';
import type { ServerFlavor } from './openai-flavor';
import { DEFAULT_IDLE_TIMEOUT_MS, DEFAULT_MAX_RETRIES } from '../config/keys/defaults';

export interface RetryPolicy {
  /** Retries after the first attempt. */
  maxRetries: number;
  /** The first backoff; it doubles per retry, up to 8 s. */
  retryBaseDelayMs: number;
  /** An attempt is abandoned when no wire event arrives for this long (counted from the request's start). */
  idleTimeoutMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = { maxRetries: DEFAULT_MAX_RETRIES, retryBaseDelayMs: 500, idleTimeoutMs: DEFAULT_IDLE_TIMEOUT_MS };

/** What the HTTP providers are configured with. */
export interface HttpProviderOptions extends Partial<RetryPolicy> {
  apiKey: string;
  /** The variable the key came from, named in authentication errors. */
  apiKeyEnv?: string;
  /** Defaults to the vendor's API (or its SDK's base-URL environment variable). */
  baseURL?: string;
  model: string;
  /** Prices per million tokens, for cost in telemetry. */
  pricing?: ModelPricing;
  /** Whether the model can see images. Default: yes for the vendors' own APIs, no for other compatible servers. */
  supportsImages?: boolean;
  /** Used when a request sets no maxOutputTokens. */
  maxOutputTokens?: number;
  /** The most output tokens the model produces (thinking included): no request asks for more. Undefined: none known. */
  outputCap?: number;
  /** For OpenAI-compatible servers: which server it is; default: told from baseURL. */
  flavor?: ServerFlavor;
}

export function retryPolicyOf(options: Partial<RetryPolicy>): RetryPolicy {
  return {
    maxRetries: options.maxRetries ?? DEFAULT_RETRY_POLICY.maxRetries,
    retryBaseDelayMs: options.retryBaseDelayMs ?? DEFAULT_RETRY_POLICY.retryBaseDelayMs,
    idleTimeoutMs: options.idleTimeoutMs ?? DEFAULT_RETRY_POLICY.idleTimeoutMs,
  };
}

const MAX_BACKOFF_MS = 8_000;
/** Longest server-requested wait (retry-after) that is honoured as is. */
const MAX_RETRY_AFTER_MS = 60_000;

/** What an accumulator has built from the wire so far. */
export interface PartialResponse {
  content: AssistantBlock[];
  /** Undefined until the wire said how the model finished. */
  stopReason?: StopReason;
  finishReasons: string[];
  usage: Usage;
  responseModel?: string;
}

/** Reads one provider's wire events. Each attempt gets a fresh one. */
export interface WireAccumulator<W> {
  /** Folds in one wire event and returns the content events (text, thinking, tool_call_start) it produced. */
  accept(event: W): StreamEvent[];
  snapshot(): PartialResponse;
}

export interface WireSource<W> {
  profile: ProviderProfile;
  /**
   * Sends the request and resolves once the response stream is open; the
   * stream gives its events in batches, all that one network read brought.
   * Both must honour `signal`.
   */
  open(signal: AbortSignal): Promise<AsyncIterable<readonly W[]>>;
  newAccumulator(): WireAccumulator<W>;
}

interface AttemptResult {
  response: AssistantResponse;
  /** Set when the attempt failed before emitting anything, in a way worth retrying. */
  retry?: { reason: string; retryAfterMs?: number };
}

/**
 * Runs attempts until one streams, fails for good, or the signal aborts.
 * Never throws; the last event is always a single `done`.
 */
export async function* resilientStream<W>(
  source: WireSource<W>,
  signal: AbortSignal,
  policy: RetryPolicy,
): AsyncGenerator<StreamEvent, void, undefined> {
  for (let retries = 0; ; retries++) {
    const { response, retry } = yield* runAttempt(source, signal, policy.idleTimeoutMs);
    if (!retry) return yield { type: 'done', response };
    if (retries >= policy.maxRetries) {
      if (retries > 0) response.errorMessage = `${retry.reason} (gave up after ${plural(retries, 'retry', 'retries')})`;
      return yield { type: 'done', response };
    }
    const delayMs = retryDelay(retries, policy.retryBaseDelayMs, retry.retryAfterMs);
    yield { type: 'retry', attempt: retries + 1, delayMs, reason: retry.reason };
    if (!(await sleep(delayMs, signal))) {
      const nothing: PartialResponse = { content: [], finishReasons: [], usage: emptyUsage() };
      return yield { type: 'done', response: toResponse(nothing, 'aborted') };
    }
  }
}

async function* runAttempt<W>(
  source: WireSource<W>,
  signal: AbortSignal,
  idleTimeoutMs: number,
): AsyncGenerator<StreamEvent, AttemptResult, undefined> {
  const startedAt = performance.now();
  const accumulator = source.newAccumulator();
  const watchdog = new AttemptWatchdog(signal, idleTimeoutMs);
  let timeToFirstTokenMs: number | undefined;
  let failure: { error: unknown } | undefined;
  try {
    const batches = await source.open(watchdog.signal);
    for await (const batch of batches) {
      watchdog.touch();
      const produced = joinedDeltas(batch, accumulator);
      if (produced.length === 0) continue;
      timeToFirstTokenMs ??= Math.round(performance.now() - startedAt);
      yield* produced;
    }
  } catch (error) {
    failure = { error };
  } finally {
    watchdog.stop();
  }

  const partial = accumulator.snapshot();
  const end = (stopReason: StopReason, errorMessage?: string): AttemptResult => ({
    response: toResponse(partial, stopReason, errorMessage, timeToFirstTokenMs),
  });
  const kept = partial.content.length > 0 ? '; partial output kept' : '';
  if (signal.aborted) return end('aborted');
  if (watchdog.stalled) {
    const idle = `${Number((idleTimeoutMs / 1000).toFixed(1))} s`;
    const result = end('error', `the stream stalled: nothing arrived from ${source.profile.label} for ${idle}${kept}`);
    // Nothing reached the consumer yet: as safe to try again as a connection dropped before output.
    if (timeToFirstTokenMs === undefined) result.retry = { reason: result.response.errorMessage! };
    return result;
  }
  if (failure) {
    const diagnosis = diagnose(failure.error, source.profile);
    const result = end('error', diagnosis.message + kept);
    if (diagnosis.overflow) result.response.overflow = diagnosis.overflow;
    if (diagnosis.retryable && timeToFirstTokenMs === undefined) {
      result.retry = { reason: diagnosis.message, retryAfterMs: diagnosis.retryAfterMs };
    }
    return result;
  }
  if (partial.stopReason === undefined) {
    return end('error', 'the stream ended before the model finished; partial output kept');
  }
  return end(partial.stopReason);
}

/**
 * What one batch of wire events produced, with text (or thinking) deltas
 * that follow each other joined: they arrived together, so nobody could have
 * seen them apart, and every later stage then handles one event per network
 * read instead of one per token.
 */
function joinedDeltas<W>(batch: readonly W[], accumulator: WireAccumulator<W>): StreamEvent[] {
  const produced: StreamEvent[] = [];
  let joining: { type: 'text_delta' | 'thinking_delta'; delta: string } | undefined;
  for (const event of batch) {
    for (const out of accumulator.accept(event)) {
      if (out.type !== 'text_delta' && out.type !== 'thinking_delta') {
        joining = undefined;
        produced.push(out);
      } else if (joining?.type === out.type) {
        joining.delta += out.delta;
      } else {
        // A fresh object: the accumulator's event is not ours to change.
        joining = { type: out.type, delta: out.delta };
        produced.push(joining);
      }
    }
  }
  return produced;
}

/**
 * The signal one attempt runs under: aborted by the caller's signal, by
 * `stop()`, or when no wire event arrived for `idleTimeoutMs` (then `stalled`).
 * An event only bumps a counter, so busy streams stay cheap (reading a clock
 * per token cost a fast stream 3% of its time); a timer looks CHECKS times per
 * timeout, so a stall is declared between one timeout and a quarter more
 * after the last event.
 */
class AttemptWatchdog {
  stalled = false;
  private readonly controller = new AbortController();
  private events = 0;
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly outer: AbortSignal,
    idleTimeoutMs: number,
  ) {
    if (outer.aborted) this.controller.abort(outer.reason);
    else outer.addEventListener('abort', this.abort, { once: true });
    let seen = this.events;
    let quiet = 0;
    this.timer = setInterval(() => {
      if (this.events !== seen) {
        seen = this.events;
        quiet = 0;
      } else if (++quiet >= CHECKS) {
        this.stalled = true;
        clearInterval(this.timer);
        this.controller.abort(new Error('stream stalled'));
      }
    }, idleTimeoutMs / CHECKS);
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  touch(): void {
    this.events++;
  }

  stop(): void {
    clearInterval(this.timer);
    this.outer.removeEventListener('abort', this.abort);
    this.controller.abort();
  }

  private readonly abort = (): void => this.controller.abort(this.outer.reason);
}

/** How often per idle timeout the watchdog looks for activity. */
const CHECKS = 4;

/** The server's wait when it asked for one (capped), else exponential backoff with jitter. */
function retryDelay(retries: number, baseDelayMs: number, retryAfterMs: number | undefined): number {
  if (retryAfterMs !== undefined) return Math.min(retryAfterMs, MAX_RETRY_AFTER_MS);
  const backoff = Math.min(baseDelayMs * 2 ** retries, MAX_BACKOFF_MS);
  return Math.round(backoff * (1 - Math.random() * 0.25));
}

/** Resolves true after `ms`, or false as soon as `signal` aborts. */
function sleep(ms: number, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const onAbort = (): void => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve(true);
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

function toResponse(
  partial: PartialResponse,
  stopReason: StopReason,
  errorMessage?: string,
  timeToFirstTokenMs?: number,
): AssistantResponse {
  const response: AssistantResponse = {
    content: partial.content,
    stopReason,
    finishReasons: partial.finishReasons,
    usage: partial.usage,
  };
  if (partial.responseModel !== undefined) response.responseModel = partial.responseModel;
  if (errorMessage !== undefined) response.errorMessage = errorMessage;
  if (timeToFirstTokenMs !== undefined) response.timeToFirstTokenMs = timeToFirstTokenMs;
  return response;
}

function plural(count: number, one: string, many: string): string {
  return `${count} ${count === 1 ? one : many}`;
}
