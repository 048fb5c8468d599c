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
    return [{ role, ...modelsFor(moved, settings) }];
  });
}

/** The base agent's current model and the others its provider lists. */
function modelsFor(base: Pick<BaseAgentDefinition, 'provider' | 'model'>, settings: Settings): { current: string; options: string[] } {
  const { provider, model } = agentModel(settings, definedChoice(base));
  const entry = settings.providers[provider];
  const current = model ?? entry?.defaultModel ?? settings.model;
  return { current, options: [...new Set([current, ...Object.keys(entry?.models ?? {})])] };
}

function definedChoice(base: Pick<BaseAgentDefinition, 'provider' | 'model'>): { provider?: string; model?: string } {
  return { ...(base.provider !== undefined ? { provider: base.provider } : {}), ...(base.model !== undefined ? { model: base.model } : {}) };
}
