/**
 * Checkpoints: the moments a session can be rewound to, before each prompt
 * and before each tool call that may change something. A checkpoint names
 * the conversation as the model then read it (how many entries of each
 * internal agent's history) and, when undo records, the place in the undo
 * log its files are restored from. Checkpoints travel as events, so the
 * session's visible record lists them in order.
 */
import type { HistoryEntry } from './history';

/** The role of an internal agent in its composition (as ACPSession names it). */
type Role = 'primary' | 'coagent';

export interface Checkpoint {
  id: string;
  kind: 'prompt' | 'tool';
  /** The prompt's first line, or the tool call's summary. */
  label: string;
  /** Entries of each internal agent's history (by `role:agent`) at this moment: the conversation to go back to. */
  history: Record<string, number>;
  /** The undo log's mark for the workspace at this moment; absent when undo did not record. */
  undo?: string;
  /** The tool call this checkpoint comes before. */
  callId?: string;
}

/** What the engine asks before a state-changing tool call; the host answers with the checkpoint to announce. */
export interface Checkpoints {
  beforeCall(role: Role, agent: string, callId: string, label: string): Checkpoint;
}

/** The key of an internal agent's history in Checkpoint.history. */
export function historyKey(role: Role, agent: string): string {
  return `${role}:${agent}`;
}

/**
 * Where the response that made call `callId` begins in `entries`: rewinding
 * to a checkpoint before a call goes back to before the model decided on
 * it, so no call is left without its result.
 */
export function responseStart(entries: readonly HistoryEntry[], callId: string): number {
  let index = entries.findLastIndex((entry) => entry.kind === 'tool_call' && entry.id === callId);
  if (index < 0) return entries.length;
  while (index > 0 && ASSISTANT_KINDS.has(entries[index - 1]!.kind)) index--;
  return index;
}

const ASSISTANT_KINDS = new Set<HistoryEntry['kind']>(['assistant_text', 'thinking', 'redacted_thinking', 'tool_call']);
