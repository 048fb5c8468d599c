/**
 * `crow config get/set agents.…`: seed 000's configuration commands for
 * agent definitions. `set` writes the user's override of the definition
 * (a copy of the one in force, with the field changed), or the project's
 * with --project; `get` prints the value in force and where it comes from.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { ConfinedFolder } from '../../tools/confined-folder';
import { basename, dirname } from 'node:path';
import type { z } from 'zod';
import { stringify } from 'smol-toml';
import { type AgentDefinition, BaseAgentSchema, parseACPAgent, parseBaseAgent } from '../../config/agent-definitions';
import { type AgentKey, frontmatterField } from '../../config/agent-keys';
import { fieldValue, frontmatterValue, type OverrideLayer, overrideTarget, withFrontmatterField } from '../../config/agent-override';
import { AgentRegistry } from '../../config/agent-registry';
import { fieldsAt, formatProblem } from '../../config/config-problems';
import { describeFlow } from '../../config/control-flow';
import { ACPAgentSchema } from '../../config/flow-definition';
import { agentModel, resolveSettings } from '../../config/provider-config';
import { ConfigError } from '../../config/settings';
import { DEFAULT_DOOM_LOOP_THRESHOLD, DEFAULT_MAX_ITERATIONS } from '../../engine/base-agent';
import { didYouMean } from '../../vocabulary/did-you-mean';
import { BUILTIN_TOOL_NAMES } from '../../vocabulary/tool-names';
import type { CliIO } from './cli-io';

interface Place {
  root: string;
  trusted: boolean;
}

export function getAgentSetting(place: Place, key: AgentKey, keyText: string, io: CliIO): number {
  const definition = inForce(place, key, io.env);
  const field = fieldOf(key, definition);
  const written = frontmatterValue(readFileSync(definition.file, 'utf8'), field);
  if (written !== undefined) {
    io.stdout.write(`${printable(written)}\n`);
    io.stderr.write(`crow: from ${definition.file} (${field}${originWord(definition)})\n`);
    return 0;
  }
  const fallback = defaultValue(place, definition, field, io.env);
  if (fallback === undefined) {
    io.stderr.write(`crow: ${keyText} (${field}) is not set in ${definition.file}, and has no default.\n`);
    return 1;
  }
  io.stdout.write(`${printable(fallback.value)}\n`);
  io.stderr.write(`crow: not set in ${definition.file}: ${fallback.source}\n`);
  return 0;
}

/** Changes the field in the layer's copy of the definition, after checking the new file alone and the agents as a whole. */
export async function setAgentSetting(place: Place & { layer: OverrideLayer }, key: AgentKey, keyText: string, text: string, io: CliIO): Promise<number> {
  const definition = inForce(place, key, io.env);
  const field = fieldOf(key, definition);
  const value = fieldValue(schemaOf(definition), field, text);
  const target = overrideTarget(definition, place.layer, place.root, io.env);
  const updated = withFrontmatterField(target.file, target.text, field, value);
  const file = { path: target.file, stem: basename(target.file, '.md'), text: updated };
  const parsed = definition.kind === 'base' ? parseBaseAgent(file, BUILTIN_TOOL_NAMES) : parseACPAgent(file);
  if (parsed.problems.length > 0) return refuse(parsed.problems.map(formatProblem), target.file, io);
  const files = definitionFiles(place);
  await files.write(target.file, updated);
  // What only shows among all the agents (a coagent the flow cannot use, a replaced definition an untrusted folder may not replace).
  const after = AgentRegistry.load(place.root, io.env, { trusted: place.trusted }).errors.filter((problem) => problem.file === target.file);
  if (after.length > 0) {
    if (target.copiedFrom !== undefined) await files.remove(target.file);
    else await files.write(target.file, target.text);
    return refuse(after.map(formatProblem), target.file, io);
  }
  const copied = target.copiedFrom !== undefined ? `; a new override of ${target.copiedFrom}` : '';
  io.stdout.write(`${keyText} = ${printable(value)} (${field} in ${target.file}${copied})\n`);
  if (place.layer === 'user' && definition.origin === 'project') {
    io.stderr.write(`crow: in this folder ${definition.file} still wins over yours; add --project to change that one.\n`);
  }
  return 0;
}

/**
 * How the layer's definition file is written: a project's without following
 * a link out of the project (one there was planted, not chosen); the user's
 * own as the user keeps it (their config may well be a link into dotfiles).
 */
