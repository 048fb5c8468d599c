/**
 * Gemini's OpenAI-compatible endpoint answers an error as a JSON list of one
 * (`[{"error": {"code": 400, "message": …, "status": "INVALID_ARGUMENT"}}]`,
 * quoted by 0xsline/OpenChatCut#6 and TokenRhythm/opensquilla#225), where
 * the OpenAI SDK reads `body.error` of an object: from a list it gets
 * nothing and reports "400 status code (no body)". This `fetch` hands the
 * SDK such an error answer as its one object, so the server's words reach
 * the person. Other answers pass untouched.
 */
import type { Fetch } from './bounded-body';

export function errorListUnwrapped(fetch: Fetch): Fetch {
  return async (url, init) => {
    const response = await fetch(url, init);
    if (response.status < 400 || !/json/i.test(response.headers.get('content-type') ?? '')) return response;
    const text = await response.text();
    const unwrapped = listOfOneError(text);
    const rebuilt = new Response(unwrapped ?? text, { status: response.status, statusText: response.statusText, headers: response.headers });
    return Object.defineProperty(rebuilt, 'url', { value: response.url });
  };
}

/** The one error object of a list holding only it, as JSON; undefined for anything else. */
function listOfOneError(text: string): string | undefined {
  if (!text.trimStart().startsWith('[')) return undefined;
  try {
    const value: unknown = JSON.parse(text);
    const [only] = Array.isArray(value) && value.length === 1 ? value : [];
    return typeof only === 'object' && only !== null && 'error' in only ? JSON.stringify(only) : undefined;
  } catch {
    return undefined;
  }
}
