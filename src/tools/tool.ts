import type { ImageBlock, ToolSpec, Usage } from '../llm/types';
import type { PermissionAnswer, PermissionGate } from './permissions';
import type { Budget } from '../vocabulary/budget';
import type { Hooks } from './hooks';
import type { PermissionCategory } from '../vocabulary/permission-types';
import type { Span } from '../telemetry/span';
import type { SavedOutputs } from './saved-outputs';
import type { UndoRecorder } from './undo-recorder';
import type { TodoStore } from './todos';
import type { Workspace } from './workspace';

/** ACP tool kinds, so clients can pick an icon and a presentation. */
export type ToolKind = 'read' | 'edit' | 'delete' | 'move' | 'search' | 'execute' | 'think' | 'fetch' | 'other';

export type ToolStatus = 'success' | 'error' | 'cancelled';

export interface ToolMetadata {
  /** Workspace-relative paths the tool changed. */
  filesModified: string[];
  /** Unified diff of what the tool changed. */
  diff?: string;
  /** The call's own time: any wait for a person's approval (waitedMs) and getting ready (setupMs) are left out. */
  durationMs: number;
  /** How long the call waited for a person to answer its approval, when someone was asked. */
  waitedMs?: number;
  /** What the person answered, when someone was asked. */
  approval?: PermissionAnswer;
  /** Time the call spent getting ready before its work (a terminal opening), left out of durationMs. */
  setupMs?: number;
  /** Tool-specific facts (exit code, lines added, truncation, ...). */
  extra: Record<string, unknown>;
  /** See ToolOutput.failedWork. */
  failedWork?: string;
}

export interface ToolResult {
  status: ToolStatus;
  /** What the model reads on success (and partial output on failure). */
  output: string;
  /** Images for the model to see (only produced when ToolContext.supportsImages). */
  images?: ImageBlock[];
  /** Why it failed, in words the model (and a person) can act on. */
  error?: string;
  metadata: ToolMetadata;
}

/** A file position a client can open. */
export interface ToolLocation {
  path: string;
  line?: number;
}

/** Everything a tool may use while it runs. */
export interface ToolContext {
  sessionId: string;
  agentName: string;
  /** Names of the tools the calling agent has: a subagent it starts gets none beyond them. Unknown when absent. */
  agentTools?: readonly string[];
  callId: string;
  workspace: Workspace;
  /** Aborted when the user cancels; long work must stop promptly. */
  signal: AbortSignal;
  provider: string;
  model: string;
  /** Whether the model can see images a tool returns. */
  supportsImages: boolean;
  /** Decides every call that reads, writes, executes or uses the network, asking a person when the policy says so. */
  permissions: PermissionGate;
  /** The session's shared todo list. */
  todos: TodoStore;
  /** Present when undo is on: state-changing tools record what they may change before they run. */
  undo?: UndoRecorder;
  /** This call's span, when the run is traced; work the tool starts (a subagent) hangs below it. */
  span?: Span;
  /** Runs subagents for the task tool; absent where subagents are not offered. */
  subagents?: SubagentLauncher;
  /** How deep this agent is: 0 for the agent the user talks to, 1 for its subagents, ... */
  depth?: number;
  /** The prompt's spending limits: a subagent's model calls are checked against them too. */
  budget?: Budget;
  /** How long the agent's own request_approval waits for the person (its definition's approval_timeout); default five minutes. */
  approvalTimeoutMs?: number;
  /** Reports progress of long work (a subagent's steps) into the turn's event stream. */
  report?: (event: SubagentReport) => void;
  /** Reports what the call has done so far while it runs; the engine shows it as tool_progress events. */
  progress?: ToolProgress;
  /** Where output clipped for the model is kept whole; absent when the session is not stored. */
  outputs?: SavedOutputs;
  /** The user's hooks for this prompt: a subagent's calls go through them too. */
  hooks?: Hooks;
  /**
   * What this call's pre_tool_use hooks decided: `allow` runs it without
   * asking (a deny of the policy still denies; protected paths are still
   * asked), `ask` asks even where the policy allows; `rewrittenBy` names the
   * hook that replaced the model's arguments.
   */
  hookDecision?: { rule?: 'allow' | 'ask'; rewrittenBy?: string };
  /**
   * Set while a call runs because allow-list entries or "always" answers
   * cover its command line, nobody asked: they vouch for its words alone,
   * so the command runs under the rules of covered-command.ts.
   */
  coveredByEntries?: boolean;
}

/**
 * How a running call reports progress (as pi's onUpdate and opencode's
 * ctx.metadata do). A tool calls `output` and `step` as often as it likes:
 * the engine keeps a bounded tail and throttles what reaches the doors.
 */
export interface ToolProgress {
  /** The call's own work begins (defineTool calls it once any approval is given): its elapsed time counts from here. */
  start(): void;
  /** Output as it is produced (a command's stdout and stderr, interleaved). */
  output(chunk: string): void;
  /** Where the work stands, in the tool's words (an MCP server's notifications/progress). */
  step(step: ToolStep): void;
}

