/** What a tool built by defineTool declares (ToolDefinition), and what each of its calls shares of it (CallableTool). */
import type * as z from 'zod';
import type { PermissionCategory } from '../vocabulary/permission-types';
import type { Tool, ToolContext, ToolKind, ToolLocation, ToolOutput } from './tool';
import type { Workspace } from './workspace';

/** How a call describes itself when a person must approve it. */
export interface ApprovalText {
  /** e.g. "Edit src/app.ts" or "Run: npm test". */
  title: string;
  /** The command line, for execute tools (allow-lists match on it). */
  command?: string;
  /** The command's working folder, relative to the workspace root, when not the root. */
  cwd?: string;
  /** The call may destroy what cannot be restored: asked every time (see PermissionRequest.destructive). */
  destructive?: true;
}

export interface ToolDefinition<Schema extends z.ZodObject> {
  name: string;
  description: string;
  kind: ToolKind;
  /** What the permission policy must allow before the tool runs. */
  permission: PermissionCategory | 'none';
  /** Consecutive calls in one response may run at the same time. */
  parallel?: boolean;
  /** Changes nothing (no files, no todo list, no process): consecutive read-only calls of one response run at the same time. */
  readOnly?: boolean;
  /**
   * The arguments it takes. Built-in tools give a function building the schema: it runs at the tool's first
   * call, and their JSON Schema comes from the build's snapshot (see builtin-snapshot.ts), so a run whose model
   * calls no tool builds no zod schema at all.
   */
  parameters: Schema | (() => Schema);
  /** Overrides DEFAULT_MAX_OUTPUT_CHARS for this tool. */
  maxOutputChars?: number;
  summarize?: (args: z.infer<Schema>) => string;
  locations?: (args: z.infer<Schema>) => ToolLocation[];
  /** Its commands run through workspace.exec, so in the workspace's sandbox when there is one. */
  sandboxed?: boolean;
  /** Approval wording; defaults to the tool name and its summary. */
  approval?: (args: z.infer<Schema>) => ApprovalText;
  /** The change the call would make, as a unified diff, for the person asked to approve it (computed only if someone is asked). */
  preview?: (args: z.infer<Schema>, ctx: ToolContext) => Promise<string | undefined>;
  /**
   * Readies what a call will use beyond its parser (the workspace's search
   * process): told, with Tool.prepare, while the model still streams a call.
   * Must be cheap when already done, and harmless when no call follows.
   */
  prepare?: (workspace: Workspace) => void;
  /** The tool's own logic. Throwing is fine: the error becomes a result the model reads. */
  execute(args: z.infer<Schema>, ctx: ToolContext): Promise<ToolOutput>;
}

/** What a call's steps (tool-call.ts) share from its tool: the definition and what defineTool derived from it once. */
export interface CallableTool<Schema extends z.ZodObject> {
  def: ToolDefinition<Schema>;
  tool: Tool;
  parameters: () => Schema;
  schema: () => Record<string, unknown>;
  summarize: (args: z.infer<Schema>) => string;
  maxOutputChars: number;
}
