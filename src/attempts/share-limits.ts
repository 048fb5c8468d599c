/**
 * Each session's share of one prompt's limits when a prompt runs as N
 * attempts and a judge: all of them together stay within what the folder
 * (or the door) allows one prompt. The session's cost limit stays each
 * session's. A door with limits of its own to share (the chat's settings)
 * calls this; the CLI shares its flags the same way (perAttempt).
 */
import type { Limits } from '../config/settings';

export function shareLimits(limits: Limits, count: number): Limits {
  const parts = count + 1;
  return {
    ...limits,
    ...(limits.maxCostPerPrompt !== undefined ? { maxCostPerPrompt: limits.maxCostPerPrompt / parts } : {}),
    ...(limits.maxTokensPerPrompt !== undefined ? { maxTokensPerPrompt: Math.max(1, Math.floor(limits.maxTokensPerPrompt / parts)) } : {}),
  };
}
