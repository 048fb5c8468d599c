import { type BaseAgentDefinition, builtinSystemTemplate } from '../config/agent-definitions';
import { policyFromConfig } from '../config/permission-config';
import { basePromptContext, type PromptRegistry, renderSystemPrompt } from '../config/prompts';
import { connectProvider, type ProviderConnection } from '../config/provider-config';
import { ConfigError, type Settings } from '../config/settings';
import type { CompactionSettings } from '../engine/compaction';
import { renderTemplateText } from '../config/template-text';
import { BaseAgent } from '../engine/base-agent';
import { providerFor } from '../llm';
import { flavorOf, isOpenAIReasoningModel } from '../llm/openai-flavor';
import { servedModel } from '../llm/served-models';
import { mcpToolsNamed } from '../mcp/tool-names';
import { isMcpEntry } from '../config/mcp-entries';
import { TASK_COMPLETE } from '../vocabulary/tool-names';
import { PERMISSION_CATEGORIES, type PermissionPolicy } from '../vocabulary/permission-types';
import { ToolRegistry } from '../tools/registry';
import type { Tool } from '../tools/tool';
import type { Workspace } from '../tools/workspace';
import type { CoagentTools } from '../config/control-flow';

/** What base agents are built from, besides their definitions. */
export interface AgentEnvironment {
  settings: Settings;
  workspace: Workspace;
  prompts: PromptRegistry;
  env: NodeJS.ProcessEnv;
  /** The tools definitions pick from by name. */
  tools: ToolRegistry;
}

/** The part a base agent plays in a composition. */
export type AgentPart = { as: 'primary'; reviewed: boolean } | { as: 'coagent'; tools: CoagentTools; canTerminate?: boolean };

/** All a judge may do: think, read the shared todo list and approve. */
const EVALUATE_ONLY = new Set([TASK_COMPLETE, 'todo_read', 'think']);

/**
 * A BaseAgent as its definition describes it: its own provider and model
 * (falling back to the settings' defaults), its tools (narrowed for a
 * coagent by the flow's CoagentTools), its rendered system prompt, its
 * limits and its permission policy.
 */
export function baseAgentFromDefinition(definition: BaseAgentDefinition, part: AgentPart, environment: AgentEnvironment): BaseAgent {
  const { settings } = environment;
  const connection = connectProvider(settings, definition, environment.env, definition.name);
  const thinks = connection.entry.models[connection.model]?.thinking !== false;
  const tools = agentTools(definition, part, environment.tools);
  const maxIterations = definition.maxIterations ?? settings.maxIterations;
  const doomLoopThreshold = definition.doomLoopThreshold ?? settings.doomLoopThreshold;
  const maxOutputTokens = definition.maxTokens ?? settings.maxOutputTokens;
  const thinkingBudget = settings.thinkingBudget !== undefined && thinks ? settings.thinkingBudget : undefined;
  const temperature = checkedTemperature(definition, connection);
  return new BaseAgent({
    name: definition.name,
    provider: providerFor(connection, settings),
    tools,
    workspace: environment.workspace,
    systemPrompt: systemPrompt(definition, part, tools, environment),
    policy: agentPolicy(definition, settings, environment.workspace.sandboxed === true),
    ...(maxIterations !== undefined ? { maxIterations } : {}),
    ...(doomLoopThreshold !== undefined ? { doomLoopThreshold } : {}),
    ...(maxOutputTokens !== undefined ? { maxOutputTokens } : {}),
    ...(thinkingBudget !== undefined ? { thinkingBudget } : {}),
    ...(temperature !== undefined ? { temperature } : {}),
    compaction: compactionSettings(contextWindowOf(connection), environment.prompts, settings.compaction !== 'off'),
    ...(definition.approvalTimeoutSeconds !== undefined ? { approvalTimeoutMs: definition.approvalTimeoutSeconds * 1000 } : {}),
  });
}

/**
 * The definition's temperature, where the model can take it; a ConfigError
 * naming the file and what to change where it cannot (never silently
 * dropped): the Anthropic Messages API takes no sampling parameters since
 * API version 2026-10-21 (which our SDK sends), and a model configured with
 * `temperature = false` (reasoning models) takes none either.
 */
function checkedTemperature(definition: BaseAgentDefinition, connection: ProviderConnection): number | undefined {
  const { temperature } = definition;
  if (temperature === undefined) return undefined;
  const where = `Agent "${definition.name}" (${definition.file}) sets temperature ${temperature}`;
  const model = `${connection.entry.name}/${connection.model}`;
  if (connection.entry.type === 'anthropic') {
    throw new ConfigError(`${where}, but ${model} is on the Anthropic API, which takes no temperature (API version 2026-10-21): remove temperature from the agent.`);
  }
  if (connection.entry.models[connection.model]?.temperature === false) {
    throw new ConfigError(`${where}, but ${model} takes no temperature (temperature = false in its [providers] entry): remove it from the agent.`);
  }
  const onOpenAI = flavorOf(connection.entry.baseUrl ?? OPENAI_API, connection.entry.flavor) === 'openai';
  if (onOpenAI && isOpenAIReasoningModel(connection.model) && temperature !== 1) {
    throw new ConfigError(`${where}, but ${model} is one of OpenAI's reasoning models, which take only the default temperature: remove temperature from the agent.`);
  }
  return temperature;
}

const OPENAI_API = 'https://api.openai.com/v1';

/** Context windows assumed when the provider config gives none: vendors' current models, and small local defaults. */
const DEFAULT_CONTEXT_WINDOW = { anthropic: 200_000, openai: 128_000, compatible: 32_000 };

