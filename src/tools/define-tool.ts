import { z } from 'zod';
import { errorText } from '../config/text';
import type { PermissionRequest } from './permissions';
import type { PermissionCategory } from '../config/permission-types';
import { commandAlwaysScope } from './command-rules';
import type { Tool, ToolContext, ToolKind, ToolLocation, ToolOutput, ToolResult } from './tool';

/** Default cap on what one tool call returns to the model, in characters. */
export const DEFAULT_MAX_OUTPUT_CHARS = 50_000;

/** How a call describes itself when a person must approve it. */
export interface ApprovalText {
  /** e.g. "Edit src/app.ts" or "Run: npm test". */
  title: string;
  /** The command line, for execute tools (allow-lists match on it). */
  command?: string;
  /** The command's working folder, relative to the workspace root, when not the root. */
  cwd?: string;
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
  parameters: Schema;
  /** Overrides DEFAULT_MAX_OUTPUT_CHARS for this tool. */
  maxOutputChars?: number;
  summarize?: (args: z.infer<Schema>) => string;
  locations?: (args: z.infer<Schema>) => ToolLocation[];
  /** Its commands run through workspace.exec, so in the workspace's sandbox when there is one. */
  sandboxed?: boolean;
  /** Approval wording; defaults to the tool name and its summary. */
  approval?: (args: z.infer<Schema>) => ApprovalText;
  /** The tool's own logic. Throwing is fine: the error becomes a result the model reads. */
  execute(args: z.infer<Schema>, ctx: ToolContext): Promise<ToolOutput>;
}

/**
 * Builds a Tool from a zod schema and its logic. Parsing, validation, the
 * permission check, the snapshot before a state change, output capping,
 * timing and turning failures into results all live here, so each tool file
 * holds only what the tool does.
 */
export function defineTool<Schema extends z.ZodObject>(def: ToolDefinition<Schema>): Tool {
  const inputSchema = z.toJSONSchema(def.parameters, { target: 'draft-7', io: 'input' }) as Record<string, unknown>;
  delete inputSchema.$schema;
  const maxOutputChars = def.maxOutputChars ?? DEFAULT_MAX_OUTPUT_CHARS;
  const summarize = (args: z.infer<Schema>): string => (def.summarize ? def.summarize(args) : summarizeJson(args));
  const safeArgs = (args: unknown): z.infer<Schema> | undefined => {
    const parsed = def.parameters.safeParse(args);
    return parsed.success ? parsed.data : undefined;
  };

  const tool: Tool = {
    name: def.name,
    description: def.description,
    kind: def.kind,
    permission: def.permission,
    ...(def.parallel ? { parallel: true } : {}),
    ...(def.readOnly ? { readOnly: true } : {}),
    inputSchema,
    summarize(args) {
      const parsed = safeArgs(args);
      return parsed ? summarize(parsed) : summarizeJson(args);
    },
    locations(args) {
      const parsed = safeArgs(args);
      return parsed && def.locations ? def.locations(parsed) : [];
    },
    async run(rawArguments, ctx) {
      const started = performance.now();
      const finish = (partial: Omit<ToolResult, 'metadata'>, out?: ToolOutput, snapshotBefore?: string): ToolResult => ({
        ...partial,
        output: capOutput(partial.output, maxOutputChars),
        ...(out?.images?.length ? { images: out.images } : {}),
        metadata: {
          filesModified: out?.filesModified ?? [],
          ...(snapshotBefore !== undefined ? { snapshotBefore } : {}),
          ...(out?.diff !== undefined ? { diff: out.diff } : {}),
          durationMs: Math.round(performance.now() - started),
          extra: out?.extra ?? {},
        },
      });

      const args = parseArguments(def.name, def.parameters, rawArguments);
      if (!args.ok) return finish({ status: 'error', output: '', error: args.error });
      if (ctx.signal.aborted) return finish({ status: 'cancelled', output: '', error: 'Cancelled before it started.' });

      if (def.permission !== 'none') {
        const request = approvalRequest(def, tool, args.value, def.permission, ctx, summarize);
        const verdict = await ctx.permissions.authorize(request, ctx.signal);
        if (ctx.signal.aborted) return finish({ status: 'cancelled', output: '', error: 'Cancelled while waiting for approval.' });
        if (!verdict.allowed) {
          return finish({ status: 'error', output: '', error: verdict.reason }, { output: '', extra: { permission: 'denied' } });
        }
      }

      const snapshot = await snapshotBefore(def.permission, ctx);
      try {
        const out = await def.execute(args.value, ctx);
        if (snapshot.id !== undefined && def.permission === 'execute') await addChangedFiles(out, snapshot.id, ctx);
        if (snapshot.error !== undefined) out.extra = { ...out.extra, snapshotError: snapshot.error };
        if (ctx.signal.aborted) {
          return finish({ status: 'cancelled', output: out.output, error: 'Cancelled by the user.' }, out, snapshot.id);
        }
        if (out.error !== undefined) return finish({ status: 'error', output: out.output, error: out.error }, out, snapshot.id);
        return finish({ status: 'success', output: out.output }, out, snapshot.id);
      } catch (err) {
        if (ctx.signal.aborted) return finish({ status: 'cancelled', output: '', error: 'Cancelled by the user.' }, undefined, snapshot.id);
        return finish({ status: 'error', output: '', error: errorText(err) }, undefined, snapshot.id);
      }
    },
  };
  return tool;
}

