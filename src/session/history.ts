import type { ImageBlock, UserBlock } from '../llm/types';
import type { ToolMetadata, ToolStatus } from '../tools/tool';

/** Things that happened to a session that are not messages. */
export type SystemEventKind = 'cancelled' | 'doom_loop' | 'max_iterations' | 'budget' | 'task_complete' | 'error';

/**
 * One step of an agent's real timeline, in the order it happened. Entries are
 * plain JSON so a store can append them line by line.
 */
export type HistoryEntry =
  /** A user message; `from` names the agent (or flow) that wrote it when it was a handoff, not the human. */
  | { kind: 'user'; content: UserBlock[]; from?: string; at: number }
  | { kind: 'assistant_text'; text: string; at: number }
  | { kind: 'thinking'; text: string; signature?: string; at: number }
  | { kind: 'redacted_thinking'; data: string; at: number }
  /** `arguments` is the raw JSON text the model produced. */
  | { kind: 'tool_call'; id: string; name: string; arguments: string; extra?: Record<string, unknown>; at: number }
  | {
      kind: 'tool_result';
      callId: string;
      name: string;
      status: ToolStatus;
      output: string;
      error?: string;
      images?: ImageBlock[];
      metadata: ToolMetadata;
      at: number;
    }
  | { kind: 'system'; event: SystemEventKind; message: string; at: number }
  /**
   * Compaction: from here on the model reads `note` (the rendered summary of
   * everything before entry `upTo`) instead of those entries. The entries stay
   * in the history for the trace and exports.
   */
  | { kind: 'compaction'; upTo: number; note: string; at: number }
  /** Tool outputs of entries before `before` are sent to the model trimmed (compaction's cheap first step). */
  | { kind: 'trim_tool_outputs'; before: number; at: number }
  /**
   * The conversation was rewound to a checkpoint: entries from `to` (an
   * index into the whole history) up to this one are no longer read by the
   * model. They stay in the history for the trace and exports.
   */
  | { kind: 'rewind'; to: number; at: number };

export type HistoryEntryKind = HistoryEntry['kind'];

/** A tool call's raw argument text for showing: parsed JSON, or the text itself when a model produced invalid JSON. */
export function argumentsForDisplay(raw: string): unknown {
  try {
    return raw.trim() === '' ? {} : JSON.parse(raw);
  } catch {
    return raw;
  }
}

/** A user message as text; images appear as a placeholder naming their type. */
export function userText(blocks: readonly UserBlock[]): string {
  return blocks.map((block) => (block.type === 'text' ? block.text : `[image: ${block.mimeType}]`)).join('\n');
}
