/**
 * One call of a tool built by defineTool, as a pipeline of named steps.
 * Read `run` top to bottom to follow a call:
 *
 *   parse      the model's JSON checked against the tool's parameters
 *   refuse     a command that could not run whatever the answer (no sandbox
 *              and commands off) is refused before anyone is asked
 *   authorize  the permission gate: rules, hooks, or a person, who may edit
 *              the arguments (then checked again and confirmed)
 *   record     what the call may change, kept for undo before it runs
 *   execute    the tool's own logic, its progress followed from here
 *   finish     the result the model reads: output capped (the whole kept
 *              on disk), notes added, timing and metadata
 *
 * A step that ends the call returns its result; the next step starts only
 * when the one before let the call go on.
 */
import type * as z from 'zod';
import { errorText } from '../vocabulary/text';
import type { PermissionAnswer } from './permissions';
import type { ToolContext, ToolOutput, ToolResult } from './tool';
import { CallOutput, type KeptOutput } from './call-output';
import type { CallableTool } from './tool-definition';
import { addChangedFiles, approvalRequest, editableArguments, parseArguments, recordForUndo } from './tool-call-steps';
import { capOutput, withEditedNote, withNote } from './tool-output-notes';

type Step<T> = { go: T } | { stop: ToolResult };

export class ToolCall<Schema extends z.ZodObject> {
  private readonly started = performance.now();
  /** Time a person took to answer: theirs, not the tool's. */
  private waited = 0;
  private approval: PermissionAnswer | undefined;
  /** The arguments the person allowed the call with instead of the model's, when they edited them. */
  private edited: Record<string, unknown> | undefined;

  constructor(
    private readonly callable: CallableTool<Schema>,
    private readonly ctx: ToolContext,
  ) {}

  async run(rawArguments: string): Promise<ToolResult> {
    const parsed = this.parse(rawArguments);
    if ('stop' in parsed) return parsed.stop;
    const runnable = this.refuse();
    if ('stop' in runnable) return runnable.stop;
    const allowed = await this.authorize(parsed.go);
    if ('stop' in allowed) return allowed.stop;
    return this.execute(allowed.go.value, allowed.go.coveredByEntries);
  }

  private parse(rawArguments: string): Step<{ value: z.infer<Schema>; json: unknown }> {
    const { def, parameters } = this.callable;
    const args = parseArguments(def.name, parameters(), rawArguments, this.ctx.hookDecision?.rewrittenBy);
    if (!args.ok) return { stop: this.finish({ status: 'error', output: '', error: args.error }) };
    if (this.ctx.signal.aborted) return { stop: this.finish({ status: 'cancelled', output: '', error: 'Cancelled before it started.' }) };
    return { go: { value: args.value, json: args.json } };
  }

  private refuse(): Step<undefined> {
    const refused = this.callable.def.sandboxed ? this.ctx.workspace.commandsRefused : undefined;
    return refused === undefined ? { go: undefined } : { stop: this.finish({ status: 'error', output: '', error: refused }) };
  }

  private async authorize(args: { value: z.infer<Schema>; json: unknown }): Promise<Step<{ value: z.infer<Schema>; coveredByEntries: boolean }>> {
    const { def, parameters, schema } = this.callable;
    const { ctx } = this;
    if (def.permission === 'none') return { go: { value: args.value, coveredByEntries: false } };
    let value = args.value;
    const request = { ...approvalRequest(this.callable, value, def.permission, ctx), editable: editableArguments(parameters(), schema(), args.json) };
    const asking = performance.now();
    let verdict = await ctx.permissions.authorize(request, ctx.signal);
    if (verdict.allowed && verdict.modified) {
      const changed = parameters().safeParse(verdict.modified);
      if (!changed.success) return { stop: this.finish({ status: 'error', output: '', error: `Not run: the edited arguments do not fit ${def.name}'s parameters.` }) };
      this.edited = verdict.modified;
      value = changed.data;
      verdict = await ctx.permissions.confirmEdited(request, approvalRequest(this.callable, value, def.permission, ctx), ctx.signal);
    }
    if (verdict.allowed && verdict.how === 'user') this.waited = performance.now() - asking;
    if (ctx.signal.aborted) return { stop: this.finish({ status: 'cancelled', output: '', error: 'Cancelled while waiting for approval.' }) };
    this.approval = verdict.answer;
    if (!verdict.allowed) return { stop: this.finish({ status: 'error', output: '', error: verdict.reason }, { output: '', extra: { permission: 'denied' } }) };
    return { go: { value, coveredByEntries: verdict.coveredByEntries === true } };
  }

  private async execute(value: z.infer<Schema>, coveredByEntries: boolean): Promise<ToolResult> {
    const { def, tool, maxOutputChars } = this.callable;
    const { ctx } = this;
    const undo = await recordForUndo(def, tool, value, ctx);
    // The call's own work starts now, once approved: its progress and its whole output are followed from here.
    const output = new CallOutput(ctx, def.name);
    try {
      const begun = output.begin();
      const out = await def.execute(value, coveredByEntries ? { ...begun, coveredByEntries } : begun);
      if (undo.watch) await addChangedFiles(out, undo.watch, ctx);
      if (undo.error !== undefined) out.extra = { ...out.extra, undoError: undo.error };
      const kept = await output.keep(out, maxOutputChars);
      if (ctx.signal.aborted) return this.finish({ status: 'cancelled', output: out.output, error: 'Cancelled by the user.' }, out, kept);
      if (out.error !== undefined) return this.finish({ status: 'error', output: out.output, error: out.error }, out, kept);
      return this.finish({ status: 'success', output: out.output }, out, kept);
    } catch (err) {
      await output.keep(undefined, maxOutputChars);
      if (ctx.signal.aborted) return this.finish({ status: 'cancelled', output: '', error: 'Cancelled by the user.' });
      return this.finish({ status: 'error', output: '', error: errorText(err) });
    } finally {
      // A watch ends even when the call threw: what it changed before failing is still undoable (a second call only repeats the answer).
      await undo.watch?.changedFiles(ctx.signal).catch(() => undefined);
    }
  }

  private finish(partial: Omit<ToolResult, 'metadata'>, out?: ToolOutput, kept: KeptOutput = {}): ToolResult {
    const { edited, approval, waited } = this;
    return {
      ...partial,
      output: withEditedNote(withNote(capOutput(partial.output, this.callable.maxOutputChars), kept), edited),
      ...(out?.images?.length ? { images: out.images } : {}),
      metadata: {
        filesModified: out?.filesModified ?? [],
        ...(out?.diff !== undefined ? { diff: out.diff } : {}),
        durationMs: Math.round(performance.now() - this.started - waited - (out?.setupMs ?? 0)),
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
    };
  }
}
