/**
 * A folder's configuration, read once per call: whether its own `.crow/`
 * is trusted, its settings (with or without the project's widenings),
 * agent definitions, prompts, slash commands, tools and MCP servers, and
 * the secrets in play. `openFolder` is the one place every front door gets
 * its catalog from.
 */
import { assembleAgent, defaultAgentName, pickableAgents } from '../agents/assemble';
import { contextWindowFor } from '../agents/definition-agent';
import { roleModels, roleProviders, type CompositionRole, type RoleModels } from '../agents/role-models';
import { SubagentRunner } from '../agents/subagent-runner';
import { AgentRegistry } from '../config/agent-registry';
import { formatProblem } from '../config/config-problems';
import { policyFromConfig } from '../config/permission-config';
import { PromptRegistry } from '../config/prompts';
import { type DecideOptions, decideTrust, untrustedNotice } from '../config/folder-trust';
import { agentModel, missingDefaultKey, resolveSettings } from '../config/provider-config';
import { type SettingsDocument, speaksMessagesApi } from '../config/settings-file';
import type { Settings } from '../config/settings';
import { isSecretValue, isSecretVariable, secretVariableNames } from '../config/secret-variables';
import { SlashCommands } from '../config/slash-commands';
import { findMcpFiles, foundNotice, type ImportedServer, importedMcpServers } from '../config/mcp-import';
import { serversFromImports, serversFromSettings } from '../mcp/server-config';
import { SessionStore } from '../session/session-store';
import { otlpEndpointFrom } from '../telemetry/otlp-endpoint';
import { Redactor } from '../telemetry/redact';
import { builtinTools } from '../tools/registry';
import { noticeOnce, sandboxSetup } from '../tools/sandbox-setup';
import type { WorkspaceCatalog } from './catalog';
import { speckitCommands } from '../speckit/speckit-commands';
import { FolderCommands, type ProgrammaticCommand } from './commands';
import { compactCommand } from './compact-command';
import { servedModelLists } from './served-model-lists';
import { rewindCommand, undoCommand } from './restore-commands';

/** A model or provider chosen per role outside any session: command-line flags, VS Code settings. */
export interface RoleDefaults {
  models?: Partial<Record<CompositionRole, string>>;
  providers?: Partial<Record<CompositionRole, string>>;
}

export interface FolderOptions {
  /** The folder (absolute). */
  root: string;
  /** Where keys are read from. */
  env: NodeJS.ProcessEnv;
  /** The settings for the folder, resolved by the front door (flags, its own settings, trust). */
  settings: Settings;
  /** Whether the project's own definitions are trusted (see folder-trust.ts); default no. */
  trusted?: boolean;
  /** Where subagents' sessions are stored. */
  dataHome: string;
  roles?: RoleDefaults;
  /** Commands implemented in code (undo, Spec Kit), besides the template commands. */
  programs?: readonly ProgrammaticCommand[];
  /** Things to tell the user once, besides problems found here (e.g. that project settings were left out). */
  notices?: readonly string[];
  /** The front door opened the network to commands (crow run --allow network), besides the settings. */
  allowNetwork?: boolean;
}

/** How a front door decides whether the folder's own configuration is trusted. */
export interface FolderTrust {
  /** Asks a person (a terminal), when one can answer; the answer is remembered. */
  ask?: DecideOptions['ask'];
  /** The front door's own settings, as a document over the project's (VS Code's). */
  frontDoor?: SettingsDocument;
  /** The front door's own verdict on the folder (VS Code's Workspace Trust); when set, it decides. */
  frontDoorTrusted?: boolean;
  /** How a person trusts a folder through this door, for the line that says its widenings were left out. */
  howToTrust: string;
}

export interface OpenFolderOptions extends Omit<FolderOptions, 'settings' | 'trusted' | 'notices'> {
  /** How trust is decided; `untrusted`: never, and nothing to say about it (crow eval's throwaway copies). */
  trust: FolderTrust | 'untrusted';
  /** The settings for the folder once trust is known; default: resolved as `crow run` resolves them, without flags. */
  settings?: (trusted: boolean) => Settings;
}

/**
 * The folder as a front door opens it: trust decided (asking a person, or
 * taking the door's own verdict, or the user's remembered answer), the
 * settings resolved with or without the project's widenings, a notice
 * when some were left out, and the catalog.
 */
export async function openFolder(options: OpenFolderOptions): Promise<WorkspaceCatalog> {
  const { trust, root, env } = options;
  const decision =
    trust === 'untrusted'
      ? undefined
      : await decideTrust(root, {
          env,
          ...(trust.ask ? { ask: trust.ask } : {}),
          ...(trust.frontDoor ? { frontDoor: trust.frontDoor } : {}),
          ...(trust.frontDoorTrusted !== undefined ? { frontDoorTrusted: trust.frontDoorTrusted } : {}),
        });
  const trusted = decision?.trusted ?? false;
  const settings = options.settings?.(trusted) ?? resolveSettings(root, {}, env, { trusted });
  const notice = decision && trust !== 'untrusted' ? untrustedNotice(decision, trust.howToTrust) : undefined;
  const { trust: _trust, settings: _settings, ...rest } = options;
  return loadCatalog({ ...rest, settings, trusted, notices: notice ? [notice] : [] });
}

