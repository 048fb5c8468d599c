/**
 * Model aliases an agent definition may name instead of a model id, as seed
 * 002 and Claude Code's agent files do (`model: sonnet`): a family stands
 * for its current Anthropic model on an Anthropic provider; on any other
 * provider, and for `inherit`, the agent gets the provider's default model.
 */

/** The Anthropic model each family alias stands for. */
export const MODEL_ALIASES = {
  sonnet: 'claude-sonnet-4-6',
  opus: 'claude-opus-4-6',
  haiku: 'claude-haiku-4-5',
} as const;

const ALIASES = new Set<string>([...Object.keys(MODEL_ALIASES), 'inherit']);

export function isModelAlias(model: string): boolean {
  return ALIASES.has(model.toLowerCase());
}

/**
 * The model id `model` means on a provider of `providerType`: itself when it
 * is not an alias; undefined (the provider's default) for `inherit` or a
 * family alias on a provider other than Anthropic.
 */
export function resolveModelAlias(model: string, providerType: string | undefined): string | undefined {
  const alias = model.toLowerCase();
  if (!ALIASES.has(alias)) return model;
  if (alias === 'inherit' || providerType !== 'anthropic') return undefined;
  return MODEL_ALIASES[alias as keyof typeof MODEL_ALIASES];
}
