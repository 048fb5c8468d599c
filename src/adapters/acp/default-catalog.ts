import { assembleAgent, defaultAgentName, pickableAgents } from '../../agents/assemble';
import { contextWindowFor } from '../../agents/definition-agent';
import { AgentRegistry } from '../../config/agent-registry';
import { policyFromConfig } from '../../config/permission-config';
import { PromptRegistry } from '../../config/prompts';
import { agentModel, resolveSettings } from '../../config/provider-config';
import { dataHome } from '../../config/paths';
import { SessionStore } from '../../session/session-store';
import { builtinTools } from '../../tools/registry';
import { sandboxSetup } from '../../tools/sandbox-setup';
import { SubagentRunner } from '../../agents/subagent-runner';
import { serversFromSettings } from '../../mcp/server-config';
import { roleModels } from '../../agents/role-models';
import type { AgentCatalog } from './agent-catalog';
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
  const acpAgents = pickableAgents(registry);
  const sandbox = sandboxSetup(settings, env);
  return {
    list: () => acpAgents,
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
    permissionPolicy: () => policyFromConfig(settings.permissions, sandbox.active),
    sandbox: () => sandbox,
    subagents: (workspace, sessionTools = []) =>
      new SubagentRunner({ registry, settings, workspace, prompts, env, tools: [...tools, ...sessionTools], store: new SessionStore({ dataHome: dataHome(env) }) }),
    mcpServers: () => serversFromSettings(settings.mcpServers, env),
  };
}
