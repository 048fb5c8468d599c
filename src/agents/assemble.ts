import type { BaseAgentDefinition } from '../config/agent-definitions';
import { DEFAULT_AGENT } from '../config/keys/defaults';
import type { AgentRegistry } from '../config/agent-registry';
import { didYouMean } from '../vocabulary/did-you-mean';
import type { PromptRegistry } from '../config/prompts';
import { ConfigError, type Settings } from '../config/settings';
import { coagentCanTerminate } from '../config/control-flow';
import { builtinTools, ToolRegistry } from '../tools/registry';
import type { Tool } from '../tools/tool';
import type { Workspace } from '../tools/workspace';
import { ACPAgent } from './acp-agent';
import { baseAgentFromDefinition, type AgentEnvironment } from './definition-agent';
import { resolveAgent } from './stand-in';

/** The ACP agent front doors pick when neither the user nor the settings (default_agent) name one. */
export { DEFAULT_AGENT } from '../config/keys/defaults';

/**
 * The ACP agents a person can pick; compositions led by a subagent (task-pair) are for the task tool, and one
 * marked `pickable: false` (judge-attempts) is run by name only.
 */
export function pickableAgents(registry: AgentRegistry): { name: string; description: string }[] {
  return registry
    .acpAgents()
    .filter((agent) => registry.baseAgent(agent.primary)?.role !== 'subagent' && !agent.unpickable)
    .map(({ name, description }) => ({ name, description }));
}

export function defaultAgentName(settings: Settings): string {
  return settings.defaultAgent ?? DEFAULT_AGENT;
}

export interface AssemblyContext {
  registry: AgentRegistry;
  /** Resolved settings: default provider and model, providers, limits, permissions. */
  config: Settings;
  workspace: Workspace;
  prompts: PromptRegistry;
  /** Where API keys are read from. */
  env: NodeJS.ProcessEnv;
  /** The tools definitions pick from. Default: builtinTools(). */
  tools?: readonly Tool[];
  /** A model chosen per role (e.g. from an ACP config option), over the definitions' own. */
  models?: Partial<Record<'primary' | 'coagent', string>>;
  /**
   * A provider chosen per role (VS Code settings), over the definitions' own.
   * A role moved to another provider without a chosen model runs on that provider's default model.
   */
  providers?: Partial<Record<'primary' | 'coagent', string>>;
}

/**
 * Builds the ACP agent a definition names: its primary and coagent as
 * BaseAgents, each on its own provider and model, under its control flow.
 * Throws ConfigError for an unknown agent, an unknown provider or a
 * missing API key, naming the agent concerned.
 */
export function assembleAgent(name: string, context: AssemblyContext): ACPAgent {
  const { registry } = context;
  const resolved = resolveAgent(name, registry);
  if (!resolved) throw new ConfigError(unknownAgent(name, registry));
  const { definition } = resolved;
  const environment: AgentEnvironment = {
    settings: context.config,
    workspace: context.workspace,
    prompts: context.prompts,
    env: context.env,
    tools: new ToolRegistry(context.tools ?? builtinTools()),
  };
  const { flow } = definition;
  const chosen = (role: 'primary' | 'coagent', base: BaseAgentDefinition): BaseAgentDefinition => {
    const model = context.models?.[role];
    const provider = context.providers?.[role];
    if (provider !== undefined && provider !== base.provider) {
      // The definition's model belongs to its own provider; the new one falls back to its default.
      const { model: _ignored, ...rest } = base;
      return { ...rest, provider, ...(model !== undefined ? { model } : {}) };
    }
    return model === undefined ? base : { ...base, model };
  };
  const primaryDefinition = chosen(resolved.primaryRole, resolved.primary);
  const primary = baseAgentFromDefinition(primaryDefinition, { as: 'primary', reviewed: flow.kind === 'coagent' }, environment);
  const coagentBase = definition.coagent !== undefined ? registry.baseAgent(definition.coagent) : undefined;
  const coagentDefinition = coagentBase ? chosen('coagent', coagentBase) : undefined;
  const coagent =
    coagentDefinition && flow.kind === 'coagent'
      ? baseAgentFromDefinition(coagentDefinition, { as: 'coagent', tools: flow.tools, canTerminate: coagentCanTerminate(flow) }, environment)
      : undefined;
  return new ACPAgent({
    name: definition.name,
    description: definition.description,
    primary,
    flow,
    prompts: context.prompts,
    ...(coagent ? { coagent } : {}),
    ...(definition.handoff ? { handoff: definition.handoff } : {}),
  });
}

function unknownAgent(name: string, registry: AgentRegistry): string {
  const names = registry.acpAgents().map((agent) => agent.name);
  if (registry.baseAgent(name)) {
    return `"${name}" is a base agent, used inside ACP agents; pick an ACP agent: ${names.join(', ')}.`;
  }
  const guess = didYouMean(name, names);
  return `Unknown agent "${name}".${guess ? ` Did you mean "${guess}"?` : ''} Agents: ${names.join(', ')} (see crow agents list).`;
}
