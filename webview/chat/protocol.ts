/**
 * The messages between the extension host and the chat view, one union in
 * each direction. Both sides import this module (it imports nothing but the
 * meter's shape, which the host's cost code shares), so a new message is a
 * compile error wherever it is not handled. Everything here is plain JSON:
 * it crosses `postMessage`. No API key ever appears in a message; the host
 * sends the names of keys, never their values.
 */
import type { Meter } from '../../src/vocabulary/meter';
import type { CallWords } from '../../src/vocabulary/tool-story';
import type { SuggestTrigger, Suggestion } from '../../src/vocabulary/suggestion';

export type { SuggestTrigger, Suggestion };

export type { Meter } from '../../src/vocabulary/meter';

export type { Actor, ActorRole, CardDiff } from './view-shapes';
import type { Actor, CardDiff } from './view-shapes';
import type { AttemptsCardView } from './attempts-protocol';
export type { AttemptRowView, AttemptsCardView, AttemptsPhase } from './attempts-protocol';
import type { BackgroundHostMessage, BackgroundWebviewMessage } from './background-protocol';
export type { BackgroundRunState, BackgroundRunView } from './background-protocol';

export interface AgentChoice {
  name: string;
  description: string;
}

export interface RoleModelChoice {
  /** "primary" or "coagent" (the reviewer). */
  role: 'primary' | 'coagent';
  label: string;
  current: string;
  options: string[];
  /** How to show an option when not by its value (VS Code's models: "GPT-4o (copilot)"). */
  labels?: Record<string, string>;
}

/** The thinking level of the session's agent, offered only when its model thinks. */
export interface ThinkingChoice {
  current: string;
  levels: string[];
}

export interface SessionSummary {
  id: string;
  title: string;
  agent: string;
  /** ISO time of the last change. */
  updatedAt: string;
}

export type CardStatus = 'running' | 'completed' | 'failed' | 'cancelled';

/** A call in a person's words (shared with the CLI): see src/vocabulary/tool-story.ts. */
export type { CallWords };

export interface PlanEntry {
  content: string;
  status: 'pending' | 'in_progress' | 'completed';
}

export type { ApprovalDecision, ApprovalOutcome, ApprovalRequest, ElicitField, ElicitValue, QuestionAction, ServerQuestion } from './asking-protocol';
import type { ApprovalDecision, ApprovalOutcome, ApprovalRequest, ElicitValue, QuestionAction, ServerQuestion } from './asking-protocol';

/** What a restore puts back. */
export type RestoreMode = 'both' | 'files' | 'conversation';

/** What a person clicked to put back: the last prompt's changes (or one file of them), or the session to a checkpoint. */
export type RestoreTarget = { kind: 'undo'; path?: string } | { kind: 'rewind'; checkpoint: string; mode: RestoreMode };

/** How a restore the person clicked for ended: done, nothing to do, not confirmed, or failed (what it did put back is in the words). */
export type RestoreOutcome = 'restored' | 'nothing' | 'declined' | 'failed';

/** A file's lines added and removed, counted between its state before the prompt and now (the journal's, see src/journal/prompt-changes.ts). */
export interface FileCount {
  path: string;
  added: number;
  removed: number;
  /** What the prompt did to it; absent: changed. */
  status?: 'added' | 'modified' | 'deleted';
  /** A binary file: its lines are not counted. */
  binary?: boolean;
}

/** One hunk of a prompt's change to a file: `removed` lines before it (from line `oldStart`) became `added` (from line `newStart`). */
export interface HunkView {
  id: string;
  oldStart: number;
  newStart: number;
  removed: string[];
  added: string[];
}

/** A standing "Always" or "Never" answer of the session, listed with Revoke. */
export interface StandingRuleView {
  id: string;
  allowed: boolean;
  /** What it covers, in words: "file changes", "commands starting with \"npm test\"". */
  covers: string;
}

/** How a prompt ended, for the footer under its answer. */
export type PromptStatus = 'completed' | 'needs_input' | 'limit' | 'budget' | 'cancelled' | 'error';