export function loadCatalog(options: FolderOptions): WorkspaceCatalog {
  const { root, env, settings } = options;
  const roles = options.roles ?? {};
  const { registry, errors } = AgentRegistry.load(root, env, { trusted: options.trusted === true, defaultProvider: settings.provider });
  const templates = SlashCommands.load(root, env);
  const notices = [
    ...(options.notices ?? []),
    ...errors.map((error) => `${formatProblem(error)} (this definition is skipped)`),
    ...templates.errors.map((error) => `${formatProblem(error)} (this command is skipped)`),
    ...(settings.hookNotices ?? []),
  ];
  const prompts = PromptRegistry.forWorkspace(root, env);
  const commands = new FolderCommands(templates.commands, [undoCommand(options.dataHome), rewindCommand(options.dataHome), compactCommand, ...speckitCommands(root), ...(options.programs ?? [])]);
  const tools = builtinTools(settings);
  const acpAgents = pickableAgents(registry);
  const foundMcp = findMcpFiles(root, env);
  const imported = importedMcpServers(foundMcp, settings.mcpImport ?? [], options.trusted === true, new Set(Object.keys(settings.mcpServers ?? {})));
  const importedSecrets = importedSecretsOf(imported);
  const redactor = new Redactor({ ...env, ...importedSecrets }, [...secretVariableNames(settings), ...Object.keys(importedSecrets)]);
  const sandbox = sandboxSetup(settings, env, options.allowNetwork === true);
  const sandboxNotice = noticeOnce(sandbox);
  if (sandboxNotice) notices.push(sandboxNotice);
  const store = new SessionStore({ dataHome: options.dataHome });
  const served = servedModelLists(settings, env);
  const mcpNotice = foundNotice(foundMcp, settings.mcpImport ?? [], env);
  if (mcpNotice) notices.push(mcpNotice);
  return {
    list: () => acpAgents,
    agentNamed: (name) => registry.named(name),
    definition: (name) => registry.acpAgent(name),
    defaultAgent: () => {
      const wanted = registry.named(defaultAgentName(settings));
      return acpAgents.some((agent) => agent.name === wanted) ? wanted : (acpAgents[0]?.name ?? wanted);
    },
    models: (agent) => withDefaults(roleModels(agent, registry, settings, roles.providers, served.ids), roles.models),
    refreshModels: (agent, waitMs) => served.refresh(roleProviders(agent, registry, settings, roles.providers), waitMs),
    build: (agent, workspace, models, buildOptions = {}) => {
      const config = buildOptions.thinkingBudget === undefined ? settings : { ...settings, thinkingBudget: buildOptions.thinkingBudget };
      return assembleAgent(agent, {
        registry,
        config,
        workspace,
        prompts,
        env,
        tools: [...tools, ...(buildOptions.sessionTools ?? [])],
        models: { ...roles.models, ...models },
        ...(roles.providers ? { providers: roles.providers } : {}),
      });
    },
    thinks: (agent) => {
      const primary = registry.baseAgent(registry.acpAgent(agent)?.primary ?? '');
      if (!primary) return false;
      const moved = roles.providers?.primary;
      const { provider, model } = agentModel(settings, moved !== undefined ? { provider: moved } : primary);
      const entry = settings.providers[provider];
      const reasons = speaksMessagesApi(entry?.type) || entry?.type === 'openai-responses';
      return reasons && entry!.models[model ?? entry!.defaultModel ?? '']?.thinking !== false;
    },
    missingKeys: () => missingDefaultKey(settings, env),
    contextWindow: (model) => contextWindowFor(settings, model),
    permissionPolicy: () => policyFromConfig(settings.permissions, sandbox.active),
    subagents: (workspace, sessionTools = []) =>
      new SubagentRunner({ registry, settings, workspace, prompts, env, tools: [...tools, ...sessionTools], store }),
    mcpServers: () => [...serversFromSettings(settings.mcpServers, env), ...serversFromImports(imported)],
    commands: () => commands,
    otlpEndpoint: () => otlpEndpointFrom(settings.otlpEndpoint, env),
    redactor: () => redactor,
    notices: () => notices,
    sandbox: () => sandbox,
    prompts: () => prompts,
    settings: () => settings,
  };
}

/**
 * The credentials other tools' files hand their servers as values (a token
 * in Claude Desktop's env, a header), under names of their own, so the
 * redactor keeps them out of traces and logs as it does our variables'.
 */
function importedSecretsOf(imported: readonly ImportedServer[]): Record<string, string> {
  const values = imported.flatMap(({ transport }) => {
    if (!transport) return [];
    if (transport.type !== 'stdio') return Object.values(transport.headers);
    return Object.entries(transport.env).flatMap(([name, value]) => (isSecretVariable(name) || isSecretValue(value) ? [value] : []));
  });
  return Object.fromEntries(values.map((value, i) => [`CROW_IMPORTED_MCP_SECRET_${i}`, value]));
}

/** Models chosen per role outside the session become the roles' current models. */
function withDefaults(offers: RoleModels[], models: RoleDefaults['models']): RoleModels[] {
  return offers.map((offer) => {
    const model = models?.[offer.role];
    return model !== undefined ? { ...offer, current: model, options: [...new Set([model, ...offer.options])] } : offer;
  });
}
