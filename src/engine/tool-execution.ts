import type { ToolCallBlock } from '../llm/types';
import type { InternalSession } from '../session/internal-session';
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
  beforeCall?(call: ToolCallBlock, tool: Tool): void;
}

/** Announces, runs and records one tool call. Never throws. */
export async function executeToolCall(scope: ToolRunScope, call: ToolCallBlock): Promise<ExecutedToolCall> {
  const args = argumentsForDisplay(call.arguments);
  const tool = announce(scope, call, args);
  const span = scope.span?.child('tool', `execute_tool ${call.name}`, {
    agent: scope.agent,
    sessionId: scope.session.id,
    attributes: toolRequestAttributes(call.name, call.id, call.arguments),
  });
  const started = performance.now();
  const result = tool
    ? await runReporting(scope, tool, call, span)
    : failure('error', `Unknown tool "${call.name}". Available tools: ${[...scope.tools.keys()].join(', ')}.`, 0);
  span?.set(toolResultAttributes(result));
  span?.end(result.status === 'success' ? 'ok' : result.status, result.error);
  return finalize(scope, call, args, result, Math.round(performance.now() - started));
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
  if (tool && running) scope.beforeCall?.(call, tool);
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

/** Runs the call with a progress feed whose updates become tool_progress events, none after the call ended. */
async function runReporting(scope: ToolRunScope, tool: Tool, call: ToolCallBlock, span: Span | undefined): Promise<ToolResult> {
  const progress = new ToolProgressFeed((update) => scope.emit({ type: 'tool_progress', agent: scope.agent, callId: call.id, tool: call.name, ...update }));
  try {
    return await runGuarded(tool, call, { ...scope.context(call.id, span), progress });
  } finally {
    progress.close();
  }
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

function failure(status: Exclude<ToolStatus, 'success'>, error: string, durationMs: number): ToolResult {
  return { status, output: '', error, metadata: { filesModified: [], durationMs, extra: {} } };
}
