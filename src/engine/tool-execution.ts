import type { ToolCallBlock } from '../llm/types';
import type { InternalSession } from '../session/internal-session';
import type { CallStops } from '../session/call-stops';
import type { CallAfterword, CallVerdict, Hooks } from '../tools/hooks';
import type { Tool, ToolContext, ToolResult, ToolStatus } from '../tools/tool';
import { toolRequestAttributes, toolResultAttributes } from '../telemetry/gen-ai';
import type { Span } from '../telemetry/span';
import type { Emit } from './model-call';
import type { ExecutedToolCall } from './turn';
import { argumentsForDisplay } from '../session/history';
import { errorText } from '../vocabulary/text';
import { ToolProgressFeed } from './tool-progress';

/** What a tool call needs from the agent that runs it. */
export interface ToolRunScope {
  agent: string;
  session: InternalSession;
  tools: ReadonlyMap<string, Tool>;
  /** Builds the context for one call, given the call's span. */
  context(callId: string, span: Span | undefined): ToolContext;
  emit: Emit;
  /** The turn's span; each call gets a child span. */
  span?: Span;
  /** Told just before a call of `tool` is announced and run (a checkpoint before what may change something). */
  checkpointBefore?(call: ToolCallBlock, tool: Tool): void;
  /** 0 for the agent the person talks to; subagents count up. */
  depth: number;
  /** The turn's signal: hooks stop with it. */
  signal: AbortSignal;
  /** The user's hooks: pre_tool_use before the permission check, post_tool_use after a call that succeeded. */
  hooks?: Hooks;
  /** Where a running call can be stopped on its own. */
  calls?: CallStops;
}

/**
 * Runs the call's pre_tool_use hooks, announces the call (with the
 * arguments a hook put in place of the model's), runs it unless a hook
 * denied it, runs its post_tool_use hooks, and records it. Never throws.
 */
export async function executeToolCall(scope: ToolRunScope, call: ToolCallBlock): Promise<ExecutedToolCall> {
  const span = scope.span?.child('tool', `execute_tool ${call.name}`, {
    agent: scope.agent,
    sessionId: scope.session.id,
    attributes: toolRequestAttributes(call.name, call.id, call.arguments),
  });
  const verdict = await preToolUse(scope, call, span);
  const effective = verdict?.run && verdict.arguments !== undefined ? { ...call, arguments: verdict.arguments } : call;
  if (effective !== call) span?.set({ ...toolRequestAttributes(call.name, call.id, effective.arguments), 'crow.tool.model_arguments': call.arguments });
  const args = argumentsForDisplay(effective.arguments);
  const tool = announce(scope, effective, args, verdict?.run !== false);
  const started = performance.now();
  let result =
    verdict?.run === false
      ? failure(verdict.cancelled ? 'cancelled' : 'error', verdict.reason, 0, { hook: 'pre_tool_use' })
      : tool
        ? await runReporting(scope, tool, effective, span, verdict)
        : failure('error', `Unknown tool "${call.name}". Available tools: ${[...scope.tools.keys()].join(', ')}.`, 0);
  const durationMs = Math.round(performance.now() - started);
  const after = verdict?.run !== false && result.status === 'success' ? await postToolUse(scope, effective, result, span) : undefined;
  result = withNotes(result, [...(verdict?.run ? verdict.notes : []), ...(after?.notes ?? [])]);
  span?.set(toolResultAttributes(result));
  // A command that failed is an error span though the call worked: the traces count it and Next error finds it.
  if (result.status !== 'success') span?.end(result.status, result.error);
  else if (result.metadata.failedWork !== undefined) span?.end('error', result.metadata.failedWork);
  else span?.end('ok');
  const executed = finalize(scope, effective, args, result, durationMs);
  const hookStop = verdict?.run === false ? verdict.stop : after?.stop;
  return hookStop !== undefined ? { ...executed, hookStop } : executed;
}

/** The verdict of the call's pre_tool_use hooks; none when no hook listens or the call names no tool or no arguments object. */
async function preToolUse(scope: ToolRunScope, call: ToolCallBlock, span: Span | undefined): Promise<CallVerdict | undefined> {
  const args = scope.hooks?.has('pre_tool_use') && scope.tools.has(call.name) ? argumentsObject(call.arguments) : undefined;
  if (!args) return undefined;
  return scope.hooks!.beforeCall({ agent: scope.agent, depth: scope.depth, callId: call.id, tool: call.name, arguments: args }, scope.signal, span);
}

/**
 * Records a call that will not run (after a cancel, a doom loop or
 * task_complete) so that it still gets exactly one result.
 */
export function skipToolCall(
  scope: ToolRunScope,
  call: ToolCallBlock,
  status: Exclude<ToolStatus, 'success'>,
  reason: string,
): ExecutedToolCall {
  const args = argumentsForDisplay(call.arguments);
  announce(scope, call, args, false);
  return finalize(scope, call, args, failure(status, reason, 0), 0);
}

