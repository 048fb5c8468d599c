/**
 * The steps of a tool call (tool-call.ts) that need more than a few lines:
 * reading the model's arguments, the request a person is asked, and the
 * record kept for undo before the call runs.
 */
import type * as z from 'zod';
import { errorText } from '../vocabulary/text';
import type { EditableArguments, PermissionRequest } from './permissions';
import type { PermissionCategory } from '../vocabulary/permission-types';
import { commandAlwaysScope } from './command-rules';
import type { Tool, ToolContext, ToolOutput } from './tool';
import type { CommandWatch } from './undo-recorder';
import type { CallableTool, ToolDefinition } from './tool-definition';

type Parsed<T> = { ok: true; value: T; json: unknown } | { ok: false; error: string };

/** The arguments as the tool takes them; `rewrittenBy` names the hook whose arguments they are, for the error when they do not fit. */
export function parseArguments<Schema extends z.ZodObject>(
  tool: string,
  schema: Schema,
  raw: string,
  rewrittenBy?: string,
): Parsed<z.infer<Schema>> {
  let json: unknown;
  try {
    json = raw.trim() === '' ? {} : JSON.parse(raw);
  } catch (err) {
    return {
      ok: false,
      error: `Invalid arguments for ${tool}: not valid JSON (${errorText(err)}). Send the arguments as one JSON object.`,
    };
  }
  const parsed = schema.safeParse(json);
  if (parsed.success) return { ok: true, value: parsed.data, json };
  const problems = issues(parsed.error);
  if (rewrittenBy !== undefined) {
    return { ok: false, error: `Invalid arguments for ${tool} as ${rewrittenBy} rewrote them: ${problems.join('; ')}. Not run; the hook's updatedInput must fit the tool's parameters.` };
  }
  return { ok: false, error: `Invalid arguments for ${tool}: ${problems.join('; ')}.` };
}

function issues(error: z.ZodError): string[] {
  return error.issues.map((issue) => {
    const field = issue.path.length > 0 ? issue.path.join('.') : '(arguments)';
    return `${field}: ${issue.message}`;
  });
}

/** The model's arguments as a person may edit them, checked against the tool's parameters. */
export function editableArguments(schema: z.ZodObject, jsonSchema: Record<string, unknown>, json: unknown): EditableArguments {
  const args = typeof json === 'object' && json !== null && !Array.isArray(json) ? (json as Record<string, unknown>) : {};
  return {
    arguments: args,
    schema: jsonSchema,
    check(edited) {
      if (typeof edited !== 'object' || edited === null || Array.isArray(edited)) return 'the arguments must be one JSON object';
      const parsed = schema.safeParse(edited);
      return parsed.success ? undefined : issues(parsed.error).join('; ');
    },
  };
}

export function approvalRequest<Schema extends z.ZodObject>(
  { def, tool, summarize }: CallableTool<Schema>,
  args: z.infer<Schema>,
  category: PermissionCategory,
  ctx: ToolContext,
): PermissionRequest {
  const text = def.approval ? def.approval(args) : { title: `${def.name} ${summarize(args)}` };
  return {
    tool: def.name,
    callId: ctx.callId,
    agent: ctx.agentName,
    category,
    title: text.title,
    ...(text.command !== undefined ? { command: text.command } : {}),
    ...(text.cwd !== undefined ? { cwd: text.cwd } : {}),
    ...(def.sandboxed && ctx.workspace.sandboxed ? { sandboxed: true } : {}),
    paths: tool.locations(args).map((location) => location.path),
    alwaysScope: text.destructive ? DESTRUCTIVE_SCOPE : alwaysScope(category, text.command),
    ...(text.destructive ? { destructive: true } : {}),
    ...(ctx.hookDecision?.rule ? { hook: ctx.hookDecision.rule } : {}),
    ...(def.preview ? { diff: previewOf(def, args, ctx) } : {}),
  };
}

/** The tool's preview as the request offers it: computed once, on first ask; a preview that fails is simply not shown. */
function previewOf<Schema extends z.ZodObject>(def: ToolDefinition<Schema>, args: z.infer<Schema>, ctx: ToolContext): () => Promise<string | undefined> {
  let diff: Promise<string | undefined> | undefined;
  return () => (diff ??= def.preview!(args, ctx).catch(() => undefined));
}

/** What "always" covers for a destructive call: nothing, it is asked again. */
const DESTRUCTIVE_SCOPE = 'nothing: the tool says it may destroy data, so it is asked every time';

/** What an "always" answer to this call would cover, as PermissionGate remembers it. */
function alwaysScope(category: PermissionCategory, command: string | undefined): string {
  switch (category) {
    case 'read':
      return 'all file reads';
    case 'write':
      return 'all file changes';
    case 'execute':
      return command !== undefined ? commandAlwaysScope(command) : 'all commands';
    case 'network':
      return 'all network access';
  }
}

interface UndoRecording {
  /** Set for commands: tells, after the call, which files changed. */
  watch?: CommandWatch;
  /** Why the call could not be recorded; the call runs all the same. */
  error?: string;
}

/**
 * State-changing calls are recorded for undo before they run: a write that
 * names its files keeps just those files; a command, or a write that names
 * none (an MCP tool), is watched over the whole workspace.
 */
export async function recordForUndo<Schema extends z.ZodObject>(
  def: ToolDefinition<Schema>,
  tool: Tool,
  args: z.infer<Schema>,
  ctx: ToolContext,
): Promise<UndoRecording> {
  if (!ctx.undo || (def.permission !== 'write' && def.permission !== 'execute')) return {};
  try {
    const files = def.permission === 'write' && def.locations ? await namedFiles(tool, args, ctx) : undefined;
    if (files) {
      await ctx.undo.beforeFileChanges(files, ctx.signal);
      return {};
    }
    return { watch: await ctx.undo.beforeCommand(ctx.signal) };
  } catch (err) {
    return { error: `recording for undo failed: ${errorText(err)}` };
  }
}

/** The workspace-relative files a write names, as they resolve (through symlinks inside the workspace). */
async function namedFiles(tool: Tool, args: unknown, ctx: ToolContext): Promise<string[]> {
  const paths = tool.locations(args).map((location) => location.path);
  const resolved = await Promise.all(paths.map((path) => ctx.workspace.resolve(path)));
  return resolved.map((path) => ctx.workspace.relative(path));
}

/** Commands change files behind our back: the watch tells which. */
export async function addChangedFiles(out: ToolOutput, watch: CommandWatch, ctx: ToolContext): Promise<void> {
  try {
    const changed = await watch.changedFiles(ctx.signal);
    out.filesModified = [...new Set([...(out.filesModified ?? []), ...changed])];
  } catch (err) {
    out.extra = { ...out.extra, undoError: `listing changed files failed: ${errorText(err)}` };
  }
}
