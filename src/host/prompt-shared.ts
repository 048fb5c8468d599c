/**
 * What the prompts of one session share, built once and reused while
 * nothing it depends on changed: the MCP servers and their tools, the
 * composition of agents, and the span export. Each prompt asks for them
 * through PromptRun's preparation.
 */
import type { ACPAgent } from '../agents/acp-agent';
import type { AgentEvent, NoticeAction, NoticeLevel } from '../engine/events';
import type { McpSpanStart } from '../mcp/client-features';
import type { McpClientRequests } from '../mcp/client-requests';
import type { McpAuth, McpProblem } from '../mcp/mcp-connection';
import { McpServers } from '../mcp/mcp-servers';
import { expandMcpPrompt, offeredPromptCommands, type OfferedCommand, type PromptArgumentAsk } from '../mcp/prompt-commands';
import { attachResources, refreshedResources } from '../mcp/resource-attachments';
import type { UserBlock } from '../llm/types';
import { mergeServers, type McpServerConfig } from '../mcp/server-config';
import type { ACPSession } from '../session/acp-session';
import type { TraceRecorder } from '../telemetry/trace-recorder';
import type { Tool } from '../tools/tool';
import type { Workspace } from '../tools/workspace';
import { errorText } from '../vocabulary/text';
import type { ModelChoice, WorkspaceCatalog } from './catalog';
import { HostError } from './host-error';
import { exportSpans, type SpanExport } from './otlp';
import { THINKING_BUDGETS } from './prompt-input';

/** What prompts of one session share: built things are reused while nothing they depend on changed. */
export interface SharedPromptState {
  composition: { catalog: WorkspaceCatalog; key: string; tools: readonly Tool[]; agent: ACPAgent } | undefined;
  mcp: { key: string; servers: McpServers } | undefined;
  exporter: SpanExport | undefined;
  /** The MCP prompt commands last offered to the door, as JSON. */
  offeredCommands?: string;
  /** Notices of the folder's configuration already told in this session. */
  told: Set<string>;
  /** Where a notice goes while a prompt runs; outside prompts, the observer. */
  noticeSink?: (level: NoticeLevel, message: string, title?: string, action?: NoticeAction) => void;
  /** The running prompt: its signal, and where events of the session's own making go (counted, recorded, shown); none between prompts. */
  running?: { signal: AbortSignal; emit(event: AgentEvent): void };
  /** What the session's MCP clients declare and answer, built once (mcp-asking.ts). */
  mcpRequests?: McpClientRequests;
}

/** What the session's MCP servers start with, and whom they tell. */
export interface ToolContext {
  cwd: string;
  /** The front door's own servers (an ACP client's), beside the folder's. */
  doorServers: readonly McpServerConfig[];
  report(problem: McpProblem): void;
  /** What the servers may ask of the session (elicitation), and how it answers. */
  requests?: McpClientRequests;
  /** Told the servers' names when starting them takes a while. */
  slow(names: string): void;
  /** The session's workspace folders, offered to the servers as roots. */
  roots(): readonly string[];
  /** Starts a span of an MCP exchange outside a tool call, in the session's trace. */
  span: McpSpanStart;
  /** How remote servers sign in, from the front door. */
  auth?: McpAuth;
}

const NO_TOOLS: readonly Tool[] = Object.freeze([]);

/** How long starting MCP servers may take before the user is told what is happening. */
const SLOW_NOTICE_MS = 700;

/** The tools of the folder's and the front door's MCP servers; servers restart only when their configuration changed. */
export async function sessionTools(shared: SharedPromptState, catalog: WorkspaceCatalog, context: ToolContext): Promise<readonly Tool[]> {
  const configs = mergeServers(catalog.mcpServers?.() ?? [], context.doorServers);
  // The same (empty) list each time, so the composition built with it is reused.
  if (configs.length === 0 && !shared.mcp) return NO_TOOLS;
  const key = JSON.stringify(configs);
  if (shared.mcp?.key !== key) {
    // Replaced before anything is awaited: a second caller meanwhile (the composer's suggestions as a prompt starts) shares these servers.
    const old = shared.mcp;
    const { cwd, report, roots, span, requests, auth } = context;
    shared.mcp = { key, servers: new McpServers(configs, { cwd, report, roots, span, ...(requests ? { requests } : {}), ...(auth ? { auth } : {}) }) };
    await old?.servers.close();
  }
  await shared.mcp.servers.checkRoots();
  const names = configs.map((config) => config.name).join(', ');
  const slow = setTimeout(() => context.slow(names), SLOW_NOTICE_MS);
  try {
    return await shared.mcp.servers.tools();
  } finally {
    clearTimeout(slow);
  }
}