/** Emits the call's start; `running`: it is about to run (a call recorded as not run gets no checkpoint). */
function announce(scope: ToolRunScope, call: ToolCallBlock, args: unknown, running = true): Tool | undefined {
  const tool = scope.tools.get(call.name);
  if (tool && running) scope.checkpointBefore?.(call, tool);
  scope.emit({
    type: 'tool_call_start',
    agent: scope.agent,
    callId: call.id,
    tool: call.name,
    kind: tool?.kind ?? 'other',
    arguments: args,
    summary: tool ? tool.summarize(args) : call.arguments.slice(0, 80),
    locations: tool ? tool.locations(args) : [],
  });
  return tool;
}

/** The post_tool_use hooks of a call that succeeded. */
async function postToolUse(scope: ToolRunScope, call: ToolCallBlock, result: ToolResult, span: Span | undefined): Promise<CallAfterword | undefined> {
  const args = scope.hooks?.has('post_tool_use') ? argumentsObject(call.arguments) : undefined;
  if (!args) return undefined;
  const hooked = { agent: scope.agent, depth: scope.depth, callId: call.id, tool: call.name, arguments: args };
  return scope.hooks!.afterCall(hooked, { output: result.output, filesModified: result.metadata.filesModified }, scope.signal, span);
}

/** Runs the call with a progress feed whose updates become tool_progress events, none after the call ended. */
async function runReporting(scope: ToolRunScope, tool: Tool, call: ToolCallBlock, span: Span | undefined, verdict: CallVerdict | undefined): Promise<ToolResult> {
  const progress = new ToolProgressFeed((update) => scope.emit({ type: 'tool_progress', agent: scope.agent, callId: call.id, tool: call.name, ...update }));
  const hookDecision = verdict?.run ? { ...(verdict.rule ? { rule: verdict.rule } : {}), ...(verdict.rewrittenBy !== undefined ? { rewrittenBy: verdict.rewrittenBy } : {}) } : {};
  const context = scope.context(call.id, span);
  const running = scope.calls?.start(call.id, context.signal);
  try {
    const result = await runGuarded(tool, call, {
      ...context,
      ...(running ? { signal: running.signal } : {}),
      progress,
      ...(Object.keys(hookDecision).length > 0 ? { hookDecision } : {}),
    });
    return running?.stopped() ? stoppedByPerson(result) : result;
  } finally {
    running?.release();
    progress.close();
  }
}

/** A call the person stopped while it ran (the prompt goes on): an error the model reads, with what it printed so far. */
function stoppedByPerson(result: ToolResult): ToolResult {
  return {
    ...result,
    status: 'error',
    error: 'The person stopped this call while it ran (its output so far is kept). Do not run it again unless they ask; say what you will do instead.',
  };
}

async function runGuarded(tool: Tool, call: ToolCallBlock, ctx: ToolContext): Promise<ToolResult> {
  const started = performance.now();
  try {
    return await tool.run(call.arguments, ctx);
  } catch (err) {
    const message = errorText(err);
    const status = ctx.signal.aborted ? 'cancelled' : 'error';
    return failure(status, `${call.name} crashed: ${message}`, Math.round(performance.now() - started));
  }
}

function finalize(
  scope: ToolRunScope,
  call: ToolCallBlock,
  args: unknown,
  result: ToolResult,
  durationMs: number,
): ExecutedToolCall {
  scope.session.append({
    kind: 'tool_result',
    callId: call.id,
    name: call.name,
    status: result.status,
    output: result.output,
    ...(result.error !== undefined ? { error: result.error } : {}),
    ...(result.images?.length ? { images: result.images } : {}),
    metadata: result.metadata,
    at: Date.now(),
  });
  scope.emit({ type: 'tool_call_end', agent: scope.agent, callId: call.id, tool: call.name, result, durationMs });
  if (result.metadata.filesModified.length > 0) {
    scope.emit({ type: 'files_changed', agent: scope.agent, files: result.metadata.filesModified });
  }
  return { id: call.id, name: call.name, arguments: args, result, durationMs };
}

function failure(status: Exclude<ToolStatus, 'success'>, error: string, durationMs: number, extra: Record<string, unknown> = {}): ToolResult {
  return { status, output: '', error, metadata: { filesModified: [], durationMs, extra } };
}

/** The result with what hooks said for the model after its output. */
function withNotes(result: ToolResult, notes: string[]): ToolResult {
  if (notes.length === 0) return result;
  const output = result.output === '' ? notes.join('\n') : `${result.output}${result.output.endsWith('\n') ? '' : '\n'}\n${notes.join('\n')}`;
  return { ...result, output };
}

/** The call's arguments as a JSON object, or undefined when they are not one (the tool refuses them anyway). */
function argumentsObject(raw: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = raw.trim() === '' ? {} : JSON.parse(raw);
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
