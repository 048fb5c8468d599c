/**
 * What a project's own agent definitions (`.crow/agents/`) ask for beyond
 * the user's settings and definitions: looser permissions, running another
 * agent (acp_command, acp_url), another provider than the user's default
 * (where requests and that provider's key go), or replacing one of the
 * user's own definitions of the same name (which may be stricter, with
 * requires_approval, say). Until the folder is trusted the registry leaves
 * each of these out (see AgentRegistry.load).
 */
import { join } from 'node:path';
import { parseACPAgent, parseBaseAgent } from './agent-definitions';
import { readDefinitionFiles } from './markdown-files';
import { configHome, projectConfigDir } from './paths';
import type { Widening } from './project-trust';
import { DEFAULT_PROVIDER, type SettingsDocument } from './settings-file';

const RANK: Record<string, number> = { allow: 0, ask: 1, deny: 2 };
const DEFAULT_RULES: Record<string, string> = { read: 'allow', write: 'ask', execute: 'ask', network: 'ask' };

/** The widenings of the project's agent definitions, against `baseline` (the trusted settings) and the user's definitions. */
export function agentWidenings(root: string, env: NodeJS.ProcessEnv, baseline: SettingsDocument): Widening[] {
  const permissions = (baseline.permissions ?? {}) as Record<string, unknown>;
  const defaultProvider = baseline.provider ?? DEFAULT_PROVIDER;
  const widenings: Widening[] = [];
  for (const kind of ['base', 'acp'] as const) {
    const users = definitionNames(join(configHome(env), 'agents', kind), kind);
    for (const file of readDefinitionFiles(join(projectConfigDir(root), 'agents', kind))) {
      const { definition } = kind === 'base' ? parseBaseAgent(file, undefined) : parseACPAgent(file);
      if (!definition) continue;
      const name = `agents.${definition.name}`;
      const { systemPrompt: _prompt, file: _file, ...fields } = definition as typeof definition & { systemPrompt?: string };
      const widen = (setting: string, text: string): void => void widenings.push({ file: file.path, setting, text, value: fields });
      const mine = users.get(definition.name);
      if (mine !== undefined) widen(name, `replaces your own ${kind === 'base' ? 'base' : 'ACP'} agent "${definition.name}" (${mine}), with what it says there (requires_approval and permissions included)`);
      if (definition.kind !== 'base') continue;
      if (definition.external) {
        const reach = 'url' in definition.external ? definition.external.url : definition.external.command.join(' ');
        widen(name, `runs another agent: ${reach}`);
      }
      if (definition.provider !== undefined && definition.provider !== defaultProvider) {
        widen(`${name}.provider`, `provider = "${definition.provider}": sends this agent's requests, with that provider's key, to it (your default is "${defaultProvider}")`);
      }
      const own = definition.permissions ?? {};
      for (const category of Object.keys(DEFAULT_RULES)) {
        const rule = own[category as keyof typeof own] as string | undefined;
        const base = (permissions[category] as string | undefined) ?? DEFAULT_RULES[category]!;
        if (rule !== undefined && RANK[rule]! < RANK[base]!) widen(`${name}.permissions.${category}`, `${category} = "${rule}" for this agent (you have "${base}")`);
      }
      const trustedCommands = new Set(Array.isArray(permissions.allow_commands) ? (permissions.allow_commands as string[]) : []);
      const extra = (own.allowCommands ?? []).filter((command) => !trustedCommands.has(command));
      if (extra.length > 0) widen(`${name}.permissions.allow_commands`, `runs without asking: ${extra.map((c) => JSON.stringify(c)).join(', ')}`);
    }
  }
  return widenings;
}

/** The names defined in one folder of agent files, each with its file. */
function definitionNames(folder: string, kind: 'base' | 'acp'): Map<string, string> {
  const names = new Map<string, string>();
  for (const file of readDefinitionFiles(folder)) {
    const { definition } = kind === 'base' ? parseBaseAgent(file, undefined) : parseACPAgent(file);
    if (definition) names.set(definition.name, file.path);
  }
  return names;
}
