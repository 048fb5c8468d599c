/**
 * OpenRouter as the strict fake plays it (openrouter.ai/docs): OpenAI's Chat
 * Completions shape, a bearer key, errors as `{ error: { message, code,
 * metadata } }` where an upstream provider's refusal arrives as "Provider
 * returned error" with the upstream's own body in `metadata.raw`
 * (openrouter.ai/docs/api-reference/errors). The upstream played here is
 * Anthropic with extended thinking: a tool loop whose last assistant turn
 * comes back without the signed reasoning it was answered with is refused
 * as Anthropic refuses it, which is why OpenRouter asks for
 * `reasoning_details` to be sent back unchanged
 * (openrouter.ai/docs/use-cases/reasoning-tokens, "Preserving reasoning blocks").
 */
import type { HeaderRule } from './header-rules';
import { isObject, type Refusal, type RequestBody, type WireRule } from './wire-rules';

const THINKING_DOCS = 'https://docs.claude.com/en/docs/build-with-claude/extended-thinking';

export const OPENROUTER_HEADER_RULES: readonly HeaderRule[] = [
  {
    name: 'openrouter/api-key',
    source: 'openrouter.ai/docs/api-reference/authentication (Authorization: Bearer); the 401 body as quoted in musistudio/claude-code-router#227',
    check: (headers) =>
      /^Bearer\s+\S/i.test(headers.authorization ?? '') ? undefined : { status: 401, type: 'authentication_error', message: 'No auth credentials found' },
  },
];

/** What the upstream refused, in OpenRouter's envelope. */
function upstreamRefusal(provider: string, upstream: unknown): Refusal {
  return { status: 400, type: 'invalid_request_error', message: 'Provider returned error', extra: { metadata: { raw: JSON.stringify(upstream), provider_name: provider } } };
}

/** Whether the request turns reasoning on (any `reasoning` object but `{ enabled: false }`). */
function reasoningOn(body: RequestBody): boolean {
  return isObject(body.reasoning) && body.reasoning.enabled !== false;
}

/**
 * The rules of OpenRouter with an Anthropic model upstream. `signedCalls`:
 * by tool call id, the signature of the reasoning the fake sent before it.
 */
export function openrouterRules(signedCalls: ReadonlyMap<string, string>): WireRule[] {
  return [
    {
      name: 'openrouter/reasoning-details-returned',
      source: `openrouter.ai/docs/use-cases/reasoning-tokens ("Preserving reasoning blocks"); Anthropic's refusal (${THINKING_DOCS}) in OpenRouter's envelope (metadata.raw, provider_name) as quoted in iOfficeAI/AionUi#2746 and vectorize-io/hindsight#58`,
      check: (body) => {
        if (!reasoningOn(body) || !String(body.model ?? '').startsWith('anthropic/')) return undefined;
        const messages: Record<string, any>[] = Array.isArray(body.messages) ? body.messages.filter(isObject) : [];
        if (messages.at(-1)?.role !== 'tool') return undefined;
        const index = messages.findLastIndex((message) => message.role === 'assistant');
        const calls: Record<string, any>[] = Array.isArray(messages[index]?.tool_calls) ? messages[index]!.tool_calls : [];
        const signature = calls.map((call) => signedCalls.get(String(call.id))).find((value) => value !== undefined);
        if (signature === undefined) return undefined;
        const details: unknown[] = Array.isArray(messages[index]!.reasoning_details) ? messages[index]!.reasoning_details : [];
        if (details.some((detail) => isObject(detail) && detail.type === 'reasoning.text' && detail.signature === signature)) return undefined;
        return upstreamRefusal('Anthropic', {
          type: 'error',
          error: {
            type: 'invalid_request_error',
            message:
              `messages.${index}.content.0.type: Expected \`thinking\` or \`redacted_thinking\`, but found \`tool_use\`. ` +
              'When `thinking` is enabled, a final `assistant` message must start with a thinking block (preceeding the lastmost set of `tool_use` and `tool_result` blocks). ' +
              'We recommend you include thinking blocks from previous turns. To avoid this requirement, disable `thinking`. ' +
              `Please consult our documentation at ${THINKING_DOCS}`,
          },
        });
      },
    },
  ];
}

/** `{ error: { message, code, metadata? } }`, OpenRouter's error body. */
export function openrouterErrorBody(refusal: Refusal): unknown {
  return { error: { message: refusal.message, code: refusal.status, ...(refusal.extra ?? {}) } };
}
