/**
 * Each session's share of one prompt's limits when a prompt runs as N
 * attempts and a judge: all of them together stay within what the folder
 * (or the door) allows one prompt. The session's cost limit stays each
 * session's. Every door calls this: the CLI (flags over [limits]), ACP and
 * the chat (the folder's settings).
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
