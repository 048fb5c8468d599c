import * as z from 'zod';
import { errorText } from '../vocabulary/text';
import type { EditableArguments, PermissionAnswer, PermissionRequest } from './permissions';
import type { PermissionCategory } from '../vocabulary/permission-types';
import { commandAlwaysScope } from './command-rules';
import type { Tool, ToolContext, ToolKind, ToolLocation, ToolOutput, ToolResult } from './tool';
import { CallOutput, type KeptOutput, savedNote } from './call-output';
import type { CommandWatch } from './undo-recorder';
import { builtinToolSchema } from '../config/builtin-snapshot';
import { onFirstUse } from '../vocabulary/first-use';

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
  /** The tool's own logic. Throwing is fine: the error becomes a result the model reads. */
  execute(args: z.infer<Schema>, ctx: ToolContext): Promise<ToolOutput>;
}

/**
 * Builds a Tool from a zod schema and its logic. Parsing, validation, the
 * permission check, the snapshot before a state change, output capping (the
 * whole output saved when the model gets less of it), the start of progress,
 * timing and turning failures into results all live here, so each tool file
 * holds only what the tool does.
 */
export function defineTool<Schema extends z.ZodObject>(def: ToolDefinition<Schema>): Tool {
  const { parameters: given } = def;
  const parameters = typeof given === 'function' ? onFirstUse(given) : () => given;
  // Derived on first use: a run sends only its agent's tools, and deriving every tool's schema at load slowed start-up.
  const schema = onFirstUse(() => builtinToolSchema(__dirname, def.name, def.description) ?? jsonSchemaOf(parameters()));
  const maxOutputChars = def.maxOutputChars ?? DEFAULT_MAX_OUTPUT_CHARS;
  const summarize = (args: z.infer<Schema>): string => (def.summarize ? def.summarize(args) : summarizeJson(args));
  const safeArgs = (args: unknown): z.infer<Schema> | undefined => {
    const parsed = parameters().safeParse(args);
    return parsed.success ? parsed.data : undefined;
  };

  const tool: Tool = {
    name: def.name,
    description: def.description,
    kind: def.kind,
    permission: def.permission,
    ...(def.parallel ? { parallel: true } : {}),
    ...(def.readOnly ? { readOnly: true } : {}),
    get inputSchema() {
      return schema();
    },
    summarize(args) {
      const parsed = safeArgs(args);
      return parsed ? summarize(parsed) : summarizeJson(args);
    },
    locations(args) {
      const parsed = safeArgs(args);
      return parsed && def.locations ? def.locations(parsed) : [];
    },
    prepare() {
      // Builds the schema, and a first parse compiles zod's object parser: the few ms a process's first call would spend.
      parameters().safeParse({});
    },
    async run(rawArguments, ctx) {
      const started = performance.now();
      let waited = 0;
      let approval: PermissionAnswer | undefined;
      /** The arguments the person allowed the call with instead of the model's, when they edited them. */
      let edited: Record<string, unknown> | undefined;
      const finish = (partial: Omit<ToolResult, 'metadata'>, out?: ToolOutput, kept: KeptOutput = {}): ToolResult => ({
        ...partial,
        output: withEditedNote(withNote(capOutput(partial.output, maxOutputChars), kept), edited),
        ...(out?.images?.length ? { images: out.images } : {}),
        metadata: {
          filesModified: out?.filesModified ?? [],
          ...(out?.diff !== undefined ? { diff: out.diff } : {}),
          durationMs: Math.round(performance.now() - started - waited - (out?.setupMs ?? 0)),
          ...(waited > 0 ? { waitedMs: Math.round(waited) } : {}),
          ...(out?.setupMs !== undefined ? { setupMs: Math.round(out.setupMs) } : {}),
          ...(approval !== undefined ? { approval } : {}),
          ...(out?.failedWork !== undefined ? { failedWork: out.failedWork } : {}),
          extra: {
            ...out?.extra,
            ...(edited ? { editedArguments: edited } : {}),
            ...(kept.saved ? { savedOutput: kept.saved.path } : {}),
            ...(kept.error !== undefined ? { savedOutputError: kept.error } : {}),
          },
        },
      });

      const args = parseArguments(def.name, parameters(), rawArguments, ctx.hookDecision?.rewrittenBy);
      if (!args.ok) return finish({ status: 'error', output: '', error: args.error });
      if (ctx.signal.aborted) return finish({ status: 'cancelled', output: '', error: 'Cancelled before it started.' });

      // A command that could not run whatever the answer is refused before anyone is asked, with the fix that works.
      const refused = def.sandboxed ? ctx.workspace.commandsRefused : undefined;
      if (refused !== undefined) return finish({ status: 'error', output: '', error: refused });

      let value = args.value;
      let coveredByEntries = false;
      if (def.permission !== 'none') {
        const request = {
          ...approvalRequest(def, tool, value, def.permission, ctx, summarize),
          editable: editableArguments(parameters(), schema(), args.json),
        };
        const asking = performance.now();
        let verdict = await ctx.permissions.authorize(request, ctx.signal);
        if (verdict.allowed && verdict.modified) {
          const changed = parameters().safeParse(verdict.modified);
          if (!changed.success) return finish({ status: 'error', output: '', error: `Not run: the edited arguments do not fit ${def.name}'s parameters.` });
          edited = verdict.modified;
          value = changed.data;
          verdict = await ctx.permissions.confirmEdited(request, approvalRequest(def, tool, value, def.permission, ctx, summarize), ctx.signal);
        }
        // Time a person took to answer is theirs, not the tool's.
        if (verdict.allowed && verdict.how === 'user') waited = performance.now() - asking;
        if (ctx.signal.aborted) return finish({ status: 'cancelled', output: '', error: 'Cancelled while waiting for approval.' });
        approval = verdict.answer;
        if (!verdict.allowed) {
          return finish({ status: 'error', output: '', error: verdict.reason }, { output: '', extra: { permission: 'denied' } });
        }
        coveredByEntries = verdict.coveredByEntries === true;
      }

      const undo = await recordForUndo(def, tool, value, ctx);
      // The call's own work starts now, once approved: its progress and its whole output are followed from here.
      const output = new CallOutput(ctx, def.name);
      try {
        const begun = output.begin();
        const out = await def.execute(value, coveredByEntries ? { ...begun, coveredByEntries } : begun);
        if (undo.watch) await addChangedFiles(out, undo.watch, ctx);
        if (undo.error !== undefined) out.extra = { ...out.extra, undoError: undo.error };
        const kept = await output.keep(out, maxOutputChars);
        if (ctx.signal.aborted) return finish({ status: 'cancelled', output: out.output, error: 'Cancelled by the user.' }, out, kept);
        if (out.error !== undefined) return finish({ status: 'error', output: out.output, error: out.error }, out, kept);
        return finish({ status: 'success', output: out.output }, out, kept);
      } catch (err) {
        await output.keep(undefined, maxOutputChars);
        if (ctx.signal.aborted) return finish({ status: 'cancelled', output: '', error: 'Cancelled by the user.' });
        return finish({ status: 'error', output: '', error: errorText(err) });
      } finally {
        // A watch ends even when the call threw: what it changed before failing is still undoable (a second call only repeats the answer).
        await undo.watch?.changedFiles(ctx.signal).catch(() => undefined);
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
async function recordForUndo<Schema extends z.ZodObject>(
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
async function addChangedFiles(out: ToolOutput, watch: CommandWatch, ctx: ToolContext): Promise<void> {
  try {
    const changed = await watch.changedFiles(ctx.signal);
    out.filesModified = [...new Set([...(out.filesModified ?? []), ...changed])];
  } catch (err) {
    out.extra = { ...out.extra, undoError: `listing changed files failed: ${errorText(err)}` };
  }
}

/** The JSON Schema the model is given for a tool's parameters (draft 7, as the arguments come in). */
function jsonSchemaOf(parameters: z.ZodObject): Record<string, unknown> {
  const schema = z.toJSONSchema(parameters, { target: 'draft-7', io: 'input' }) as Record<string, unknown>;
  delete schema.$schema;
  return schema;
}

type Parsed<T> = { ok: true; value: T; json: unknown } | { ok: false; error: string };

/** The model's arguments as a person may edit them, checked against the tool's parameters. */
function editableArguments(schema: z.ZodObject, jsonSchema: Record<string, unknown>, json: unknown): EditableArguments {
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

/**
 * The output of a call a person edited, ending with what the model must
 * know: it ran, but not as sent. Last, so that doors summing a result up by
 * its first line still show the tool's own words.
 */
function withEditedNote(output: string, edited: Record<string, unknown> | undefined): string {
  if (!edited) return output;
  const note = `[The user edited this call's arguments before allowing it. It ran with: ${JSON.stringify(edited, shortStrings)}]`;
  return output === '' || output.endsWith('\n') ? `${output}${note}` : `${output}\n${note}`;
}

/** Longer strings of edited arguments (a whole file's content) are not repeated to the model in full. */
const NOTED_CHARS = 2_000;

function shortStrings(_key: string, value: unknown): unknown {
  return typeof value === 'string' && value.length > NOTED_CHARS ? `${value.slice(0, NOTED_CHARS)}[… ${value.length - NOTED_CHARS} more characters the user wrote, not repeated here]` : value;
}

function issues(error: z.ZodError): string[] {
  return error.issues.map((issue) => {
    const field = issue.path.length > 0 ? issue.path.join('.') : '(arguments)';
    return `${field}: ${issue.message}`;
  });
}

/** The arguments as the tool takes them; `rewrittenBy` names the hook whose arguments they are, for the error when they do not fit. */
function parseArguments<Schema extends z.ZodObject>(
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

/** Keeps the head and tail of an over-long output with a note of what was cut. */
export function capOutput(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  const head = Math.floor(maxChars * 0.6);
  const tail = maxChars - head;
  const omitted = text.length - head - tail;
  return `${text.slice(0, head)}\n\n[… ${omitted} characters omitted …]\n\n${text.slice(text.length - tail)}`;
}

/** The output with, last, where its whole is saved (or why it could not be). */
function withNote(output: string, kept: KeptOutput): string {
  const note = kept.saved ? savedNote(kept.saved) : kept.error !== undefined ? `[The whole output could not be saved: ${kept.error}]` : '';
  if (note === '') return output;
  return output === '' || output.endsWith('\n') ? `${output}${note}` : `${output}\n${note}`;
}

function summarizeJson(args: unknown): string {
  const text = JSON.stringify(args) ?? '';
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}