/** What the view shows of a session: enough to rebuild the transcript of a resumed one. */
export type TranscriptEvent =
  /** How full an agent's context window is after its turn (tokens): the meter shows it, the transcript does not. */
  | { type: 'context'; agent: string; used: number; window: number }
  /** A moment the session can be restored to: before the prompt shown last (`prompt`), or before the tool call `callId`. */
  | { type: 'checkpoint'; id: string; kind: 'prompt' | 'tool'; callId?: string }
  /**
   * `steered`: sent while the agents worked, and given to them at this point.
   * `action`: not typed but started by a button (Apply): a quiet line in the person's words, not their message.
   */
  | { type: 'user_message'; text: string; steered?: boolean; action?: boolean }
  | { type: 'text_delta'; actor: Actor; delta: string }
  | { type: 'thinking_delta'; actor: Actor; delta: string }
  | {
      type: 'tool_start';
      actor: Actor;
      callId: string;
      tool: string;
      kind: string;
      /** Short human summary of the call's target, e.g. `src/app.ts:1-40` (the tool's name is in `tool`). */
      title: string;
      /** Arguments as pretty JSON text (capped). */
      argumentsText: string;
      /** What the call does in plain words; the card falls back to `tool` and `title` without it. */
      words?: CallWords;
    }
  /** A running call's progress, replacing the one before: its time so far, the end of its output (`lines` in all), its step in words. */
  | { type: 'tool_progress'; callId: string; elapsedMs: number; tail?: string; lines?: number; step?: string }
  | {
      type: 'tool_end';
      callId: string;
      status: Exclude<CardStatus, 'running'>;
      /** The call's own time, without the wait for an approval. */
      durationMs: number;
      /** How long it waited for a person's approval, when one was asked. */
      waitedMs?: number;
      /** What the person answered, when someone was asked (`allow_edited`: allowed once, as they changed it): the card says so once the call ends. */
      approval?: ApprovalDecision | 'reject_always' | 'allow_edited';
      /** Time the call spent getting ready (a terminal opening), apart from durationMs. */
      setupMs?: number;
      /** A command's exit code: the card shows a non-zero one as a failure, whatever the call's status. */
      exitCode?: number;
      /** The command ran in the sandbox (inside the workspace, no network, no keys): the card says so. */
      sandboxed?: boolean;
      /** The tool's output as the model saw it (capped). */
      output: string;
      diff?: CardDiff;
      /** Workspace-relative files the call changed. */
      files: string[];
      /** What it found or changed, short: "+1 −1", "3 files", "no matches". */
      outcome?: string;
      /** The permission gate refused the call: the person said no (now or earlier), or the settings do not allow it. */
      denied?: 'person' | 'settings';
    }
  | { type: 'plan'; entries: PlanEntry[] }
  | { type: 'handoff'; from: Actor; to: Actor; purpose: string; text: string }
  | { type: 'subagent'; callId: string; subagent: string; state: 'started' | 'progress' | 'ended'; text: string }
  /** `replaces`: a notice of the same key right before it is updated in place (retries of one request: one line). */
  /** `action`: what the notice offers to do (sign in to the MCP server it names). */
  | { type: 'notice'; level: 'info' | 'warning' | 'error'; text: string; replaces?: 'retry'; action?: NoticeOffer }
  /** A reviewer takes over (round counts from 1), and what it decided. */
  | { type: 'review_start'; reviewer: Actor; primary: Actor; round: number }
  | { type: 'verdict'; reviewer: Actor; round: number; verdict: 'approved' | 'feedback' | 'cancelled' | 'error'; summary: string }
  /** `hint`: what to do about an error (a provider down, a key refused, an unknown model). */
  /** `changes`: what the prompt changed, from its journal (absent when undo did not record it): its changes bar. */
  | { type: 'prompt_end'; status: PromptStatus; message: string; hint?: ErrorHint; changes?: FileCount[] };

/** What a notice offers: signing in to an MCP server that asks for it (runs "Crow: Sign In to MCP Server…"). */
export interface NoticeOffer {
  kind: 'mcp_sign_in';
  server: string;
}

/** What an error card offers besides Retry: settings to open, in words. */
export interface ErrorHint {
  text: string;
  /** A VS Code setting to open, e.g. "crow.baseUrls". */
  setting?: string;
  /** No provider can answer yet (no key): the card offers the provider set-up. */
  setup?: boolean;
  /** The prompt was interrupted (a window reload, Crow stopped): the card offers to resume it. */
  resume?: boolean;
}

/** The providers the set-up offers: a model VS Code already has, one with a key, or a server of the person's (OpenAI-compatible). */
export type SetupChoice = 'vscode' | 'anthropic' | 'openai' | 'server';

/** A chat model VS Code offers (Copilot's, another extension's): `id` is `vendor/id`, `label` names it and its vendor. */
export interface VscodeModelChoice {
  id: string;
  label: string;
}

/** Why the view offers the provider set-up: the provider in force and the key variable it lacks. */
export interface SetupNeed {
  provider: string;
  variable: string;
  /** Models VS Code already offers: when there are any, the set-up offers them first (no key needed). */
  vscodeModels?: VscodeModelChoice[];
}

