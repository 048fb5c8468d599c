import type { LlmRequest } from './types';

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