/** The context window of `model` on whichever configured provider lists it, else the default of the default provider's kind. */
export function contextWindowFor(settings: Settings, model: string): number {
  for (const entry of Object.values(settings.providers)) {
    const configured = entry.models[model]?.contextWindow;
    if (configured !== undefined) return configured;
  }
  return contextWindowOf({ entry: settings.providers[settings.provider]!, model, apiKey: undefined });
}

function contextWindowOf(connection: ProviderConnection): number {
  const configured = connection.entry.models[connection.model]?.contextWindow ?? servedModel(connection.entry, connection.apiKey, connection.model)?.contextWindow;
  if (configured !== undefined) return configured;
  if (connection.entry.type === 'anthropic') return DEFAULT_CONTEXT_WINDOW.anthropic;
  return connection.entry.baseUrl === undefined ? DEFAULT_CONTEXT_WINDOW.openai : DEFAULT_CONTEXT_WINDOW.compatible;
}

/** Compaction with the prompts of the `compaction` and `compaction-note` templates. */
export function compactionSettings(contextWindow: number, prompts: PromptRegistry, auto = true): CompactionSettings {
  return {
    contextWindow,
    ...(auto ? {} : { auto: false }),
    prompts: {
      instructions: (asked) => prompts.render('compaction', { requested: asked !== undefined, focus: asked?.focus }),
      note: (summary) => prompts.render('compaction-note', { summary }).trim(),
    },
  };
}

/**
 * The definition's tools (default: all, MCP tools included; a list gets MCP
 * tools only by naming them, mcp:SERVER or mcp:SERVER:TOOL), narrowed for a
 * coagent: none → evaluate only; read_only → no file edits.
 */
export function agentTools(definition: BaseAgentDefinition, part: AgentPart, registry: ToolRegistry): Tool[] {
  let picked: Tool[];
  try {
    picked = definition.tools ? pickTools(definition.tools, registry) : registry.list();
  } catch (err) {
    throw new ConfigError(`${definition.file}: ${(err as Error).message}`);
  }
  if (part.as === 'primary') return picked;
  // A coagent that may not end the task does not get the tool that would.
  if (part.canTerminate === false) picked = picked.filter((tool) => tool.name !== TASK_COMPLETE);
  switch (part.tools) {
    case 'none':
      return picked.filter((tool) => EVALUATE_ONLY.has(tool.name));
    case 'read_only':
      return picked.filter((tool) => tool.permission !== 'write');
    case 'full':
      return picked;
  }
}

function pickTools(entries: readonly string[], registry: ToolRegistry): Tool[] {
  const builtin = entries.filter((entry) => !isMcpEntry(entry));
  return [...registry.pick(builtin).list(), ...mcpToolsNamed(entries, registry.list())];
}

/**
 * The settings' permissions overridden per field by the definition's;
 * requires_approval turns "allow" into "ask". `sandboxed`: the agent's
 * commands run in the sandbox (see policyFromConfig); never for an external
 * agent, whose commands run in its own process.
 */
export function agentPolicy(definition: BaseAgentDefinition, settings: Settings, sandboxed = false): PermissionPolicy {
  const inSandbox = sandboxed && !definition.external;
  const policy = policyFromConfig({ ...settings.permissions, ...ownPermissions(definition, settings, inSandbox) }, inSandbox);
  const rules = { ...policy.rules };
  for (const category of definition.requiresApproval ?? []) {
    if (rules[category] === 'allow') rules[category] = 'ask';
  }
  return { ...policy, rules };
}

/**
 * The permissions a definition sets. An untrusted project's definition only
 * narrows: per category it keeps a rule no looser than the settings', and
 * only allow-list entries the settings have too.
 */
function ownPermissions(definition: BaseAgentDefinition, settings: Settings, sandboxed: boolean): BaseAgentDefinition['permissions'] {
  const own = definition.permissions;
  if (!own || definition.origin !== 'project' || settings.projectTrusted) return own;
  const base = policyFromConfig(settings.permissions ?? {}, sandboxed);
  const kept: NonNullable<BaseAgentDefinition['permissions']> = {};
  for (const category of PERMISSION_CATEGORIES) {
    const rule = own[category];
    if (rule !== undefined && RULE_RANK[rule] >= RULE_RANK[base.rules[category]]) kept[category] = rule;
  }
  if (own.allowCommands) kept.allowCommands = own.allowCommands.filter((command) => base.allowCommands.includes(command));
  return kept;
}

const RULE_RANK = { allow: 0, ask: 1, deny: 2 } as const;

/** The definition's body rendered as a template, or the built-in "system" / "reviewer" template by role when it has none. */
function systemPrompt(definition: BaseAgentDefinition, part: AgentPart, tools: readonly Tool[], environment: AgentEnvironment): string {
  const toolNames = tools.map((tool) => tool.name);
  const reviewed = part.as === 'primary' && part.reviewed;
  const workspaceRoot = environment.workspace.root;
  if (definition.systemPrompt === '') {
    const template = builtinSystemTemplate(definition.role);
    return renderSystemPrompt(environment.prompts, { template, agentName: definition.name, workspaceRoot, tools: toolNames, reviewed });
  }
  const context = {
    ...basePromptContext(definition.name, workspaceRoot),
    tools: toolNames,
    hasTaskComplete: toolNames.includes(TASK_COMPLETE),
    reviewed,
  };
  try {
    return renderTemplateText(definition.systemPrompt, context, definition.file);
  } catch (err) {
    throw new ConfigError((err as Error).message);
  }
}
