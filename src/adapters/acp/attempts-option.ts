/**
 * The session's "Attempts" config option and its `_meta` twin on
 * session/prompt (acp-attempts.ts runs them). Light on purpose: the
 * server reads `_meta` before any session machinery loads.
 */
import type { SessionConfigOption } from '@agentclientprotocol/sdk';
import { requestErrors, shown } from './request-errors';

/** The option of attempts per prompt (acp-attempts.ts): a prompt runs as N attempts in git worktrees, and the person picks one to apply. */
export const ATTEMPTS_OPTION = 'attempts';
const ATTEMPT_VALUES = ['1', '2', '3', '4'];

export function attemptsOption(current: number): SessionConfigOption {
  return {
    type: 'select',
    id: ATTEMPTS_OPTION,
    name: 'Attempts',
    description: 'Run each prompt as several attempts side by side, each in its own git worktree; a judge ranks them and you pick one to apply (or none).',
    currentValue: String(current),
    options: ATTEMPT_VALUES.map((value) => ({ value, name: value === '1' ? '1 (off)' : value })),
  };
}

/** A number of attempts the client sent (the option's value, or `_meta["crow/attempts"]`), checked. */
export function attemptsValue(value: unknown, where = ATTEMPTS_OPTION): number {
  const n = typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value;
  if (typeof n === 'number' && Number.isInteger(n) && n >= 1 && n <= ATTEMPT_VALUES.length) return n;
  throw requestErrors.invalidParams(`${where}: ${shown(value)} is not a number of attempts: give 1 (off) to ${ATTEMPT_VALUES.length}.`);
}