/**
 * The prompt as the model gets it from the session's MCP servers: a leading
 * /mcp__SERVER__PROMPT replaced by the prompt its server gives, and the
 * resources the person's text attaches read and added after it (never what
 * the server's prompt names). A required argument the command left out is
 * asked with `ask` where the door can; arguments that do not fit are a
 * usage error.
 */
export async function withMcpContext(shared: SharedPromptState, blocks: UserBlock[], supportsImages: boolean, signal: AbortSignal, ask?: PromptArgumentAsk): Promise<UserBlock[]> {
  const servers = shared.mcp?.servers;
  if (!servers) return blocks;
  let expanded: UserBlock[] | undefined;
  try {
    expanded = await expandMcpPrompt(blocks, servers, supportsImages, signal, ask);
  } catch (err) {
    if (signal.aborted) throw err;
    const command = blocks[0]?.type === 'text' ? blocks[0].text.trim().split(/\s/)[0] : 'The MCP prompt';
    throw new HostError('usage', `${command}: ${errorText(err)}`);
  }
  const attached = (await attachResources(blocks, servers, supportsImages, signal)).slice(blocks.length);
  const refreshed = await refreshedResources(servers, supportsImages, signal);
  return [...(expanded ?? blocks), ...attached, ...refreshed];
}

/** Tells `offer` the servers' prompts as slash commands, when they differ from those last told in this session. */
export async function offerMcpCommands(shared: SharedPromptState, offer: ((commands: OfferedCommand[]) => void) | undefined): Promise<void> {
  const servers = shared.mcp?.servers;
  if (!servers || !offer) return;
  const commands = await offeredPromptCommands(servers);
  const told = JSON.stringify(commands);
  if (told === (shared.offeredCommands ?? '[]')) return;
  shared.offeredCommands = told;
  offer(commands);
}

/** The composition for the session's agent, models and thinking level; rebuilt only when one of them changed. */
export function compositionFor(
  shared: SharedPromptState,
  catalog: WorkspaceCatalog,
  tools: readonly Tool[],
  session: Pick<ACPSession, 'agentName' | 'models' | 'thoughtLevel'>,
  workspace: Workspace,
): ACPAgent {
  const agent = session.agentName;
  const choice = chosenModels(catalog, agent, session.models);
  const level = session.thoughtLevel;
  const thinkingBudget = level !== undefined && catalog.thinks?.(agent) ? THINKING_BUDGETS[level] : undefined;
  const key = JSON.stringify([agent, choice, thinkingBudget]);
  const built = shared.composition;
  if (built && built.catalog === catalog && built.key === key && built.tools === tools) return built.agent;
  let composition: ACPAgent;
  try {
    composition = catalog.build(agent, workspace, choice, {
      sessionTools: tools,
      ...(thinkingBudget !== undefined ? { thinkingBudget } : {}),
    });
  } catch (err) {
    const missing = catalog.missingKeys();
    if (missing.length > 0) throw new HostError('auth', `${errorText(err)} (missing: ${missing.join(', ')})`);
    throw new HostError('config', `Cannot start ${agent}: ${errorText(err)}`);
  }
  shared.composition = { catalog, key, tools, agent: composition };
  return composition;
}

/** Starts sending the session's spans to the folder's OTLP endpoint, once per session. */
export function startExport(shared: SharedPromptState, catalog: WorkspaceCatalog, trace: TraceRecorder, warn: (message: string) => void): void {
  if (shared.exporter) return;
  const endpoint = catalog.otlpEndpoint?.();
  if (!endpoint) return;
  shared.exporter = exportSpans(trace, endpoint, (error) => warn(`Telemetry export: ${error.message}`));
}

/** The session's model choices for the roles the agent has (a choice for a role another agent had is left out). */
function chosenModels(catalog: WorkspaceCatalog, agent: string, models: ModelChoice): ModelChoice {
  const choice: ModelChoice = {};
  for (const { role } of catalog.models(agent)) {
    const chosen = models[role];
    if (chosen !== undefined) choice[role] = chosen;
  }
  return choice;
}
