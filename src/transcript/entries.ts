/**
 * A transcript: what a person sees of a session, as entries every door
 * renders (the chat's cards, ACP's session updates, the CLI's lines), live
 * and when a stored session is shown again. The words of an entry (a tool
 * call's title, a verdict, a notice, what to do about a failure) are
 * decided in this folder; a door only draws them.
 */
import type { NoticeAction, NoticeLevel, ReviewVerdict, HandoffPurpose, RunStatus, TurnStopReason } from '../engine/events';
import type { Usage, UserBlock } from '../llm/types';
import type { Checkpoint } from '../session/checkpoints';
import type { TodoItem } from '../tools/todos';
import type { ToolKind, ToolLocation, ToolResult } from '../tools/tool';
import type { ChangedFile } from '../vocabulary/changed-file';
import type { CallWords } from '../vocabulary/tool-story';

/** Who acts, as a door shows them: the primary speaks the answer, the reviewer reviews it, anyone else is a helper. */
export interface Actor {
  agent: string;
  role: 'primary' | 'reviewer' | 'subagent';
}

/** What to do about a failed prompt: words, and where a door may take the person. */
export interface FailureHint {
  text: string;
  /** A VS Code setting to open, e.g. "crow.baseUrls". */
  setting?: string;
  /** No provider can answer yet (no key): the provider set-up helps. */
  setup?: boolean;
  /** The prompt was interrupted (Crow stopped, a window reload): resuming sends the agents back to it. */
  resume?: boolean;
}

export type CallStatus = 'completed' | 'failed' | 'cancelled';

export type TranscriptEntry =
  /**
   * What the person sent. `text` as a person reads it: an Apply's prompt
   * (a button, not typed) is a quiet line (`action`). A prompt's own
   * message opens its entries; `sent`: live, the door showed it as it was
   * sent (replayed, it did not). `steered`: sent while the agents worked,
   * given to `agent` now. `reviewer`: who reviews this prompt's work.
   */
  | { type: 'prompt'; content: UserBlock[]; text: string; action?: boolean; sent?: boolean; steered?: { agent: string }; reviewer?: Actor }
  | { type: 'text'; actor: Actor; delta: string }
  | { type: 'thinking'; actor: Actor; delta: string }
  /**
   * What an agent ended its work with (task_complete's summary), as its
   * answer; `separated`: answer text came before it in this prompt.
   */
  | { type: 'summary'; actor: Actor; text: string; separated: boolean }
  /** A tool call starts: `title` in a person's words ("Reading greet.ts"); `summary` the engine's short target. */
  | {
      type: 'tool_start';
      actor: Actor;
      callId: string;
      tool: string;
      kind: ToolKind;
      title: string;
      words: CallWords;
      summary: string;
      arguments: unknown;
      locations: ToolLocation[];
    }
  /** A running call's progress: time so far, the end of its output, its step in words. */
  | { type: 'tool_progress'; actor: Actor; callId: string; tool: string; elapsedMs: number; tail?: string; lines?: number; step?: string }
  /**
   * A call ended: `title` as done ("Read greet.ts"), refused ("Not
   * allowed: write a.txt") or failed ("Could not run npm test"); `outcome`
   * what it found or changed ("+1 −1"), `denied` who refused it.
   */
  | {
      type: 'tool_end';
      actor: Actor;
      callId: string;
      tool: string;
      kind?: ToolKind;
      title: string;
      words: CallWords;
      status: CallStatus;
      outcome?: string;
      denied?: 'person' | 'settings';
      result: ToolResult;
      durationMs: number;
    }
  | { type: 'plan'; items: TodoItem[] }
  | { type: 'checkpoint'; checkpoint: Checkpoint }
  | { type: 'context'; agent: string; used: number; window: number }
  /** One model call's tokens and cost; `subagent`: a helper's call, paid by this prompt but not in this session's context. */
  | { type: 'cost'; actor: Actor; usage: Usage; model: string; costUsd?: number; context?: number; subagent: boolean }
  /**
   * Something worth knowing besides the work. `about`: the session host's
   * notice (`host`), or one about the work (a retry, a doom loop, a
   * compaction, a turn that ended short). `replaces`: the notice before
   * it with the same key is updated in place (retries of one request).
   */
  | { type: 'notice'; level: NoticeLevel; text: string; about: 'host' | 'retry' | 'doom_loop' | 'compaction' | 'ended_short'; title?: string; action?: NoticeAction; replaces?: 'retry'; actor?: Actor }
  /** A reviewer takes over: "First review", "the reviewer checks the work". */
  | { type: 'review_start'; reviewer: Actor; primary: Actor; round: number; roundText: string; text: string }
  /** What the reviewer decided, in words ("Reviewer approved"); `summary` what it said, unless it said so already. */
  | { type: 'verdict'; reviewer: Actor; primary: Actor; round: number; verdict: ReviewVerdict; mark: string; text: string; colon: boolean; summary: string }
  /** A message between agents, by why ("Sent for review"); the text is written for the agent. */
  | { type: 'handoff'; from: Actor; to: Actor; purpose: HandoffPurpose; text: string; words: string }
  /** A helper's work, on the card of the task call `callId` that runs it. */
  | { type: 'subagent'; parent: Actor; callId: string; subagent: string; state: 'started' | 'progress' | 'ended'; text: string; status?: string }
  | { type: 'turn_start'; actor: Actor }
  | { type: 'turn_end'; actor: Actor; reason: TurnStopReason; message: string }
  | { type: 'files_changed'; actor: Actor; files: string[] }
  /** The loop stopped on an error or a cancel; the prompt's end says so in words. */
  | { type: 'stopped'; actor: Actor; why: 'error' | 'cancelled'; message?: string }
  /** An agent ended the task (its summary shows as a `summary` entry where it is the answer). */
  | { type: 'task_complete'; actor: Actor; summary: string }
  /**
   * The prompt ended. `message` says where things stand; `said`, the same
   * unless it only repeats what was shown; `hint` what to do about a
   * failure; `changes` what the prompt changed (its journal's).
   */
  | { type: 'prompt_end'; status: RunStatus; message: string; said: string; hint?: FailureHint; changes?: ChangedFile[] };
