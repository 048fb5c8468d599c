/**
 * A slash command made of code rather than a prompt template: `/name args`
 * runs `run(input)`, which streams like an agent run (the same AgentEvents,
 * ending in a RunResult), so a front door shows it as it shows a prompt.
 */
import type { ACPAgent } from './acp-agent';
import type { RunResult } from './run-result';
import type { PromptRegistry } from '../config/prompts';
import type { Settings } from '../config/settings';
import type { EventStream } from '../engine/event-stream';
import type { AgentEvent } from '../engine/events';
import type { SessionUndo } from '../journal/session-undo';
import type { ACPSession } from '../session/acp-session';
import type { Workspace } from '../tools/workspace';

export interface CommandInput {
  /** The session the command runs in: its todos, permissions, subagent launcher, trace and artifact log. */
  session: ACPSession;
  /** The composition the session would run a prompt with; commands that write documents run their prompt through it. */
  agent: ACPAgent;
  workspace: Workspace;
  /** The text after the command name, trimmed. */
  args: string;
  env: NodeJS.ProcessEnv;
  /** The prompt's cancel: aborting it stops the command, keeping what was done. */
  signal: AbortSignal;
  prompts: PromptRegistry;
  /** The resolved settings, for commands with settings of their own. */
  settings?: Settings;
  /** The session's undo recording, when it has one (/undo reads its snapshots). */
  undo?: SessionUndo;
}

export interface ProgrammaticCommand {
  /** Without the slash: "speckit.plan". */
  name: string;
  /** One line for command lists. */
  description: string;
  /** What goes after the name, e.g. "<feature description>"; for ACP's `input.hint`. */
  argumentHint: string;
  /** The command manages the workspace's undo itself: no undo point is recorded before it (/undo). */
  skipUndoPoint?: boolean;
  /** Never throws: every failure ends the stream with a RunResult whose message says what to do. */
  run(input: CommandInput): EventStream<AgentEvent, RunResult>;
}
