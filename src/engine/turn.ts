import type { Usage } from '../llm/types';
import type { ToolResult } from '../tools/tool';
import type { TurnStopReason } from './events';

export interface ExecutedToolCall {
  id: string;
  name: string;
  /** Parsed arguments, or the raw text when they were not valid JSON. */
  arguments: unknown;
  result: ToolResult;
  durationMs: number;
  /** A hook ended the run at this call (`continue: false`), saying this. */
  hookStop?: string;
}

/** What one BaseAgent turn produced. */
export interface TurnResult {
  /** Text of the last model response that had any; '' when none did. */
  text: string;
  toolCalls: ExecutedToolCall[];
  /** The task_complete summary, when the agent called it. */
  taskComplete?: string;
  /** Summed over every LLM call of the turn. */
  usage: Usage;
  /** Workspace-relative paths changed during the turn, in first-change order. */
  filesChanged: string[];
  stopReason: TurnStopReason;
  /** One sentence a person can read about why the turn ended. */
  message: string;
}
