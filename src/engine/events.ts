import type { Usage, UserBlock } from '../llm/types';
import type { Checkpoint } from '../session/checkpoints';
import type { TodoItem } from '../tools/todos';
import type { ChangedFile } from '../vocabulary/changed-file';
import type { SubagentReport, ToolKind, ToolLocation, ToolResult, ToolStep } from '../tools/tool';

/**
 * Why a turn ended.
 * - `answered`: the model replied with text and no tool calls.
 * - `task_complete`: the agent called task_complete.
 * - `cancelled`: the user aborted.
 * - `max_iterations`: the loop hit the agent's iteration limit.
 * - `doom_loop`: the same tool call repeated too many times in a row.
 * - `max_tokens`: the model hit its output limit while answering.
 * - `refused`: the model (or its provider's safety system) declined to go on.
 * - `budget`: a spending limit was reached before the next model call.
 * - `hook_stop`: a hook of the user's ended the run (`continue: false`).
 * - `error`: the provider failed (after retries); partial output is kept.
 */
export type TurnStopReason =
  | 'answered'
  | 'refused'
  | 'task_complete'
  | 'cancelled'
  | 'max_iterations'
  | 'doom_loop'
  | 'max_tokens'
  | 'budget'
  | 'hook_stop'
  | 'error';

/**
 * Turns that end short of an answer for a reason the person should read
 * (the model refused, or hit its output limit): every door shows the
 * turn's message, which says what to do.
 */
export function endedShort(reason: TurnStopReason): boolean {
  return reason === 'refused' || reason === 'max_tokens';
}

/**
 * Everything an agent does, as one stream. Every event names the acting
 * agent, so a front door can always show who is at work. Adapters switch on
 * `type` and close the switch with `unreachable`.
 */
