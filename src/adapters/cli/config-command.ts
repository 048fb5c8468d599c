import { seedProviders } from '../../config/seed-providers';
import { existsSync } from 'node:fs';
import { stringify } from 'smol-toml';
import { AgentRegistry } from '../../config/agent-registry';
import { type DefinitionError, fieldsAt, formatProblem, joinPath, schemaAt } from '../../config/config-problems';
import { didYouMean } from '../../vocabulary/did-you-mean';
import { decideTrust, trustCommandFor } from '../../config/folder-trust';
import { judgeProjectSettings } from '../../config/project-trust';
import { resolveSettings, settingsLayers, settingsOf } from '../../config/provider-config';
import { ConfigError } from '../../config/settings';
import {
  BUILTIN_DOCUMENT,
  globalConfigPath,
  mergeDocuments,
  projectConfigPath,
  readRawDocument,
  readSettingsFile,
  SettingsFileSchema,
  type SettingsDocument,
  validateDocument,
  replacementText,
  writeDocument,
} from '../../config/settings-file';
import { parseKeyPath, parseValue, withValueAt } from '../../config/settings-keys';
import { agentKeyOf } from '../../config/agent-keys';
import { ConfinedFolder } from '../../tools/confined-folder';
import { getAgentSetting, setAgentSetting } from './agent-config';
import { explainKey, listKeys } from './config-explain';
import { commandArgs, workspaceFolder } from './cli-args';
import { UsageError, type CliIO } from './cli-io';
import { trustedFolder } from './folder-trust-notice';
import { settingSource } from './setting-sources';

export const CONFIG_HELP = `Usage: crow config <command> [options]

Reads and changes the settings in config.toml: the user's
(~/.config/crow-agent/config.toml, XDG_CONFIG_HOME honoured) and the
project's (.crow/config.toml, which wins).

Commands:
  get KEY          print the value in force (stdout) and where it comes from
                   (stderr): environment (CROW_PROVIDER, CROW_MODEL,
                   CROW_SANDBOX, *_BASE_URL: explain names a key's), project
                   file, user file or default; a flag such as crow run
                   --model wins for its run
  set KEY VALUE    change a setting in the user's file (--project: the project's);
                   the file is checked before it is written, comments are not kept
  list             every key, with one line of help
  explain KEY      what a key takes, its default, what an untrusted project may
                   do with it, its VS Code setting and environment variable
  validate         check both files, the providers and default_agent
  path             print the user's config file path (--project: the project's)

Keys are dotted: model, max_iterations, permissions.write,
providers.local.base_url, providers.openai.models."gpt-4.1".vision

Agent definitions too, in seed 000's spelling or by frontmatter field:
  agents.base.NAME.model.model       agents.base.NAME.react.max_iterations
  agents.acp.NAME.control_flow.max_iterations (max_turns, or max_rounds
  for reviewed flows), agents.base.NAME.tools, agents.acp.NAME.coagent, …
set writes your override of the definition (a copy of the one in force,
in ~/.config/crow-agent/agents/; --project: .crow/agents/), checked first.

Options:
  --cwd DIR     workspace root (default: the current folder)
  --project     set / path: the project's file instead of the user's
  -h, --help    show this help`;

