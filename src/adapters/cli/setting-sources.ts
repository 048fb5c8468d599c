/**
 * Where a setting's value comes from, for `crow config get`: the value in
 * force and the layer that set it, highest first: the environment (CROW_*,
 * a provider's *_BASE_URL), the project's file (when the folder is trusted,
 * or for what an untrusted folder may set), the user's file, the built-in
 * defaults. A flag such as `crow run --model` wins over all of them, for one run.
 */
import { DEFAULT_AGENT } from '../../agents/assemble';
import { joinPath } from '../../config/config-problems';
import { DEFAULT_POLICY } from '../../vocabulary/permission-types';
import { judgeProjectSettings } from '../../config/project-trust';
import { BASE_URL_VARIABLES, settingsLayers } from '../../config/provider-config';
import { BUILTIN_DOCUMENT, DEFAULT_SANDBOX_PORTS, DEFAULT_SANDBOX_TMP_SIZE_MB, DEFAULT_UNDO_TRACK_TIMEOUT_MS, globalConfigPath, mergeDocuments, type SettingsDocument } from '../../config/settings-file';
import { valueAtPath } from '../../config/settings-keys';
import { DEFAULT_DOOM_LOOP_THRESHOLD, DEFAULT_MAX_ITERATIONS } from '../../engine/base-agent';
import { DEFAULT_RETRY_POLICY } from '../../llm/resilient-stream';
import { DEFAULT_SANDBOX_MODE } from '../../tools/sandbox-setup';

export interface SettingSource {
  /** The value in force; undefined when nothing sets it and it has no default. */
  value: unknown;
  /** e.g. "default", "user file /home/me/.config/crow-agent/config.toml", "environment (CROW_MODEL)". */
  source: string;
}

/** Defaults that live in code rather than in the built-in document. */
const CODE_DEFAULTS: Record<string, unknown> = {
  default_agent: DEFAULT_AGENT,
  max_iterations: DEFAULT_MAX_ITERATIONS,
  doom_loop_threshold: DEFAULT_DOOM_LOOP_THRESHOLD,
  max_retries: DEFAULT_RETRY_POLICY.maxRetries,
  idle_timeout_ms: DEFAULT_RETRY_POLICY.idleTimeoutMs,
  sandbox: { mode: DEFAULT_SANDBOX_MODE, allow_domains: [], allow_ports: DEFAULT_SANDBOX_PORTS, allow_private_addresses: false, tmp_size_mb: DEFAULT_SANDBOX_TMP_SIZE_MB },
  'sandbox.mode': DEFAULT_SANDBOX_MODE,
  'sandbox.allow_domains': [],
  'sandbox.allow_ports': DEFAULT_SANDBOX_PORTS,
  'sandbox.allow_private_addresses': false,
  'sandbox.tmp_size_mb': DEFAULT_SANDBOX_TMP_SIZE_MB,
  'permissions.read': DEFAULT_POLICY.rules.read,
  'permissions.write': DEFAULT_POLICY.rules.write,
  'permissions.network': DEFAULT_POLICY.rules.network,
  'permissions.allow_commands': DEFAULT_POLICY.allowCommands,
  'undo.track_timeout_ms': DEFAULT_UNDO_TRACK_TIMEOUT_MS,
};

/** What the default of `permissions.execute` depends on, said where its value is shown. */
const EXECUTE_DEFAULT = `${DEFAULT_POLICY.rules.execute} (commands that run in the sandbox are allowed while permissions.execute is not set)`;

export function settingSource(root: string, env: NodeJS.ProcessEnv, path: readonly string[], trusted: boolean): SettingSource {
  const key = joinPath([...path]);
  const layers = settingsLayers(root, env);
  const project = trusted ? layers.project : judgeProjectSettings(layers.project, layers.baseline, layers.projectFile).restricted;
  const fromEnv = environmentValue(key, path, env);
  if (fromEnv) return fromEnv;
  const found = (value: unknown, source: string): SettingSource => ({ value, source });
  if (key === 'hooks' || key === 'claude_hooks') return addedUp(key, layers.user, project, globalConfigPath(env), layers.projectFile);
  const projectValue = valueAtPath(project, [...path]);
  if (projectValue !== undefined) return found(projectValue, `project file ${layers.projectFile}`);
  const userValue = valueAtPath(layers.user, [...path]);
  if (userValue !== undefined) return found(userValue, `user file ${globalConfigPath(env)}`);
  const builtin = valueAtPath(BUILTIN_DOCUMENT, [...path]);
  if (builtin !== undefined) return found(builtin, 'default');
  if (key === 'model') {
    const merged = mergeDocuments(BUILTIN_DOCUMENT, layers.user, project);
    const provider = env.CROW_PROVIDER ?? merged.provider ?? '';
    const model = merged.providers?.[provider]?.default_model;
    if (model !== undefined) return found(model, `default (providers.${provider}.default_model)`);
  }
  if (key === 'permissions.execute') return found(EXECUTE_DEFAULT, 'default');
  if (key in CODE_DEFAULTS) return found(CODE_DEFAULTS[key], 'default');
  return found(undefined, 'not set');
}

/** Hooks (and the Claude Code files they are read from) add up over the files, the user's first, instead of one file winning. */
function addedUp(key: 'hooks' | 'claude_hooks', user: SettingsDocument, project: SettingsDocument, userFile: string, projectFile: string): SettingSource {
  const mine: unknown[] = user[key] ?? [];
  const theirs: unknown[] = project[key] ?? [];
  const sources = [...(mine.length > 0 ? [`user file ${userFile}`] : []), ...(theirs.length > 0 ? [`project file ${projectFile}`] : [])];
  return sources.length === 0 ? { value: undefined, source: 'not set' } : { value: [...mine, ...theirs], source: sources.join(', then ') };
}

function environmentValue(key: string, path: readonly string[], env: NodeJS.ProcessEnv): SettingSource | undefined {
  const variable =
    key === 'provider' ? 'CROW_PROVIDER'
    : key === 'model' ? 'CROW_MODEL'
    : key === 'sandbox' || key === 'sandbox.mode' ? 'CROW_SANDBOX'
    : path.length === 3 && path[0] === 'providers' && path[2] === 'base_url' ? BASE_URL_VARIABLES[path[1]!]
    : undefined;
  const value = variable !== undefined ? env[variable]?.trim() : undefined;
  return value ? { value, source: `environment (${variable})` } : undefined;
}
