import { assembleAgent, defaultAgentName } from '../../agents/assemble';
import { contextWindowFor } from '../../agents/definition-agent';
import { AgentRegistry } from '../../config/agent-registry';
import type { BaseAgentDefinition } from '../../config/agent-definitions';
import { policyFromConfig } from '../../config/permission-config';
import { PromptRegistry } from '../../config/prompts';
import { agentModel, ConfigError, resolveSettings, type Settings } from '../../config/provider-config';
import type { AgentRole } from '../../session/acp-session';
import { dataHome } from '../../config/paths';
import { SessionStore } from '../../session/session-store';
import { builtinTools } from '../../tools/registry';
import { SubagentRunner } from '../../agents/subagent-runner';
import { serversFromSettings } from '../../mcp/server-config';
import type { AgentCatalog, RoleModels } from './agent-catalog';
import { missingApiKeys } from './default-keys';

/**
 * The catalog of a workspace: every ACP agent its definitions offer
 * (built-in, user, project), each base agent on its own provider and model,
 * a model select per role from the providers' configured models. Settings and
 * definitions are read once, when the catalog is made; keys are checked when
 * an agent is built. Bad definition files are reported to `warn` and skipped.
 */
export function defaultCatalog(cwd: string, env: NodeJS.ProcessEnv, warn: (message: string) => void = () => undefined): AgentCatalog {
  const settings = resolveSettings(cwd, {}, env);
  const { registry, errors } = AgentRegistry.load(cwd, env);
  for (const error of errors) warn(`${error.file}${error.field ? ` (${error.field})` : ''}: ${error.message}`);
  const prompts = PromptRegistry.forWorkspace(cwd, env);
  const tools = builtinTools(settings.webSearch ? { webSearch: settings.webSearch } : {});
  // Compositions led by a subagent (task-pair) are for the task tool, not for people to pick.
  const acpAgents = registry.acpAgents().filter((agent) => registry.baseAgent(agent.primary)?.role !== 'subagent');
  return {
    list: () => acpAgents.map(({ name, description }) => ({ name, description })),
    defaultAgent: () => {
      const wanted = defaultAgentName(settings);
      return acpAgents.some((agent) => agent.name === wanted) ? wanted : (acpAgents[0]?.name ?? wanted);
    },
    models: (agent) => roleModels(agent, registry, settings),
    build: (agent, workspace, models, options = {}) => {
      const config = options.thinkingBudget === undefined ? settings : { ...settings, thinkingBudget: options.thinkingBudget };
      return assembleAgent(agent, { registry, config, workspace, prompts, env, tools: [...tools, ...(options.sessionTools ?? [])], models });
    },
    thinks: (agent) => {
      const primary = registry.baseAgent(registry.acpAgent(agent)?.primary ?? '');
      if (!primary) return false;
      const { provider, model } = agentModel(settings, primary);
      const entry = settings.providers[provider];
      return entry?.type === 'anthropic' && entry.models[model ?? entry.defaultModel ?? '']?.thinking !== false;
    },
    missingKeys: () => missingApiKeys(cwd, env),
    contextWindow: (model) => contextWindowFor(settings, model),
    permissionPolicy: () => policyFromConfig(settings.permissions),
    subagents: (workspace, sessionTools = []) =>
      new SubagentRunner({ registry, settings, workspace, prompts, env, tools: [...tools, ...sessionTools], store: new SessionStore({ dataHome: dataHome(env) }) }),
    mcpServers: () => serversFromSettings(settings.mcpServers, env),
  };
}

function roleModels(agent: string, registry: AgentRegistry, settings: Settings): RoleModels[] {
  const definition = registry.acpAgent(agent);
  if (!definition) throw new ConfigError(`Unknown agent "${agent}" (see crow agents list).`);
  const roles: [AgentRole, string | undefined][] = [
    ['primary', definition.primary],
    ['coagent', definition.flow.kind === 'coagent' ? definition.coagent : undefined],
  ];
  return roles.flatMap(([role, name]) => {
    const base = name !== undefined ? registry.baseAgent(name) : undefined;
    return base ? [{ role, ...modelsFor(base, settings) }] : [];
  });
}

/** The base agent's current model and the others its provider lists. */
function modelsFor(base: BaseAgentDefinition, settings: Settings): { current: string; options: string[] } {
  const { provider, model } = agentModel(settings, base);
  const entry = settings.providers[provider];
  const current = model ?? entry?.defaultModel ?? settings.model;
  return { current, options: [...new Set([current, ...Object.keys(entry?.models ?? {})])] };
}
