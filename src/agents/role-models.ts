import type { BaseAgentDefinition } from '../config/agent-definitions';
import type { AgentRegistry } from '../config/agent-registry';
import { agentModel } from '../config/provider-config';
import { ConfigError, type Settings } from '../config/settings';
import { type ResolvedAgent, resolveAgent } from './stand-in';

export type CompositionRole = 'primary' | 'coagent';

/** The models offered for one role of an agent; `current` is among `options`. */
export interface RoleModels {
  role: CompositionRole;
  current: string;
  options: string[];
}

/**
 * The models a person can pick per role of an ACP agent: each role's current
 * model and the others its provider lists. `providers` moves a role to
 * another provider (VS Code settings), as assembleAgent does.
 */
export function roleModels(
  agent: string,
  registry: AgentRegistry,
  settings: Settings,
  providers: Partial<Record<CompositionRole, string>> = {},
  served: ServedIds = () => undefined,
): RoleModels[] {
  const resolved = resolveAgent(agent, registry);
  if (!resolved) throw new ConfigError(`Unknown agent "${agent}" (see crow agents list).`);
  return rolesOf(resolved, registry).map(([role, base]) => {
    const provider = providers[role];
    const moved = provider !== undefined && provider !== base.provider ? { ...base, provider, model: undefined } : base;
    return { role, ...modelsFor(moved, settings, served) };
  });
}

/** The providers the roles of an ACP agent run on (with `providers` moving roles, as in roleModels). */
export function roleProviders(agent: string, registry: AgentRegistry, settings: Settings, providers: Partial<Record<CompositionRole, string>> = {}): string[] {
  const resolved = resolveAgent(agent, registry);
  if (!resolved) return [];
  return [...new Set(rolesOf(resolved, registry).map(([role, base]) => providers[role] ?? agentModel(settings, definedChoice(base)).provider))];
}

/** The base agents of a resolved agent by the role whose model choices they take (a stand-in's primary takes its own role's). */
function rolesOf({ definition, primary, primaryRole }: ResolvedAgent, registry: AgentRegistry): [CompositionRole, BaseAgentDefinition][] {
  const coagent = definition.flow.kind === 'coagent' && definition.coagent !== undefined ? registry.baseAgent(definition.coagent) : undefined;
  return [[primaryRole, primary], ...(coagent && primaryRole === 'primary' ? [['coagent', coagent] as [CompositionRole, BaseAgentDefinition]] : [])];
}

/** The model ids a provider's server lists, once listed (see llm/served-models.ts). */
export type ServedIds = (provider: string) => string[] | undefined;

/**
 * The base agent's current model and the others to offer: the models its
 * provider's server serves, once it has listed them, else those its
 * configuration names. The current model is always offered first.
 */
function modelsFor(base: Pick<BaseAgentDefinition, 'provider' | 'model'>, settings: Settings, served: ServedIds): { current: string; options: string[] } {
  const { provider, model } = agentModel(settings, definedChoice(base));
  const entry = settings.providers[provider];
  const current = model ?? entry?.defaultModel ?? settings.model;
  const listed = served(provider);
  return { current, options: [...new Set([current, ...(listed ?? Object.keys(entry?.models ?? {}))])] };
}

function definedChoice(base: Pick<BaseAgentDefinition, 'provider' | 'model'>): { provider?: string; model?: string } {
  return { ...(base.provider !== undefined ? { provider: base.provider } : {}), ...(base.model !== undefined ? { model: base.model } : {}) };
}
