/**
 * What Crow knows of models it was not told about: the output cap of
 * Anthropic's models, which a request's max_tokens (thinking included) must
 * not pass, or the API refuses it ("max_tokens: 68192 > 64000, which is the
 * maximum allowed number of output tokens for …"). From the "Max output"
 * row of docs.anthropic.com/en/docs/about-claude/models/overview. A model's
 * `max_output_tokens` in config.toml wins over this table, and a model not
 * in it has no cap Crow applies.
 */

/** By model id prefix, the most specific first. */
const ANTHROPIC_OUTPUT_CAPS: readonly (readonly [string, number])[] = [
  ['claude-opus-4-6', 128_000],
  ['claude-opus-4-5', 64_000],
  ['claude-opus-4-1', 32_000],
  ['claude-opus-4', 32_000],
  ['claude-sonnet-4', 64_000],
  ['claude-haiku-4', 64_000],
  ['claude-3-7-sonnet', 64_000],
  ['claude-3-5-sonnet', 8_192],
  ['claude-3-5-haiku', 8_192],
  ['claude-3-opus', 4_096],
  ['claude-3-haiku', 4_096],
];

/**
 * The output cap of an Anthropic model Crow knows, also by its Bedrock id
 * (`us.anthropic.claude-sonnet-4-5-20250929-v1:0`) or Vertex id
 * (`claude-sonnet-4-5@20250929`); undefined for any other.
 */
export function knownOutputCap(model: string): number | undefined {
  const lower = model.toLowerCase();
  const at = lower.indexOf('claude-');
  if (at < 0) return undefined;
  const id = lower.slice(at);
  return ANTHROPIC_OUTPUT_CAPS.find(([prefix]) => id.startsWith(prefix))?.[1];
}

/** The output cap a request asks for, never past the model's own (undefined: none asked, the server's default). */
export function cappedOutput(asked: number | undefined, cap: number | undefined): number | undefined {
  return asked !== undefined && cap !== undefined ? Math.min(asked, cap) : asked;
}

/** The smallest thinking budget the Messages API accepts. */
export const MIN_THINKING_BUDGET = 1024;

/**
 * max_tokens and the thinking budget of a request, fitted under the model's
 * output cap. max_tokens covers thinking too and must exceed the budget, so
 * with thinking on it asks for the budget plus `answer` (the room asked for
 * the answer); past the cap, max_tokens is the cap and the budget gives way
 * (never under the API's minimum: then the answer gets what is left).
 */
export function fitOutput(answer: number, budget: number, cap: number | undefined): { maxTokens: number; budget: number } {
  if (budget <= 0) return { maxTokens: cap === undefined ? answer : Math.min(answer, cap), budget: 0 };
  const wanted = Math.max(budget, MIN_THINKING_BUDGET);
  const maxTokens = answer > wanted ? answer : answer + wanted;
  if (cap === undefined || maxTokens <= cap) return { maxTokens, budget: wanted };
  return { maxTokens: cap, budget: Math.max(MIN_THINKING_BUDGET, Math.min(wanted, cap - answer)) };
}
