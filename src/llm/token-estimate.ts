import type { LlmRequest, Usage } from './types';

/** A token count as a server reported it, if it is one (a server may send null, a string, or a negative number). */
export function reportedCount(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : undefined;
}

/** Roughly four characters of JSON per token: cheap, and conservative enough for a trigger. */
const CHARS_PER_TOKEN = 4;
/** What an image costs a vision model at the size the APIs scale images to (about 1,600 tokens on Anthropic's). */
const TOKENS_PER_IMAGE = 1_600;

/**
 * The tokens a request's prompt takes, estimated without a tokenizer:
 * characters of its JSON over four, each image counted at a flat rate
 * rather than by the length of its base64.
 */
export function estimateTokens(request: Pick<LlmRequest, 'system' | 'messages' | 'tools'>): number {
  let images = 0;
  const text = JSON.stringify([request.system, request.messages, request.tools], function (this: { type?: unknown }, key: string, value: unknown) {
    if (key === 'data' && this.type === 'image') {
      images += 1;
      return '';
    }
    return value;
  });
  return Math.ceil(text.length / CHARS_PER_TOKEN) + images * TOKENS_PER_IMAGE;
}

/**
 * A server's count of a prompt under this share of Crow's estimate of it is
 * not believed. The estimate is a quarter of the request's JSON characters:
 * prose comes to about that many tokens, code and JSON to more, CJK text to
 * two or three times more; only long runs of one character (which
 * tokenizers fold) count much fewer, and a prompt is never mostly those (a
 * system prompt and tool schemas lead it). A server that counts only what
 * it had not cached, or nothing, reports a small share of the estimate, far
 * under a half. Believing the estimate where the server is right costs
 * nothing: compaction goes by the estimate already.
 */
export const UNDER_REPORT_SHARE = 0.5;

/**
 * The prompt tokens a server says it read: those it read anew and those
 * read from or written to its cache. Anthropic reports the three apart
 * (input_tokens leaves out the cached ones); OpenAI's prompt_tokens holds
 * the cached ones, which its reader takes out of `input`, so the sum is
 * what each counted.
 */
export function promptTokensRead(usage: Usage): number {
  return usage.input + usage.cacheRead + usage.cacheWrite;
}

/** Whether a server that read `reported` tokens of a prompt Crow estimates at `estimate` under-reports it (see UNDER_REPORT_SHARE). */
export function underReports(reported: number, estimate: number): boolean {
  return reported < estimate * UNDER_REPORT_SHARE;
}
