/**
 * OpenRouter's reasoning, as its Chat Completions dialect carries it
 * (openrouter.ai/docs/use-cases/reasoning-tokens): the request asks for it
 * with a `reasoning` object; the answer streams it as text in
 * `delta.reasoning` and as structured `delta.reasoning_details` entries
 * (`reasoning.text` with a signature, `reasoning.encrypted`,
 * `reasoning.summary`), which must be sent back unchanged on the assistant
 * message with the tool calls they came with ("Preserving reasoning
 * blocks"): an Anthropic model behind OpenRouter refuses a tool turn whose
 * thinking is missing, and Gemini needs its thought signatures.
 *
 * Crow's history keeps the entries as a `redacted_thinking` block whose
 * data is `{"type":"openrouter.reasoning_details","details":[...]}`.
 */
import type { AssistantBlock, RedactedThinkingBlock } from './types';

const PREFIX = '{"type":"openrouter.reasoning_details"';

/** Whether a redacted_thinking block's `data` holds OpenRouter reasoning details. */
export function isReasoningDetailsData(data: string): boolean {
  return data.startsWith(PREFIX);
}

/** The `reasoning` request field for a thinking budget: a token budget, which OpenRouter maps to each model's own control. */
export function reasoningRequest(thinkingBudget: number | undefined): { max_tokens: number } | undefined {
  return thinkingBudget !== undefined && thinkingBudget > 0 ? { max_tokens: thinkingBudget } : undefined;
}

/** The reasoning details an assistant turn carries, to send back on its message; undefined when it has none. */
export function reasoningDetailsOf(blocks: readonly AssistantBlock[]): unknown[] | undefined {
  const details = blocks.flatMap((block) => {
    if (block.type !== 'redacted_thinking' || !isReasoningDetailsData(block.data)) return [];
    try {
      const parsed = JSON.parse(block.data) as { details?: unknown };
      return Array.isArray(parsed.details) ? parsed.details : [];
    } catch {
      return [];
    }
  });
  return details.length > 0 ? details : undefined;
}

type Detail = Record<string, unknown>;

/**
 * Assembles the streamed `reasoning_details` fragments of one answer: the
 * fragments of an entry share its `index`; text and summaries are
 * concatenated, every other field (type, signature, data, id, format) is
 * taken as it last came.
 */
export class ReasoningDetails {
  private readonly entries: Detail[] = [];

  add(fragments: unknown): void {
    if (!Array.isArray(fragments)) return;
    for (const fragment of fragments) {
      if (typeof fragment !== 'object' || fragment === null) continue;
      const { index, ...fields } = fragment as Detail;
      const at = typeof index === 'number' && Number.isInteger(index) && index >= 0 && index < 1_000 ? index : this.entries.length;
      const entry = (this.entries[at] ??= {});
      for (const [key, value] of Object.entries(fields)) {
        if ((key === 'text' || key === 'summary') && typeof value === 'string' && typeof entry[key] === 'string') entry[key] += value;
        else if (value !== null && value !== undefined) entry[key] = value;
      }
      entry.index = at;
    }
  }

  /** The assembled entries as a history block; undefined when none arrived. */
  block(): RedactedThinkingBlock | undefined {
    const details = this.entries.filter((entry) => entry !== undefined);
    return details.length > 0 ? { type: 'redacted_thinking', data: JSON.stringify({ type: 'openrouter.reasoning_details', details }) } : undefined;
  }
}