export type AgentEvent =
  /**
   * A prompt begins: what the person sent, and who answers it (`agent` is
   * the composition; `primary` speaks the answer, `coagent` reviews).
   * Emitted by the session host, first in every prompt's stream; a resumed
   * session is replayed from it.
   */
  | { type: 'prompt_start'; agent: string; primary: string; coagent?: string; content: UserBlock[] }
  /** The session's shared todo list changed: the plan a door shows. Emitted by the session host. */
  | { type: 'plan'; agent: string; items: TodoItem[] }
  | { type: 'turn_start'; agent: string }
  /** A moment the session can be rewound to (before a prompt, or before a call that may change something). */
  | { type: 'checkpoint'; agent: string; checkpoint: Checkpoint }
  /** A message the person sent while the agents worked, given to `agent` now, at a step boundary. */
  | { type: 'steer'; agent: string; content: UserBlock[] }
  | { type: 'text_delta'; agent: string; delta: string }
  | { type: 'text_complete'; agent: string; text: string }
  | { type: 'thinking_delta'; agent: string; delta: string }
  | { type: 'thinking_complete'; agent: string; text: string }
  | {
      type: 'tool_call_start';
      agent: string;
      callId: string;
      tool: string;
      kind: ToolKind;
      /** Parsed arguments, or the raw text when they are not valid JSON. */
      arguments: unknown;
      /** Short human summary of the call, e.g. `src/app.ts:1-40`. */
      summary: string;
      locations: ToolLocation[];
    }
  /**
   * A running call's progress, a few times a second at most and about once a
   * second while it is quiet; its tool_call_end supersedes it. `elapsedMs`
   * counts from the start of the call's own work (after any approval);
   * `tail` is the end of its output so far (last lines, control characters
   * removed; `lines` counts them all); `step` is the tool's own word on where
   * it stands. See ToolProgressFeed.
   */
  | { type: 'tool_progress'; agent: string; callId: string; tool: string; elapsedMs: number; tail?: string; lines?: number; step?: ToolStep }
  | { type: 'tool_call_end'; agent: string; callId: string; tool: string; result: ToolResult; durationMs: number }
  | { type: 'files_changed'; agent: string; files: string[] }
  /**
   * One model call's tokens as the server reported them; `costUsd` when the
   * model has configured prices. `context`: what the call filled of the
   * agent's context window (prompt and answer) as its gauge counts it, the
   * server's count cross-checked against Crow's estimate (see
   * ContextGauge); absent for an agent without one.
   */
  | { type: 'usage'; agent: string; usage: Usage; model: string; costUsd?: number; context?: number }
  /** The provider is waiting to retry a failed request. */
  | { type: 'retry'; agent: string; attempt: number; delayMs: number; reason: string }
  | { type: 'task_complete'; agent: string; summary: string }
  | { type: 'doom_loop'; agent: string; tool: string; repeats: number }
  | { type: 'error'; agent: string; message: string }
  | { type: 'cancelled'; agent: string }
  | { type: 'turn_complete'; agent: string; reason: TurnStopReason; message: string }
  /** What the agent's last model call of a turn filled of its context window (tokens), told as the turn ends. */
  | { type: 'context'; agent: string; used: number; window: number }
  /** The agent's history was compacted to fit its context window (estimated tokens). */
  | { type: 'compaction'; agent: string; tokensBefore: number; tokensAfter: number; how: string }
  // Emitted by ACPAgent compositions, never by a BaseAgent:
  /** The reviewer takes over; `round` counts reviews in this run from 1. */
  | { type: 'coagent_start'; agent: string; primary: string; round: number }
  | { type: 'coagent_end'; agent: string; primary: string; round: number; verdict: ReviewVerdict; summary: string }
  /** A message crossing between agents (or from a flow's generator to an agent), as the receiver reads it. */
  | { type: 'handoff'; agent: string; to: string; purpose: HandoffPurpose; text: string }
  /** A subagent started, progressed or ended (see SubagentReport: tools report these themselves). */
  | SubagentReport
  /**
   * Something the user should know that is not the agents' work: a setting
   * left out, undo unavailable, an MCP server failing. Emitted by the session
   * host (`agent` is the composition's name), and by a BaseAgent only when
   * its server misreports what it read (see ContextGauge). `title`,
   * when set, names the subject in a few words for front doors that show one;
   * `action`, what a door may offer to do about it.
   */
  | { type: 'notice'; agent: string; level: NoticeLevel; message: string; title?: string; action?: NoticeAction }
  /**
   * The composition's run ended; `message` states where things stand.
   * `changes`: what the prompt changed, from its journal (added by the
   * session host once the run is over; absent when nothing changed or
   * undo did not record it).
   */
  | { type: 'run_complete'; agent: string; status: RunStatus; message: string; changes?: ChangedFile[] };

export type NoticeLevel = 'info' | 'warning' | 'error';

/** What a door may offer with a notice: signing in to the MCP server it names (the CLI says the command instead). */
export type NoticeAction = { kind: 'mcp_sign_in'; server: string };

/** What a reviewer decided at the end of its turn. */
export type ReviewVerdict = 'approved' | 'feedback' | 'cancelled' | 'error';

export type HandoffPurpose = 'review' | 'feedback' | 'follow_up' | 'summary_request';

/**
 * How a composition's run ended.
 * - `completed`: task_complete by whoever may end the task.
 * - `needs_input`: control is back with the human (HITL, or an agent asked a question).
 * - `limit`: the flow's maximum was reached.
 * - `budget`: a spending limit was reached (see Budget); raising it and sending a prompt goes on.
 * - `cancelled`, `error`: as for turns.
 */
export type RunStatus = 'completed' | 'needs_input' | 'limit' | 'budget' | 'cancelled' | 'error';

export type AgentEventType = AgentEvent['type'];

/** Closes an exhaustive switch: a new event type becomes a compile error. */
export function unreachable(value: never): never {
  throw new Error(`Unhandled case: ${JSON.stringify(value)}`);
}
