import type { BaseAgentDefinition } from '../config/agent-definitions';
import type { AgentRegistry } from '../config/agent-registry';
import { agentModel } from '../config/provider-config';
import { ConfigError, type Settings } from '../config/settings';

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
  const definition = registry.acpAgent(agent);
  if (!definition) throw new ConfigError(`Unknown agent "${agent}" (see crow agents list).`);
  const roles: [CompositionRole, string | undefined][] = [
    ['primary', definition.primary],
    ['coagent', definition.flow.kind === 'coagent' ? definition.coagent : undefined],
  ];
  return roles.flatMap(([role, name]) => {
    const base = name !== undefined ? registry.baseAgent(name) : undefined;
    if (!base) return [];
    const provider = providers[role];
    const moved = provider !== undefined && provider !== base.provider ? { ...base, provider, model: undefined } : base;
    return [{ role, ...modelsFor(moved, settings, served) }];
  });
}

/** The providers the roles of an ACP agent run on (with `providers` moving roles, as in roleModels). */
export function roleProviders(agent: string, registry: AgentRegistry, settings: Settings, providers: Partial<Record<CompositionRole, string>> = {}): string[] {
  const definition = registry.acpAgent(agent);
  if (!definition) return [];
  const roles: [CompositionRole, string | undefined][] = [
    ['primary', definition.primary],
    ['coagent', definition.flow.kind === 'coagent' ? definition.coagent : undefined],
  ];
  const names = roles.flatMap(([role, name]) => {
    const base = name !== undefined ? registry.baseAgent(name) : undefined;
    return base ? [providers[role] ?? agentModel(settings, definedChoice(base)).provider] : [];
  });
  return [...new Set(names)];
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
