import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { stringify } from 'smol-toml';
import { AgentRegistry } from '../../config/agent-registry';
import { type DefinitionError, fieldsAt, formatProblem, joinPath, schemaAt } from '../../config/config-problems';
import { didYouMean } from '../../config/did-you-mean';
import { ConfigError, loadSettingsDocument, resolveSettings } from '../../config/provider-config';
import {
  globalConfigPath,
  projectConfigPath,
  readRawDocument,
  readSettingsFile,
  SettingsFileSchema,
  validateDocument,
  writeDocument,
} from '../../config/settings-file';
import { parseKeyPath, parseValue, valueAtPath, withValueAt } from '../../config/settings-keys';
import { UsageError, type CliIO } from './cli-io';
import { trustedFolder } from './folder-trust-notice';

export const CONFIG_HELP = `Usage: crow config <command> [options]

Reads and changes the settings in config.toml: the user's
(~/.config/crow-agent/config.toml, XDG_CONFIG_HOME honoured) and the
project's (.crow/config.toml, which wins).

Commands:
  get KEY          print a setting as the files (and built-in defaults) set it;
                   environment overrides such as CROW_MODEL are not applied
  set KEY VALUE    change a setting in the user's file (--project: the project's);
                   the file is checked before it is written, comments are not kept
  validate         check both files, the providers and default_agent
  path             print the user's config file path (--project: the project's)

Keys are dotted: model, max_iterations, permissions.write,
providers.local.base_url, providers.openai.models."gpt-4.1".vision

Options:
  --cwd DIR     workspace root (default: the current folder)
  --project     set / path: the project's file instead of the user's
  -h, --help    show this help`;

export async function configCommand(argv: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      cwd: { type: 'string' },
      project: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  const [command, ...rest] = positionals;
  if (values.help || command === undefined) {
    io.stdout.write(`${CONFIG_HELP}\n`);
    return values.help ? 0 : 2;
  }
  const root = resolve(io.cwd, values.cwd ?? '.');
  const file = values.project ? projectConfigPath(root) : globalConfigPath(io.env);
  switch (command) {
    case 'get': {
      const [key] = argument(rest, 1, 'crow config get KEY');
      return getSetting(root, key!, io, await trustedFolder(root, io));
    }
    case 'set': {
      const [key, value] = argument(rest, 2, 'crow config set KEY VALUE [--project]');
      return setSetting(file, key!, value!, io);
    }
    case 'validate':
      return validateSettings(root, io, await trustedFolder(root, io));
    case 'path':
      io.stdout.write(`${file}\n`);
      return 0;
    default:
      throw new UsageError(`Unknown config command "${command}". Use get, set, validate or path (see crow config --help).`);
  }
}

function argument(rest: string[], count: number, usage: string): string[] {
  if (rest.length !== count) throw new UsageError(`Usage: ${usage}`);
  return rest;
}

function getSetting(root: string, key: string, io: CliIO, trusted: boolean): number {
  const path = knownKey(key);
  const value = valueAtPath(loadSettingsDocument(root, io.env, { trusted }), path);
  if (value === undefined) {
    io.stderr.write(`crow: ${key} is not set.\n`);
    return 1;
  }
  io.stdout.write(`${printable(value)}\n`);
  return 0;
}

function setSetting(file: string, key: string, text: string, io: CliIO): number {
  const path = knownKey(key);
  const raw = readRawDocument(file);
  if ('problem' in raw) throw new ConfigError(formatProblem(raw.problem));
  const value = parseValue(path, text);
  const updated = withValueAt(raw.data, path, value);
  const { problems } = validateDocument(file, updated);
  if (problems.length > 0) {
    for (const problem of problems) io.stderr.write(`crow: ${formatProblem(problem)}\n`);
    io.stderr.write(`crow: nothing was written to ${file}.\n`);
    return 1;
  }
  writeDocument(file, updated);
  io.stdout.write(`${joinPath(path)} = ${printable(value)} (in ${file})\n`);
  return 0;
}

function validateSettings(root: string, io: CliIO, trusted: boolean): number {
  const files = [globalConfigPath(io.env), projectConfigPath(root)];
  const problems = files.flatMap((file) => readSettingsFile(file).problems);
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
  const names = AgentRegistry.load(root, env, { trusted }).registry.acpAgents().map((agent) => agent.name);
  if (names.includes(defaultAgent)) return [];
  const guess = didYouMean(defaultAgent, names);
  const message = `unknown agent "${defaultAgent}"${guess ? ` (did you mean "${guess}"?)` : ''}. Agents: ${names.join(', ')}.`;
  return [{ file: merged, field: 'default_agent', message }];
}

/** The key as a path, if the settings schema has such a field; otherwise a ConfigError with a "did you mean". */
function knownKey(key: string): string[] {
  const path = parseKeyPath(key);
  if (schemaAt(SettingsFileSchema, path)) return path;
  const known = fieldsAt(SettingsFileSchema, path.slice(0, -1));
  const guess = didYouMean(path[path.length - 1]!, known);
  throw new ConfigError(`Unknown setting "${key}".${guess ? ` Did you mean "${joinPath([...path.slice(0, -1), guess])}"?` : ''}`);
}

function printable(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) return stringify(value).trimEnd();
  return JSON.stringify(value);
}