function approvalRequest<Schema extends z.ZodObject>(
  def: ToolDefinition<Schema>,
  tool: Tool,
  args: z.infer<Schema>,
  category: PermissionCategory,
  ctx: ToolContext,
  summarize: (args: z.infer<Schema>) => string,
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
    alwaysScope: alwaysScope(category, text.command),
  };
}

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

/** State-changing tools record the workspace first, so the change can be undone. */
async function snapshotBefore(
  permission: PermissionCategory | 'none',
  ctx: ToolContext,
): Promise<{ id?: string; error?: string }> {
  if (!ctx.snapshots || (permission !== 'write' && permission !== 'execute')) return {};
  try {
    return { id: await ctx.snapshots.track(ctx.signal) };
  } catch (err) {
    return { error: `snapshot before the call failed: ${errorText(err)}` };
  }
}

/** Commands change files behind our back: the snapshot tells which. */
async function addChangedFiles(out: ToolOutput, before: string, ctx: ToolContext): Promise<void> {
  try {
    const changes = await ctx.snapshots!.changes(before, undefined, ctx.signal);
    const files = new Set([...(out.filesModified ?? []), ...changes.map((change) => change.path)]);
    out.filesModified = [...files];
  } catch (err) {
    out.extra = { ...out.extra, snapshotError: `listing changed files failed: ${errorText(err)}` };
  }
}

type Parsed<T> = { ok: true; value: T } | { ok: false; error: string };

function parseArguments<Schema extends z.ZodObject>(
  tool: string,
  schema: Schema,
  raw: string,
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
  if (parsed.success) return { ok: true, value: parsed.data };
  const problems = parsed.error.issues.map((issue) => {
    const field = issue.path.length > 0 ? issue.path.join('.') : '(arguments)';
    return `${field}: ${issue.message}`;
  });
  return { ok: false, error: `Invalid arguments for ${tool}: ${problems.join('; ')}.` };
}

/** Keeps the head and tail of an over-long output with a note of what was cut. */
export function capOutput(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  const head = Math.floor(maxChars * 0.6);
  const tail = maxChars - head;
  const omitted = text.length - head - tail;
  return `${text.slice(0, head)}\n\n[… ${omitted} characters omitted …]\n\n${text.slice(text.length - tail)}`;
}

function summarizeJson(args: unknown): string {
  const text = JSON.stringify(args) ?? '';
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}