function definitionFiles(place: Place & { layer: OverrideLayer }): { write(file: string, text: string): Promise<void>; remove(file: string): Promise<void> } {
  if (place.layer === 'project') {
    const project = new ConfinedFolder(place.root, 'inside');
    return { write: (file, text) => project.writeFile(file, text), remove: async (file) => void (await project.remove(file)) };
  }
  return {
    write: async (file, text) => {
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, text);
    },
    remove: async (file) => rmSync(file, { force: true }),
  };
}

function refuse(problems: string[], file: string, io: CliIO): number {
  for (const problem of problems) io.stderr.write(`crow: ${problem}\n`);
  io.stderr.write(`crow: nothing was written to ${file}.\n`);
  return 2;
}

/** The enabled definition of that kind whose name matches the key's, case aside. */
function inForce(place: Place, key: AgentKey, env: NodeJS.ProcessEnv): AgentDefinition {
  const { registry } = AgentRegistry.load(place.root, env, { trusted: place.trusted });
  const definitions: AgentDefinition[] = key.kind === 'base' ? registry.baseAgents() : registry.acpAgents();
  const found = definitions.find((definition) => definition.name.toLowerCase() === key.name.toLowerCase());
  if (found) return found;
  const names = definitions.map((definition) => definition.name);
  const guess = didYouMean(key.name.toLowerCase(), names);
  const kind = key.kind === 'base' ? 'base agent' : 'agent';
  throw new ConfigError(`Unknown ${kind} "${key.name}".${guess ? ` Did you mean "${guess}"?` : ''} ${key.kind === 'base' ? 'Base agents' : 'Agents'}: ${names.join(', ')}.`);
}

function schemaOf(definition: AgentDefinition): z.ZodType {
  return definition.kind === 'base' ? BaseAgentSchema() : ACPAgentSchema();
}

function fieldOf(key: AgentKey, definition: AgentDefinition): string {
  return frontmatterField(key, fieldsAt(schemaOf(definition), []), definition.kind === 'acp' ? definition.flow : undefined);
}

/** What applies when the definition does not set the field, and who says so; undefined when nothing does. */
function defaultValue(place: Place, definition: AgentDefinition, field: string, env: NodeJS.ProcessEnv): { value: unknown; source: string } | undefined {
  if (definition.kind === 'acp') {
    const flow = definition.flow;
    if (field === 'max_turns' && flow.kind !== 'hitl' && flow.kind !== 'coagent') return { value: flow.maxTurns, source: `the default of the ${flow.kind} flow` };
    if (field === 'max_rounds' && flow.kind === 'coagent') return { value: flow.maxRounds, source: `the default of its flow, ${describeFlow(flow)}` };
    if (field === 'can_terminate' && flow.kind === 'coagent') return { value: flow.canTerminate !== false, source: 'the default: the coagent may end the task' };
    return undefined;
  }
  const settings = resolveSettings(place.root, {}, env, { trusted: place.trusted });
  const { provider, model } = agentModel(settings, definition);
  switch (field) {
    case 'provider':
      return { value: provider, source: 'the default provider (config get provider)' };
    case 'model':
      return model !== undefined ? { value: model, source: `the default model of provider ${provider}` } : undefined;
    case 'max_iterations':
      return settings.maxIterations !== undefined
        ? { value: settings.maxIterations, source: 'the settings\' max_iterations (config get max_iterations)' }
        : { value: DEFAULT_MAX_ITERATIONS, source: 'the built-in default' };
    case 'doom_loop_threshold':
      return settings.doomLoopThreshold !== undefined
        ? { value: settings.doomLoopThreshold, source: 'the settings\' doom_loop_threshold' }
        : { value: DEFAULT_DOOM_LOOP_THRESHOLD, source: 'the built-in default' };
    case 'role':
      return { value: definition.role, source: 'the default role' };
    case 'tools':
      return { value: BUILTIN_TOOL_NAMES, source: 'every built-in tool (and no MCP tool unless named)' };
    default:
      return undefined;
  }
}

function originWord(definition: AgentDefinition): string {
  switch (definition.origin) {
    case 'builtin':
      return ', built in';
    case 'user':
      return ', your own definition';
    case 'project':
      return ", the project's definition";
    default:
      return '';
  }
}

function printable(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) return stringify(value).trimEnd();
  return JSON.stringify(value);
}