export async function configCommand(argv: string[], io: CliIO): Promise<number> {
  const { values, positionals } = commandArgs('config', argv, {
    cwd: { type: 'string' },
    project: { type: 'boolean', default: false },
  });
  const [command, ...rest] = positionals;
  if (values.help) {
    io.stdout.write(`${CONFIG_HELP}\n`);
    return 0;
  }
  if (command === undefined) throw new UsageError('crow config needs a command: get KEY, set KEY VALUE, list, explain KEY, validate or path (see crow config --help).');
  const root = workspaceFolder(io.cwd, values.cwd);
  const file = values.project ? projectConfigPath(root) : globalConfigPath(io.env);
  switch (command) {
    case 'get': {
      const [key] = argument(rest, 1, 'crow config get KEY');
      const agent = agentKeyOf(parseKeyPath(key!));
      if (agent) return getAgentSetting({ root, trusted: await trustedFolder(root, io) }, agent, key!, io);
      return getSetting(root, key!, io, await trustedFolder(root, io));
    }
    case 'set': {
      const [key, value] = argument(rest, 2, 'crow config set KEY VALUE [--project]');
      const agent = agentKeyOf(parseKeyPath(key!));
      const trusted = await trustedFolder(root, io);
      if (agent) return await setAgentSetting({ root, trusted, layer: values.project ? 'project' : 'user' }, agent, key!, value!, io);
      const code = await setSetting(file, key!, value!, io, { root, trusted, project: values.project });
      if (code === 0 && values.project) await tellIfIgnored(root, joinPath(parseKeyPath(key!)), io);
      return code;
    }
    case 'list':
      argument(rest, 0, 'crow config list');
      return listKeys(io);
    case 'explain': {
      const [key] = argument(rest, 1, 'crow config explain KEY');
      return explainKey(knownKey(key!), io);
    }
    case 'validate':
      return validateSettings(root, io, await trustedFolder(root, io));
    case 'path':
      io.stdout.write(`${file}\n`);
      return 0;
    default:
      throw new UsageError(`Unknown config command "${command}". Use get, set, list, explain, validate or path (see crow config --help).`);
  }
}

function argument(rest: string[], count: number, usage: string): string[] {
  if (rest.length !== count) throw new UsageError(`Usage: ${usage}`);
  return rest;
}

/** The value in force on stdout (for scripts); where it comes from on stderr (for people). */
function getSetting(root: string, key: string, io: CliIO, trusted: boolean): number {
  const path = knownKey(key);
  // An untrusted folder's ignored project settings were already named by trustedFolder().
  const { value, source } = settingSource(root, io.env, path, trusted);
  if (value === undefined) {
    io.stderr.write(`crow: ${key} is not set, and has no default.\n`);
    return 1;
  }
  io.stdout.write(`${printable(value)}\n`);
  io.stderr.write(`crow: from ${source}\n`);
  return 0;
}

/**
 * Changes one setting in `file`, after checking the file alone and the
 * settings once merged with the other file (a provider without a type only
 * shows then); on any problem nothing is written.
 */
async function setSetting(file: string, key: string, text: string, io: CliIO, context: { root: string; trusted: boolean; project: boolean }): Promise<number> {
  const path = knownKey(key);
  const raw = readRawDocument(file);
  if ('problem' in raw) throw new ConfigError(formatProblem(raw.problem));
  const value = parseValue(path, text);
  const updated = withValueAt(raw.data, path, value);
  const { document, problems } = validateDocument(file, updated);
  if (problems.length === 0) {
    const merged = mergedProblem(context, document, io.env);
    if (merged) problems.push({ file: 'config.toml (user and project merged)', message: merged });
  }
  if (problems.length > 0) {
    for (const problem of problems) io.stderr.write(`crow: ${formatProblem(problem)}\n`);
    io.stderr.write(`crow: nothing was written to ${file}.\n`);
    return 2;
  }
  // A project's file is written without following a link out of the project: one there was planted, not chosen.
  if (context.project) await new ConfinedFolder(context.root, 'inside').writeFile(file, replacementText(file, updated));
  else writeDocument(file, updated);
  io.stdout.write(`${joinPath(path)} = ${printable(value)} (in ${file})\n`);
  return 0;
}

/**
 * After a project setting was written: when the folder's trust does not
 * cover it (it asks for more than an untrusted folder gets), says that it is
 * ignored until the folder is trusted, and how to trust it.
 */
