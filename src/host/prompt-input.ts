/**
 * A prompt as the host receives it, and what becomes of it before a run:
 * text or blocks, a title for the session, images only for models that see.
 */
import type { UserBlock } from '../llm/types';
import type { ThoughtLevel } from '../session/acp-session';

/** What a front door sends: plain text (CLI, chat) or blocks (ACP content, with images). */
export type PromptInput = string | readonly UserBlock[];

export function promptBlocks(input: PromptInput): UserBlock[] {
  return typeof input === 'string' ? [{ type: 'text', text: input }] : [...input];
}

/** The prompt's text blocks, joined: what slash commands and titles read. */
export function promptText(blocks: readonly UserBlock[]): string {
  return blocks.flatMap((block) => (block.type === 'text' ? [block.text] : [])).join('\n');
}

/** A session title from the prompt's opening words. */
export function titleOf(blocks: readonly UserBlock[], maxChars = 80): string {
  const text = promptText(blocks).replace(/\s+/g, ' ').trim();
  return text.length > maxChars ? `${text.slice(0, maxChars - 1)}…` : text;
}

/** Images stay for a model that can see them; for any other they become a note, so nothing is silently dropped. */
export function fitImages(blocks: readonly UserBlock[], supportsImages: boolean): UserBlock[] {
  if (supportsImages) return [...blocks];
  return blocks.map((block) =>
    block.type === 'image' ? { type: 'text', text: `[An image (${block.mimeType}) was attached, but this model cannot see images.]` } : block,
  );
}

/** The thinking levels a person picks, and the budget in tokens each gives (Anthropic extended thinking). */
export const THOUGHT_LEVELS: readonly ThoughtLevel[] = ['off', 'low', 'medium', 'high'];
export const THINKING_BUDGETS: Record<ThoughtLevel, number> = { off: 0, low: 2_048, medium: 8_192, high: 24_576 };

/** The level a budget from the settings amounts to, for showing the current choice. */
export function levelOfBudget(budget: number | undefined): ThoughtLevel {
  if (!budget) return 'off';
  return THOUGHT_LEVELS.reduce((best, level) =>
    Math.abs(THINKING_BUDGETS[level] - budget) < Math.abs(THINKING_BUDGETS[best] - budget) ? level : best,
  );
}
