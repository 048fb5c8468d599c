/**
 * The contract the task tool talks to: something that can run a named
 * subagent on a task with a fresh, isolated context and report back. The
 * composition layer implements it (src/agents/subagent-runner.ts).
 */
import type { ToolContext } from './tool';

export interface SubagentInfo {
  name: string;
  description: string;
}

export type SubagentStatus = 'completed' | 'failed' | 'cancelled' | 'denied';

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
}