async function tellIfIgnored(root: string, key: string, io: CliIO): Promise<void> {
  const decision = await decideTrust(root, { env: io.env });
  if (decision.trusted) return;
  const ignored = decision.request.widenings.some(({ setting }) => setting === key || key.startsWith(`${setting}.`) || setting.startsWith(`${key}.`));
  if (!ignored) return;
  const why = decision.how === 'changed' ? 'now asks for something other than what you trusted' : 'is not trusted';
  io.stderr.write(`crow: this folder ${why}, so ${key} from its .crow/config.toml is ignored until you trust it: ${trustCommandFor(root)}\n`);
}

/** What is wrong with the settings once `changed` takes the place of its file; undefined when nothing is. */
function mergedProblem(context: { root: string; trusted: boolean; project: boolean }, changed: SettingsDocument, env: NodeJS.ProcessEnv): string | undefined {
  try {
    const layers = settingsLayers(context.root, env);
    const user = context.project ? layers.user : changed;
    const ownProject = context.project ? changed : layers.project;
    const baseline = mergeDocuments(BUILTIN_DOCUMENT, user);
    const project = context.trusted ? ownProject : judgeProjectSettings(ownProject, baseline, layers.projectFile).restricted;
    settingsOf(mergeDocuments(BUILTIN_DOCUMENT, user, project), {}, env, context.trusted);
    return undefined;
  } catch (err) {
    if (err instanceof ConfigError) return err.message;
    throw err;
  }
}

function validateSettings(root: string, io: CliIO, trusted: boolean): number {
  const files = [globalConfigPath(io.env), projectConfigPath(root)];
  const problems = [...files.flatMap((file) => readSettingsFile(file).problems), ...seedProviders(io.env).problems];
  if (problems.length === 0) problems.push(...crossFileProblems(root, io.env, trusted));
  for (const problem of problems) io.stdout.write(`${formatProblem(problem)}\n`);
  if (problems.length > 0) {
    io.stdout.write(`${problems.length} problem${problems.length === 1 ? '' : 's'} found.\n`);
    return 1;
  }
  const found = files.map((file) => `${file} (${existsSync(file) ? 'valid' : 'not present'})`);
  io.stdout.write(`Settings are valid: ${found.join(', ')}.\n`);
  return 0;
}

/** What only shows once the files are merged: providers without a type, an unknown default provider or agent. */
function crossFileProblems(root: string, env: NodeJS.ProcessEnv, trusted: boolean): DefinitionError[] {
  const merged = 'config.toml (user and project merged)';
  let defaultAgent: string | undefined;
  try {
    defaultAgent = resolveSettings(root, {}, env, { trusted }).defaultAgent;
  } catch (err) {
    if (err instanceof ConfigError) return [{ file: merged, message: err.message }];
    throw err;
  }
  if (defaultAgent === undefined) return [];
  const { registry } = AgentRegistry.load(root, env, { trusted });
  const names = registry.acpAgents().map((agent) => agent.name);
  if (names.includes(registry.named(defaultAgent))) return [];
  const guess = didYouMean(defaultAgent, names);
  const message = `unknown agent "${defaultAgent}"${guess ? ` (did you mean "${guess}"?)` : ''}. Agents: ${names.join(', ')}.`;
  return [{ file: merged, field: 'default_agent', message }];
}

/** The key as a path, if the settings schema has such a field; otherwise a ConfigError with a "did you mean" at the first unknown part. */
function knownKey(key: string): string[] {
  const path = parseKeyPath(key);
  if (schemaAt(SettingsFileSchema(), path)) return path;
  const known = path.findIndex((_, i) => !schemaAt(SettingsFileSchema(), path.slice(0, i + 1)));
  const parent = path.slice(0, known);
  const guess = didYouMean(path[known]!, fieldsAt(SettingsFileSchema(), parent));
  const suggestion = guess ? joinPath([...parent, guess, ...path.slice(known + 1)]) : undefined;
  throw new ConfigError(`Unknown setting "${key}".${suggestion ? ` Did you mean "${suggestion}"?` : ''} crow config list shows the keys.`);
}

function printable(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) return stringify(value).trimEnd();
  return JSON.stringify(value);
}