/** Host → webview. */
export type HostMessage =
  /** Everything the view needs after (re)loading; the transcript is replayed with `events`. */
  | {
      type: 'init';
      agents: AgentChoice[];
      agent: string;
      models: RoleModelChoice[];
      thinking?: ThinkingChoice;
      sessions: SessionSummary[];
      sessionId: string | undefined;
      meter: { prompt: Meter; session: Meter };
      busy: boolean;
      /** What an empty session says Crow does, as the permissions in force have it. */
      welcome?: string;
    }
  /**
   * Clears the transcript: a new session, or a resumed one whose events
   * follow. `opened`: another session opens here (new, resumed, or reopened
   * after a reload), not the same one shown again in a rebuilt view.
   */
  | { type: 'reset'; sessionId: string | undefined; title: string; opened?: boolean }
  | { type: 'events'; events: TranscriptEvent[] }
  | { type: 'agents'; agents: AgentChoice[]; agent: string; models: RoleModelChoice[]; thinking?: ThinkingChoice; welcome?: string }
  | { type: 'sessions'; sessions: SessionSummary[]; current: string | undefined }
  | { type: 'busy'; busy: boolean }
  /** Messages sent while the agents work, waiting for their next step (the whole list each time). */
  | { type: 'queue'; items: { id: string; text: string }[] }
  | { type: 'meter'; prompt: Meter; session: Meter }
  | { type: 'approval'; request: ApprovalRequest }
  /** The approval was answered (here or elsewhere) or withdrawn (cancel); the view removes its buttons. */
  | { type: 'approval_done'; id: string; decision: ApprovalOutcome }
  /** Edited arguments the host did not accept: `problem` says why; the approval stays pending. */
  | { type: 'approval_invalid'; id: string; problem: string }
  /** The approval's change is open for editing in the diff editor; `diff` is the change as the person's text now makes it. */
  | { type: 'approval_change'; id: string; diff: CardDiff }
  /** An MCP server's question: the view shows it as a card with the form (or the page) and its answers. */
  | { type: 'question'; question: ServerQuestion }
  /** The question was answered, or withdrawn (the prompt or the server gave up); the view leaves a line saying which. */
  | { type: 'question_done'; id: string; outcome: QuestionAction | 'withdrawn' }
  /** An answer that does not fit the form: `problem` says why; the question stays open with the answers as typed. */
  | { type: 'question_invalid'; id: string; problem: string }
  /** The answer to `suggest`: what fits `query` after `trigger` (the view shows it only while that is still what is typed). */
  | { type: 'suggestions'; trigger: SuggestTrigger; query: string; items: Suggestion[] }
  /** Puts text into the input box (send selection or file to Crow), without sending it. */
  | { type: 'prefill'; text: string }
  /** The provider set-up: shown with what is missing, or hidden (`need` absent) once a provider can answer. */
  | { type: 'setup'; need?: SetupNeed }
  /** The answer to `test_server`: what the server said, and the models it lists. */
  | { type: 'server_test'; url: string; ok: boolean; message: string; models: string[] }
  /** A set-up step failed (the key could not be stored, a setting not written): said under the form. */
  | { type: 'setup_error'; message: string }
  /**
   * How an Undo or Restore the person clicked ended, in words: the changes
   * bar or the restore choice it came from shows it, and a rewound
   * conversation's turns from `target` on show as rewound. `earlier`: a
   * rewind told again from a reopened session's record, whose words are
   * the label over its turns (no line of its own under them).
   */
  | { type: 'restored'; target: RestoreTarget; outcome: RestoreOutcome; message: string; earlier?: true }
  /** The last prompt's changes counted net per file (each file before the prompt against now), for its changes bar. */
  | { type: 'change_counts'; files: FileCount[] }
  /** The hunks of the last prompt's change to `path` (before the prompt against now), for its row in the changes bar. */
  | { type: 'hunks'; path: string; hunks: HunkView[] }
  /** How an Undo of one hunk ended: put back, or why nothing was. */
  | { type: 'hunk_undone'; path: string; hunk: string; restored: boolean; message: string }
  /** One hunk of the last prompt's change to `path` is kept (in the bar or the editor): neither offers it again. */
  | { type: 'hunk_kept'; path: string; hunk: string }
  /** The session's standing "Always" and "Never" answers (the whole list each time). */
  | { type: 'rules'; rules: StandingRuleView[] }
  /** How many attempts the next prompts run as (1: a prompt as usual). */
  | { type: 'attempts_count'; count: number }
  /** A run of parallel attempts' card, whole, each time it changes (the view replaces the card of that id). */
  | { type: 'attempts'; card: AttemptsCardView }
  | BackgroundHostMessage;