/** A step of a running call: what it does now and how far it got, when it knows. */
export interface ToolStep {
  message?: string;
  /** Work done so far, in the tool's own unit; `total` when the tool knows the whole. */
  done?: number;
  total?: number;
}

/** What a tool's own logic returns; defineTool adds status and timing. */
export interface ToolOutput {
  output: string;
  images?: ImageBlock[];
  /** Set when the call failed but has output and facts worth keeping (e.g. a command that timed out). */
  error?: string;
  filesModified?: string[];
  diff?: string;
  /** Time the call spent getting ready before its work (a terminal opening): kept apart from its duration. */
  setupMs?: number;
  /**
   * `output` lacks part of what the tool produced (a command's middle): the
   * whole of what it streamed through ctx.progress is saved for the model.
   */
  clipped?: boolean;
  extra?: Record<string, unknown>;
  /**
   * The call worked (its output goes to the model as usual) but what it ran
   * failed: a command that exited non-zero or was killed, e.g. "exit code 2".
   * Its span is an error, so every trace counts it and finds it.
   */
  failedWork?: string;
}

export interface Tool {
  readonly name: string;
  readonly description: string;
  readonly kind: ToolKind;
  /** What the tool needs the policy to allow; 'none' for tools without side effects outside the session. */
  readonly permission: PermissionCategory | 'none';
  /** Consecutive calls of this tool in one response may run at the same time (subagent tasks). */
  readonly parallel?: boolean;
  /** Changes nothing and depends on nothing another call of the same response changes: consecutive such calls run at the same time. */
  readonly readOnly?: boolean;
  /** JSON Schema of the arguments. */
  readonly inputSchema: Record<string, unknown>;
  /** Short human summary of a call, e.g. `src/app.ts:10-40`, for renderers. */
  summarize(args: unknown): string;
  /** Files the call touches, for clients that follow the agent. */
  locations(args: unknown): ToolLocation[];
  /**
   * Makes ready what a call's first run would otherwise build (its argument
   * parser, the workspace's search process): told while the model still
   * streams a call's arguments, so the call finds it made. Idempotent and
   * cheap once done.
   */
  prepare?(workspace: Workspace): void;
  /**
   * Runs one call from raw JSON arguments. Never throws: invalid arguments,
   * failures and cancellation all come back as a ToolResult.
   */
  run(rawArguments: string, ctx: ToolContext): Promise<ToolResult>;
}

export function toolSpec(tool: Tool): ToolSpec {
  return { name: tool.name, description: tool.description, inputSchema: tool.inputSchema };
}

/*
 * The contract the task tool talks to: something that can run a named
 * subagent on a task with a fresh, isolated context and report back. The
 * composition layer implements it (src/agents/subagent-runner.ts).
 */

export interface SubagentInfo {
  name: string;
  description: string;
}

export type SubagentStatus = 'completed' | 'failed' | 'cancelled' | 'denied';

/** What the task tool reports of a subagent while it runs; the engine streams these as AgentEvents. */
export type SubagentReport =
  /** A subagent started on a task (`agent` is the parent that called the task tool). */
  | { type: 'subagent_start'; agent: string; subagent: string; callId: string; task: string; sessionId: string }
  /** A step of a running subagent, in a line, e.g. "read_file src/a.ts". */
  | { type: 'subagent_progress'; agent: string; subagent: string; callId: string; text: string }
  | { type: 'subagent_end'; agent: string; subagent: string; callId: string; status: SubagentStatus; summary: string }
  /** One model call of a running subagent (its own, its reviewer's, a reflection): what the parent's prompt costs too. */
  | { type: 'subagent_usage'; agent: string; subagent: string; callId: string; usage: Usage; model: string; costUsd?: number };

export interface SubagentOutcome {
  status: SubagentStatus;
  /** Markdown for the parent model; its "## Summary" section is the one-line report. */
  result: string;
  /** The one-line report. */
  summary: string;
  /** The stored child session with the full transcript, when one was started. */
  sessionId?: string;
  /** The reviewer that approved the work, for a subagent composition with one (absent when it did not approve). */
  approvedBy?: string;
  /** Workspace-relative paths the subagent changed, in first-change order. */
  filesChanged?: string[];
  /** Facts for the trace (reflection attempts, approval decision, ...). */
  extra: Record<string, unknown>;
}

export interface SubagentLauncher {
  /** The subagents a model may name. */
  available(): SubagentInfo[];
  /** Runs one subagent task. Never throws: failures are outcomes the model reads. */
  run(request: { agent: string; task: string }, ctx: ToolContext): Promise<SubagentOutcome>;
  /** How many runs of `agent` go at the same time (its provider's queue); absent: one. */
  concurrencyFor?(agent: string): number;
  /**
   * Why concurrencyFor(agent) is what it is: the provider's kind (`local`,
   * `anthropic`, `openai`, or `external` for an ACP agent) and the setting
   * that decided it (absent: the kind's default; "session" when the session
   * set it), for messages saying why tasks run one at a time.
   */
  concurrencySource?(agent: string): { kind: string; setting?: string };
}
