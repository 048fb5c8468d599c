/**
 * The strict half of the fake LLM server: each rule is one thing a real API
 * refuses, answered with that API's own status, error type and message. A
 * rule's `source` says where the rule and its wording come from (the
 * provider's documentation, its source code, or a public bug report quoting
 * the server's answer), so a reader can check the fake against the world.
 */

/** An API's answer to a request it refuses. */
export interface Refusal {
  status: number;
  /** The error type the body names, e.g. "invalid_request_error". */
  type: string;
  message: string;
  /** OpenAI-style `code`, e.g. "context_length_exceeded". */
  code?: string | null;
  /** OpenAI-style `param`, e.g. "messages.[2].role". */
  param?: string | null;
  /** Fields a server adds to its error object, e.g. llama.cpp's `n_prompt_tokens`. */
  extra?: Record<string, unknown>;
}

/** A parsed request body; rules read it defensively, as a server validating input would. */
export type RequestBody = Record<string, any>;

export interface WireRule {
  /** Stable, e.g. "anthropic/tool-blocks-need-tools"; a test that breaks the rule on purpose names it. */
  name: string;
  /** Where the rule and its message come from. */
  source: string;
  /** The refusal, or undefined when the request keeps the rule. */
  check(body: RequestBody): Refusal | undefined;
}

/** A refusal the fake server answered, kept so a test can tell that nothing was refused behind its back. */
export interface RecordedRefusal {
  rule: string;
  api: string;
  refusal: Refusal;
}

/** The first rule the request breaks, skipping the ones `allowed` names; undefined when it keeps them all. */
export function firstBroken(
  rules: readonly WireRule[],
  body: RequestBody,
  allowed: ReadonlySet<string>,
): { rule: WireRule; refusal: Refusal } | undefined {
  for (const rule of rules) {
    if (allowed.has(rule.name)) continue;
    const refusal = rule.check(body);
    if (refusal) return { rule, refusal };
  }
  return undefined;
}

/** A 400 invalid_request_error, the answer to most malformed requests on both APIs. */
export function invalidRequest(message: string, extra: Partial<Refusal> = {}): Refusal {
  return { status: 400, type: 'invalid_request_error', message, ...extra };
}

export function isObject(value: unknown): value is Record<string, any> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The blocks of an Anthropic message's content (a string counts as one text block). */
export function blocksOf(content: unknown): Record<string, any>[] {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  return Array.isArray(content) ? content.filter(isObject) : [];
}