/** Webview → host. */
export type WebviewMessage =
  | { type: 'ready' }
  | { type: 'send'; text: string }
  | { type: 'cancel' }
  | { type: 'new_session' }
  | { type: 'resume'; sessionId: string }
  | { type: 'pick_agent'; agent: string }
  | { type: 'pick_model'; role: 'primary' | 'coagent'; model: string }
  | { type: 'pick_thinking'; level: string }
  /** Runs the next prompts as `count` attempts side by side (1: as usual). */
  | { type: 'pick_attempts'; count: number }
  /** Applies attempt `n` of the run `run` to the folder (a prompt of the session, so Undo takes it back). */
  | { type: 'apply_attempt'; run: string; n: number }
  /** Applies none of the run's attempts: its worktrees are removed. */
  | { type: 'dismiss_attempts'; run: string }
  | { type: 'approve'; id: string; decision: ApprovalDecision }
  /** Denies a pending approval with the person's reason: the agent reads it as the denial. */
  | { type: 'deny'; id: string; reason: string }
  /** Allows a pending approval once, with the arguments the person edited (JSON text). */
  | { type: 'approve_edited'; id: string; arguments: string }
  /** Opens the change a pending approval asks about in VS Code's diff editor. */
  | { type: 'preview_approval'; id: string }
  /** Opens a pending approval's change in the diff editor, its proposed side editable (or shows that editor again). */
  | { type: 'edit_change'; id: string }
  /** Allows a pending approval once, with the text the person left in its diff editor. */
  | { type: 'approve_change'; id: string }
  /** Sends the last prompt again (after an error). */
  /** The person typed `/` at the start of the prompt or `@` before a word, then `query`: what may they pick? */
  | { type: 'suggest'; trigger: SuggestTrigger; query: string }
  /** The person's answer to a server's question; `content` only with accept, for a form. */
  | { type: 'answer_question'; id: string; action: QuestionAction; content?: Record<string, ElicitValue> }
  | { type: 'retry' }
  /** Goes back to a checkpoint at once (the host asks only when files the transcript did not show would change). */
  | { type: 'restore'; checkpoint: string; mode: RestoreMode }
  /** Branches a new session from before the message at `checkpoint`, and sends `text` there; `files`: the files go back to that checkpoint first. */
  | { type: 'edit_message'; checkpoint: string; text: string; files?: boolean }
  /** Stops the running step: what waits in the queue is sent at once. */
  | { type: 'interrupt' }
  | { type: 'open_settings'; setting: string }
  /** Signs in to the MCP server a notice named (the command "Crow: Sign In to MCP Server…"). */
  | { type: 'mcp_sign_in'; server: string }
  | { type: 'show_log' }
  | { type: 'open_diff'; callId: string }
  | { type: 'open_file'; path: string; line?: number }
  /** Opens the session's trace, at the span of this tool call when given. */
  | { type: 'show_trace'; callId?: string }
  /** Stores the key of a provider (in VS Code's secret storage) and makes that provider the default. */
  | { type: 'setup_key'; provider: 'anthropic' | 'openai'; key: string }
  /** Asks an OpenAI-compatible server at `url` for its models, with `key` when the person gave one. */
  | { type: 'test_server'; url: string; key?: string }
  /** Makes the OpenAI-compatible server at `url`, with `model`, the default provider; `key` is stored as its key. */
  | { type: 'use_server'; url: string; model: string; key?: string }
  /** Makes provider "vscode" with this model (`vendor/id`) the default: a model VS Code already offers. */
  | { type: 'use_vscode_model'; model: string }
  /** Undoes what the last prompt changed (only `path`, when given) at once; the host asks only when files the bar did not list would change. */
  | { type: 'undo_prompt'; path?: string }
  /** Asks for the hunks of the last prompt's change to `path` (answered by `hunks`). */
  | { type: 'show_hunks'; path: string }
  /** Puts back one hunk (by its id) of the last prompt's change to `path` (answered by `hunk_undone`). */
  | { type: 'undo_hunk'; path: string; hunk: string }
  /** Keeps one hunk (nothing is written), so the editor stops offering it too (answered by `hunk_kept`). */
  | { type: 'keep_hunk'; path: string; hunk: string }
  /** Takes back a standing "Always" or "Never" answer: such calls are asked again. */
  | { type: 'revoke_rule'; id: string }
  /** Stops one running tool call (a long command); the prompt goes on. */
  | { type: 'stop_call'; callId: string }
  /** A code block of an answer, to the clipboard. */
  | { type: 'copy_code'; text: string }
  /** A code block of an answer, into the active editor at its cursor (replacing a selection). */
  | { type: 'insert_code'; text: string }
  /**
   * A code block of an answer, proposed as the whole new text of a file through the
   * edit approval: `path` as the fence named it, absent when it named none (the host asks which file).
   */
  | { type: 'apply_code'; text: string; path?: string }
  | BackgroundWebviewMessage;
