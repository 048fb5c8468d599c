/**
 * What a session's MCP servers are started with, wherever they start: at a
 * prompt (PromptRun), or when the person types `/` or `@` and the composer
 * asks what the servers offer (composer-offers.ts). The servers outlive
 * either: what they report goes to the running prompt, else the door.
 */
import type { NoticeAction, NoticeLevel } from '../engine/events';
import type { ACPSession } from '../session/acp-session';
import { mcpRequestsOf } from './mcp-asking';
import type { SharedPromptState, ToolContext } from './prompt-shared';
import type { HostSessionOptions } from './session-options';

export interface McpTelling {
  /** Something the person should know from a server (a problem, a sign-in it needs), as a notice; `action` what the door may offer for it. */
  route(level: NoticeLevel, message: string, title?: string, action?: NoticeAction): void;
  /** Starting the servers takes a while: their names. */
  slow(names: string): void;
}

export function mcpToolContext(shared: SharedPromptState, options: HostSessionOptions, session: ACPSession, tell: McpTelling): ToolContext {
  const { workspace } = options;
  return {
    cwd: session.cwd,
    doorServers: options.mcpServers ?? [],
    report: (problem) =>
      problem.signIn
        ? tell.route('warning', problem.message, `MCP server "${problem.server}" needs you to sign in`, { kind: 'mcp_sign_in', server: problem.server })
        : tell.route('warning', problem.message, `MCP server "${problem.server}" has a problem`),
    requests: mcpRequestsOf(shared, options, session),
    slow: tell.slow,
    roots: () => workspace.folderPaths?.() ?? [workspace.root],
    span: (name, attributes) => session.trace.startTrace('mcp', name, { sessionId: session.id, attributes }),
    ...(options.mcpAuth ? { auth: options.mcpAuth } : {}),
  };
}
