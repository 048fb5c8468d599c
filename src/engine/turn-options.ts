/**
 * What a BaseAgent is made of, and what each of its turns runs with: the
 * agent's own options, the session-scoped parts every agent of a session
 * shares (permission gate, todos, undo, steering, checkpoints, hooks), and
 * the view of the agent a turn needs.
 */
import type { Provider } from '../llm/types';
import type { CallStops } from '../session/call-stops';
import type { Checkpoints } from '../session/checkpoints';
import type { Steering } from '../session/steering';
import type { Span } from '../telemetry/span';
import type { Hooks } from '../tools/hooks';
import type { PermissionGate } from '../tools/permissions';
import type { SavedOutputs } from '../tools/saved-outputs';
import type { SubagentLauncher, Tool } from '../tools/tool';
import type { TodoStore } from '../tools/todos';
import type { UndoRecorder } from '../tools/undo-recorder';
import type { Workspace } from '../tools/workspace';
import type { Budget } from '../vocabulary/budget';
import type { PermissionPolicy } from '../vocabulary/permission-types';
import type { CompactionSettings, ContextWindowKeeper } from './compaction';

export interface BaseAgentOptions {
  name: string;
  provider: Provider;
  tools: readonly Tool[];
  systemPrompt: string;
  workspace: Workspace;
  /** LLM calls allowed in one turn. Default 50. */
  maxIterations?: number;
  /** Identical consecutive tool calls that count as a doom loop. Default 3. */
  doomLoopThreshold?: number;
  maxOutputTokens?: number;
  /** Sampling temperature of every model call; absent = the provider's default. */
  temperature?: number;
  thinkingBudget?: number;
  /**
   * This agent's permission policy: the session's gate judges this agent's
   * calls by it (keeping the session's forced rules and remembered answers).
   * Without it the gate's own policy applies; without a gate, DEFAULT_POLICY.
   */
  policy?: PermissionPolicy;
  /** Keeps long sessions inside the model's context window; no compaction without it. */
  compaction?: CompactionSettings;
  /** How long the agent's own requests for approval (request_approval) wait for the person: its definition's approval_timeout. */
  approvalTimeoutMs?: number;
}

/** What a turn runs with besides the session. The session-scoped parts are shared by every agent of a session. */
export interface TurnOptions {
  signal: AbortSignal;
  /** The session's permission gate (remembers "always" answers). Default: the agent's policy, nobody to ask. */
  permissions?: PermissionGate;
  /** The session's shared todo list. Default: a fresh one. */
  todos?: TodoStore;
  /** Undo recording; state-changing tools cannot be undone without it. */
  undo?: UndoRecorder;
  /** Offer the model no tools for this turn (e.g. when only a summary is wanted). */
  withoutTools?: boolean;
  /** The span this turn's span hangs below, when the run is traced. */
  span?: Span;
  /** The agent's role in its composition, recorded on its spans. */
  role?: string;
  /** Runs subagents for the task tool. */
  subagents?: SubagentLauncher;
  /** 0 for the agent the user talks to; subagents count up. */
  depth?: number;
  /** The prompt's spending limits, checked before each model call. */
  budget?: Budget;
  /** Messages the person sent while the agent works, taken before each model call. */
  steering?: Steering;
  /** Where the calls running now can be stopped one by one. */
  calls?: CallStops;
  /** Gives a checkpoint before each call that may change something. */
  checkpoints?: Checkpoints;
  /** Where the session keeps outputs clipped for the model; none: clipped outputs are not saved. */
  outputs?: SavedOutputs;
  /** The user's hooks, run around each tool call. */
  hooks?: Hooks;
}

/** What a turn needs of the agent it runs for. */
export interface TurnAgent {
  readonly name: string;
  readonly provider: Provider;
  readonly toolNames: string[];
  readonly limits: { maxIterations: number; doomLoopThreshold: number };
  readonly contextWindow: ContextWindowKeeper | undefined;
}

type OptionalScope = 'undo' | 'withoutTools' | 'span' | 'role' | 'subagents' | 'depth' | 'budget' | 'steering' | 'checkpoints' | 'outputs' | 'hooks' | 'calls';
export type TurnScope = Required<Omit<TurnOptions, OptionalScope>> & Pick<TurnOptions, OptionalScope>;
