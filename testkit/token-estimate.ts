/**
 * How the fake LLM server counts tokens: about four characters of JSON per
 * token, which is close to what real tokenizers give for English and code,
 * and an image as a flat 1,600 tokens (Anthropic's vision docs: tokens ≈
 * width × height / 750, about 1,600 for an image at the 1,568-pixel long
 * edge the API resizes to) rather than its base64 size.
 */

const CHARS_PER_TOKEN = 4;
const TOKENS_PER_IMAGE = 1_600;

/** Tokens of any part of a request body. */
export function estimateTokens(value: unknown): number {
  let images = 0;
  const text = JSON.stringify(value, function (this: Record<string, unknown>, key: string, field: unknown) {
    if (isImageData(this, key, field)) {
      images += 1;
      return '';
    }
    return field;
  });
  return Math.ceil((text?.length ?? 0) / CHARS_PER_TOKEN) + images * TOKENS_PER_IMAGE;
}

/** An Anthropic image source's base64 `data`, or an OpenAI `image_url.url` (Responses: `image_url`) holding a data URL. */
function isImageData(holder: Record<string, unknown>, key: string, field: unknown): boolean {
  if (typeof field !== 'string') return false;
  return (key === 'data' && holder.type === 'base64') || ((key === 'url' || key === 'image_url') && field.startsWith('data:image/'));
}
