import type { RunStatus } from '../engine/events';
import type { Usage } from '../llm/types';

/** What one run of a composition produced, from the user's prompt until control returns. */
export interface RunResult {
  status: RunStatus;
  /** Where things stand, in a sentence or two a person can act on. */
  message: string;
  /** The task_complete summary of whoever ended the task. */
  summary?: string;
  /** Base-agent turns taken, every role counted. */
  turns: number;
  usage: Usage;
  /** Workspace-relative paths changed during the run, in first-change order. */
  filesChanged: string[];
}
