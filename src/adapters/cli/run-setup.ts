import { randomUUID } from 'node:crypto';
import type { ACPAgent } from '../../agents/acp-agent';
import { assembleAgent, defaultAgentName } from '../../agents/assemble';
import { SubagentRunner } from '../../agents/subagent-runner';
import { AgentRegistry } from '../../config/agent-registry';
import { formatProblem } from '../../config/config-problems';
import { dataHome } from '../../config/paths';
import { parseCategories, policyFromConfig } from '../../config/permission-config';
import { PromptRegistry } from '../../config/prompts';
import { resolveSettings, type ConfigOverrides, type Settings } from '../../config/provider-config';
import { SlashCommands } from '../../config/slash-commands';
import { ACPSession } from '../../session/acp-session';
import { SessionStore } from '../../session/session-store';
import { NodeWorkspace } from '../../tools/node-workspace';
import { noticeOnce, sandboxSetup } from '../../tools/sandbox-setup';
import { PermissionGate, type PermissionRule } from '../../tools/permissions';
import { otlpEndpointFrom } from '../../telemetry/otlp-endpoint';
import { builtinTools } from '../../tools/registry';
import { McpServers } from '../../mcp/mcp-servers';
import { serversFromSettings } from '../../mcp/server-config';
import { terminalAsk } from './cli-approval';
import type { CliIO } from './cli-io';
import { styleFor } from './terminal-style';
import { prepareUndo } from './undo-setup';

export interface RunChoices {
  root: string;
  prompt: string;
  overrides: ConfigOverrides;
  agent?: string;
  /** Continue this stored session; 'latest' for the newest one of the folder. */
  session?: string;
  allow?: string;
  maxIterations?: number;
  undo: boolean;
  interactive: boolean;
}

export interface PreparedRun {
  agent: ACPAgent;
  session: ACPSession;
  prompt: string;
  /** Stops storing the session and sends the last spans to the OTLP endpoint, if any. */
  close(): Promise<void>;
}

/**
 * Everything a `crow run` needs, from flags to a running composition: the
 * settings, the agent (by --agent, a slash command, the resumed session or
 * default_agent), the session (new, or loaded from the store), its permission
 * gate, undo snapshots and storage, and the tools of the configured MCP servers.
 */
export async function prepareRun(choices: RunChoices, io: CliIO, signal: AbortSignal): Promise<PreparedRun> {
  const { root } = choices;
  const settings = resolveSettings(root, choices.overrides, io.env);
  if (choices.maxIterations !== undefined) settings.maxIterations = choices.maxIterations;
  const { registry, errors } = AgentRegistry.load(root, io.env);
  for (const error of errors) io.stderr.write(`crow: warning: ${formatProblem(error)} (this definition is skipped)\n`);
  const store = new SessionStore({ dataHome: dataHome(io.env), warn: (w) => io.stderr.write(`crow: warning: ${w}\n`) });
  const stored = choices.session !== undefined ? storedSessionId(store, choices.session, root) : undefined;

  let agentName = choices.agent ?? (stored ? store.meta(stored).agentName : undefined) ?? defaultAgentName(settings);
  let prompt = choices.prompt;
  if (prompt.trimStart().startsWith('/')) {
    const expanded = SlashCommands.load(root, io.env).commands.expand(prompt.trim(), { workspaceRoot: root, agentName });
    prompt = expanded.prompt;
    if (choices.agent === undefined && expanded.agent !== undefined) agentName = expanded.agent;
  }

  const sandbox = sandboxSetup(settings, io.env, choices.allow !== undefined && parseCategories(choices.allow, '--allow').includes('network'));
  if (noticeOnce(sandbox)) io.stderr.write(`crow: ${sandbox.notice}\n`);
  const workspace = new NodeWorkspace(root, { sandbox: sandbox.options });
  const prompts = PromptRegistry.forWorkspace(root, io.env);
  const mcp = mcpServers(settings, root, io);
  return closingOnFailure(mcp, async () => {
    const tools = [...builtinTools(settings.webSearch ? { webSearch: settings.webSearch } : {}), ...(await mcp.tools())];
    const agent = assembleAgent(agentName, { registry, config: settings, workspace, prompts, env: io.env, tools });
    const sessionId = stored ?? randomUUID();
    const snapshots = choices.undo ? await prepareUndo(root, sessionId, prompt, io, signal) : undefined;
    const permissions = permissionGate(settings, choices, io, sandbox.active);
    const dependencies = { permissions, ...(snapshots ? { snapshots } : {}) };
    const session = stored
      ? store.load(stored, dependencies)
      : new ACPSession({ id: sessionId, cwd: root, agentName, ...dependencies });
    if (!session.title) session.title = titleOf(choices.prompt);
    session.subagents = new SubagentRunner({ registry, settings, workspace, prompts, env: io.env, tools, store });
    const handle = store.attach(session);
    const exporter = await startOtlpExport(settings, session, io);
    return {
      agent,
      session,
      prompt,
      close: async () => {
        handle.close();
        await mcp.close();
        await exporter?.shutdown();
      },
    };
  });
}

/** The MCP servers of config.toml for this run; their problems are warnings on stderr. */
function mcpServers(settings: Settings, root: string, io: CliIO): McpServers {
  return new McpServers(serversFromSettings(settings.mcpServers, io.env), {
    cwd: root,
    report: (problem) => io.stderr.write(`crow: warning: ${problem.message}\n`),
  });
}

/** Runs `prepare`, closing the MCP servers if it fails: their processes would keep crow running. */
async function closingOnFailure<T>(mcp: McpServers, prepare: () => Promise<T>): Promise<T> {
  try {
    return await prepare();
  } catch (err) {
    await mcp.close();
    throw err;
  }
}

/** Exports the session's spans over OTLP/HTTP when an endpoint is configured; the exporter loads only then. */
async function startOtlpExport(settings: Settings, session: ACPSession, io: CliIO): Promise<{ shutdown(): Promise<void> } | undefined> {
  const endpoint = otlpEndpointFrom(settings.otlpEndpoint, io.env);
  if (!endpoint) return undefined;
  const { otlpSink } = await import('../../telemetry/otlp-export.js');
  const exported = otlpSink({ endpoint, onError: (error: Error) => io.stderr.write(`crow: warning: ${error.message}\n`) });
  session.trace.addSink(exported.sink);
  return exported;
}

function permissionGate(settings: Settings, choices: RunChoices, io: CliIO, sandboxed: boolean): PermissionGate {
  const forced: Partial<Record<string, PermissionRule>> = {};
  if (choices.allow !== undefined) for (const category of parseCategories(choices.allow, '--allow')) forced[category] = 'allow';
  return new PermissionGate(
    policyFromConfig(settings.permissions, sandboxed),
    choices.interactive ? terminalAsk(io, styleFor(io.stderr, io.env)) : undefined,
    (category) => `pass --allow ${category} (or set permissions.${category} = "allow" in .crow/config.toml)`,
    forced,
  );
}

function storedSessionId(store: SessionStore, choice: string, root: string): string {
  if (choice !== 'latest') return store.meta(choice).id;
  const [latest] = store.list({ cwd: root });
  if (!latest) throw new Error(`No earlier session in ${root} to continue. Start one with: crow run "..."`);
  return latest.id;
}

function titleOf(prompt: string): string {
  const line = prompt.trim().split('\n', 1)[0] ?? '';
  return line.length > 80 ? `${line.slice(0, 77)}...` : line;
}
