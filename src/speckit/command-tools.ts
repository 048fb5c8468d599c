/**
 * Tool calls a /speckit.* command makes itself, as the agent "speckit":
 * the context a tool (or a subagent launched for a task) runs under in the
 * command's session, and one call of a tool with its tool_call_start and
 * tool_call_end, so a front door shows it as any agent's call. Whatever the
 * call does goes through the tool's own permission check and sandbox.
 */
import { randomUUID } from 'node:crypto';
import type { Span } from '../telemetry/span';
import type { SubagentLauncher, Tool, ToolContext, ToolResult } from '../tools/tool';
import { type CommandRun, SPECKIT_AGENT } from './command-run';

/** The context of a call the command makes in its session; `subagents` for task calls. */
export function commandToolContext(run: CommandRun, callId: string, extra: { span?: Span; subagents?: SubagentLauncher } = {}): ToolContext {
  const { input } = run;
  const { session, agent } = input;
  return {
    sessionId: session.id,
    agentName: SPECKIT_AGENT,
    callId,
    workspace: input.workspace,
    signal: input.signal,
    provider: agent.primary.provider.name,
    model: agent.primary.provider.model,
    supportsImages: agent.primary.provider.supportsImages,
    permissions: session.permissions,
    todos: session.todos,
    ...(session.undo ? { undo: session.undo } : {}),
    ...(extra.span ? { span: extra.span } : {}),
    ...(extra.subagents ? { subagents: extra.subagents } : {}),
    depth: session.depth,
    report: (event) => run.emit(event),
  };
}

/** Runs one call of `tool` with `args`, shown like an agent's call. */
export async function callTool(run: CommandRun, tool: Tool, args: Record<string, unknown>): Promise<ToolResult> {
  const callId = `speckit-${tool.name}-${randomUUID().slice(0, 8)}`;
  const started = performance.now();
  run.emit({ type: 'tool_call_start', agent: SPECKIT_AGENT, callId, tool: tool.name, kind: tool.kind, arguments: args, summary: tool.summarize(args), locations: tool.locations(args) });
  const result = await tool.run(JSON.stringify(args), commandToolContext(run, callId));
  run.emit({ type: 'tool_call_end', agent: SPECKIT_AGENT, callId, tool: tool.name, result, durationMs: Math.round(performance.now() - started) });
  return result;
}
