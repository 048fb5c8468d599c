/**
 * A stored session's prompts as their events were shown, for a front door
 * to show again through the translator its live runs use: from the
 * session's event log, or, for a session stored before there was one,
 * rebuilt from its histories (see history-events.ts).
 */
import type { AgentEvent } from '../engine/events';
import type { ACPSession } from '../session/acp-session';
import type { ToolResult } from '../tools/tool';
import { eventsFromHistory } from './history-events';
import { INTERRUPTED } from '../vocabulary/interruption';

export type PromptStart = Extract<AgentEvent, { type: 'prompt_start' }>;

/** One prompt of a stored session: how it began, and everything shown after, its end included. */
export interface StoredPrompt {
  start: PromptStart;
  /** What followed prompt_start, in order. */
  events: AgentEvent[];
}

export { INTERRUPTED };

/**
 * The session's prompts, oldest first. A prompt whose events stop short
 * (Crow was stopped, the window reloaded) is closed as interrupted: its
 * running tool calls end as cancelled and the run as cancelled, so nothing
 * is shown as still running. `live`: the session is still recording in
 * another process, so its last prompt may still be going on and is left open.
 */
export function storedPrompts(session: ACPSession, options: { live?: boolean } = {}): StoredPrompt[] {
  const records: readonly { event: unknown }[] = session.events.empty ? eventsFromHistory(session) : session.events.list();
  const prompts: StoredPrompt[] = [];
  for (const { event } of records) {
    if (!isEvent(event)) continue;
    if (event.type === 'prompt_start') prompts.push({ start: event, events: [] });
    else prompts.at(-1)?.events.push(event);
  }
  return prompts.map((prompt, index) => (options.live && index === prompts.length - 1 ? prompt : closed(prompt)));
}

/** The prompt with an end: open tool calls and the run closed as interrupted, when it has none. */
function closed(prompt: StoredPrompt): StoredPrompt {
  const { start, events } = prompt;
  if (events.some((event) => event.type === 'run_complete' && event.agent === start.agent)) return prompt;
  const open = new Map<string, Extract<AgentEvent, { type: 'tool_call_start' }>>();
  for (const event of events) {
    if (event.type === 'tool_call_start') open.set(`${event.agent}\u0000${event.callId}`, event);
    if (event.type === 'tool_call_end') open.delete(`${event.agent}\u0000${event.callId}`);
  }
  const ends = [...open.values()].map(
    (call): AgentEvent => ({ type: 'tool_call_end', agent: call.agent, callId: call.callId, tool: call.tool, result: interruptedResult(), durationMs: 0 }),
  );
  return { start, events: [...events, ...ends, { type: 'run_complete', agent: start.agent, status: 'cancelled', message: INTERRUPTED }] };
}

function interruptedResult(): ToolResult {
  return { status: 'cancelled', output: '', error: INTERRUPTED, metadata: { filesModified: [], durationMs: 0, extra: {} } };
}

/**
 * A record read from disk is shown only when it is one of the events a door
 * shows (a foreign line, or one from a newer Crow, is skipped).
 */
function isEvent(event: unknown): event is AgentEvent {
  if (typeof event !== 'object' || event === null) return false;
  const { type, agent } = event as { type?: unknown; agent?: unknown };
  return typeof type === 'string' && EVENT_TYPES.has(type as AgentEvent['type']) && typeof agent === 'string';
}

/** Every AgentEvent type: a record names one of them or is skipped. */
const EVENT_TYPES = new Set<AgentEvent['type']>(Object.keys({
  prompt_start: 0, plan: 0, turn_start: 0, steer: 0, checkpoint: 0, text_delta: 0, text_complete: 0, thinking_delta: 0, thinking_complete: 0,
  tool_call_start: 0, tool_progress: 0, tool_call_end: 0, files_changed: 0, usage: 0, retry: 0, task_complete: 0, doom_loop: 0, error: 0,
  cancelled: 0, turn_complete: 0, context: 0, compaction: 0, coagent_start: 0, coagent_end: 0, handoff: 0, subagent_start: 0,
  subagent_progress: 0, subagent_end: 0, subagent_usage: 0, notice: 0, run_complete: 0,
} satisfies Record<AgentEvent['type'], 0>) as AgentEvent['type'][]);
