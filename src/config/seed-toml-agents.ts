/**
 * Agent definitions in seed 000's TOML form (`agents/base/NAME.toml`,
 * `agents/acp/NAME.toml`), read as the markdown form's fields so one parser
 * checks both: a base agent's [agent], [model], [tools], [react] and
 * [prompt] tables, an ACP agent's [agent], [composition], [control_flow]
 * and [handoff]. A system prompt given as `{ file = "prompts/…" }` is read
 * from the same configuration folder (the one holding `agents/`), never
 * from outside it. What each table became is said in a hint that
 * `crow agents show` and `validate` print; anything the form does not have
 * is a problem naming the nearest table or key.
 */
import { readFileSync, realpathSync } from 'node:fs';
import { dirname, isAbsolute, join } from 'node:path';
import { didYouMean } from '../vocabulary/did-you-mean';
import { namesWithin } from '../vocabulary/path-semantics';
import type { DefinitionHint } from './agent-frontmatter-forms';
import type { DefinitionError } from './config-problems';
import type { MarkdownFile } from './markdown-files';
import { tomlDocument } from './settings-file';

export type SeedFields = { data: Record<string, unknown>; body: string; hints: DefinitionHint[] } | { problems: DefinitionError[] };

/** Each table of a base agent's file, and the markdown field each key becomes. */
const BASE_TABLES: Record<string, Record<string, string>> = {
  agent: { name: 'name', role: 'role', description: 'description', enabled: 'enabled' },
  model: { provider: 'provider', model: 'model', temperature: 'temperature', max_tokens: 'max_tokens' },
  tools: { enabled: 'tools' },
  react: { max_iterations: 'max_iterations', doom_loop_threshold: 'doom_loop_threshold' },
  prompt: { system: 'body' },
  permissions: {},
};

const ACP_TABLES: Record<string, Record<string, string>> = {
  agent: { name: 'name', description: 'description', enabled: 'enabled' },
  composition: { primary: 'primary', coagent: 'coagent' },
  control_flow: { type: 'flow', max_iterations: 'max_rounds', max_turns: 'max_rounds', max_rounds: 'max_rounds', can_terminate: 'can_terminate', coagent_tools: 'coagent_tools' },
  handoff: { type: 'handoff', template: 'handoff', text: 'handoff', generator_prompt: 'handoff' },
};

/** The flows of Crow's markdown form that seed 000's control_flow types name (theirs in any case). */
const FLOW_TYPES: Record<string, string> = { hitl: 'hitl', loop: 'loop', judge: 'judge', smart: 'smart', chat: 'chat', verify: 'verify', static: 'static', generated: 'generated' };

export function seedTomlFields(file: MarkdownFile, kind: 'base' | 'acp'): SeedFields {
  let document: Record<string, unknown>;
  try {
    document = tomlDocument(file.text);
  } catch (err) {
    return { problems: [{ file: file.path, message: `not valid TOML: ${(err as Error).message}` }] };
  }
  const tables = kind === 'base' ? BASE_TABLES : ACP_TABLES;
  const problems = unknownKeys(file.path, document, tables);
  if (problems.length > 0) return { problems };
  const fields = kind === 'base' ? baseFields(file, document) : acpFields(file.path, document);
  if ('problems' in fields) return fields;
  const read = Object.keys(document).map((table) => `[${table}]`).join(', ');
  const hint = { file: file.path, field: 'format', message: `seed 000's TOML form: ${read || 'no tables'} read as this agent's ${kind === 'base' ? 'base' : 'ACP'} agent fields.` };
  return { ...fields, hints: [hint, ...fields.hints] };
}

function baseFields(file: MarkdownFile, document: Record<string, unknown>): SeedFields {
  const data: Record<string, unknown> = {};
  for (const table of ['agent', 'model', 'react'] as const) {
    for (const [key, value] of Object.entries(table in document ? (document[table] as Record<string, unknown>) : {})) data[BASE_TABLES[table]![key]!] = value;
  }
  const tools = (document.tools as Record<string, unknown> | undefined)?.enabled;
  if (tools !== undefined) data.tools = tools;
  if (document.permissions !== undefined) data.permissions = document.permissions;
  const system = (document.prompt as Record<string, unknown> | undefined)?.system;
  if (system === undefined) return { data, body: '', hints: [] };
  if (typeof system === 'string') return { data, body: system.trim(), hints: [] };
  const reference = typeof system === 'object' && system !== null && Object.keys(system).length === 1 ? (system as Record<string, unknown>).file : undefined;
  if (typeof reference !== 'string') {
    return { problems: [{ file: file.path, field: 'prompt.system', message: 'give the system prompt as text, or as { file = "prompts/system/NAME.md" } (a file beside agents/).' }] };
  }
  const body = promptFile(file.path, reference);
  if ('problem' in body) return { problems: [{ file: file.path, field: 'prompt.system.file', message: body.problem }] };
  const hint = { file: file.path, field: 'prompt.system', message: `the system prompt is ${body.path}.` };
  return { data, body: body.text, hints: [hint] };
}

/** The text of a system prompt file named relative to the configuration folder holding agents/ (it may not lead out of that folder). */
function promptFile(definition: string, reference: string): { text: string; path: string } | { problem: string } {
  // NAME.toml sits in <root>/agents/base/.
  const root = dirname(dirname(dirname(definition)));
  if (isAbsolute(reference)) return { problem: `"${reference}" is an absolute path: name the file relative to ${root}.` };
  const path = join(root, reference);
  const outside = { problem: `"${reference}" leads out of ${root}, where the definition's files must be.` };
  // Checked as written, then as the disk resolves it (a symbolic link may lead out too).
  if (!within(root, path)) return outside;
  try {
    const real = realpathSync(path);
    if (!within(realpathSync(root), real)) return outside;
    return { text: readFileSync(real, 'utf8').replace(/^\uFEFF/, '').trim(), path };
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return { problem: code === 'ENOENT' ? `${path} does not exist.` : `cannot read ${path}: ${(err as Error).message}` };
  }
}

function within(root: string, path: string): boolean {
  return (namesWithin(root, path)?.length ?? 0) > 0;
}

function acpFields(file: string, document: Record<string, unknown>): SeedFields {
  const table = (name: string): Record<string, unknown> => (name in document ? (document[name] as Record<string, unknown>) : {});
  const data: Record<string, unknown> = { ...table('agent'), ...table('composition') };
  const hints: DefinitionHint[] = [];
  const flow = table('control_flow');
  if (flow.type !== undefined) {
    const type = FLOW_TYPES[String(flow.type).toLowerCase()];
    if (type === undefined) {
      const guess = didYouMean(String(flow.type), Object.keys(FLOW_TYPES));
      return { problems: [{ file, field: 'control_flow.type', message: `unknown control flow "${String(flow.type)}"${guess ? ` (did you mean "${guess}"?)` : ''}. Use ${Object.keys(FLOW_TYPES).join(', ')}.` }] };
    }
    data.flow = type;
  }
  const rounds = flow.max_rounds ?? flow.max_iterations ?? flow.max_turns;
  if (rounds !== undefined) {
    // Seed 000 counts a loop without a coagent in turns of the primary, every other flow in rounds of work and review.
    const field = data.flow === 'loop' && data.coagent === undefined ? 'max_turns' : ['static', 'generated'].includes(String(data.flow)) ? 'max_turns' : 'max_rounds';
    data[field] = rounds;
    const given = flow.max_rounds !== undefined ? 'max_rounds' : flow.max_iterations !== undefined ? 'max_iterations' : 'max_turns';
    if (given !== field) hints.push({ file, field: `control_flow.${given}`, message: `read as ${field}.` });
  }
  for (const key of ['can_terminate', 'coagent_tools'] as const) if (flow[key] !== undefined) data[key] = flow[key];
  const handoff = handoffOf(file, table('handoff'));
  if (handoff?.problem !== undefined) return { problems: [{ file, field: 'handoff', message: handoff.problem }] };
  if (handoff) data.handoff = handoff.handoff;
  return { data, body: '', hints };
}

/** Seed 000's [handoff]: a template written in place, a fixed text, or a generator prompt. */
function handoffOf(file: string, handoff: Record<string, unknown>): { handoff: Record<string, string>; problem?: undefined } | { problem: string } | undefined {
  if (Object.keys(handoff).length === 0) return undefined;
  const type = String(handoff.type ?? 'template').toLowerCase();
  const text = handoff.template ?? handoff.text ?? handoff.generator_prompt;
  if (typeof text !== 'string' || text.trim() === '') return { problem: `a ${type} handoff needs its text: template = """…""" (or text, or generator_prompt for a generated one).` };
  switch (type) {
    case 'template':
      return { handoff: { inline: text.trim() } };
    case 'static':
      return { handoff: { static: text.trim() } };
    case 'generated':
      return { handoff: { generated: text.trim() } };
    default: {
      const guess = didYouMean(type, ['template', 'static', 'generated']);
      return { problem: `unknown handoff type "${type}"${guess ? ` (did you mean "${guess}"?)` : ''}: use template, static or generated (in ${file}).` };
    }
  }
}

/** Tables and keys the form does not have, each with the nearest one it does. */
function unknownKeys(file: string, document: Record<string, unknown>, tables: Record<string, Record<string, string>>): DefinitionError[] {
  return Object.entries(document).flatMap(([name, table]): DefinitionError[] => {
    const known = tables[name];
    if (known === undefined) {
      const guess = didYouMean(name, Object.keys(tables));
      return [{ file, field: name, message: `unknown table [${name}]${guess ? ` (did you mean [${guess}]?)` : ''}. This form has ${Object.keys(tables).map((t) => `[${t}]`).join(', ')}.` }];
    }
    if (typeof table !== 'object' || table === null || Array.isArray(table)) return [{ file, field: name, message: `[${name}] must be a table.` }];
    // [permissions] is checked as the markdown form's permissions are.
    if (name === 'permissions') return [];
    return Object.keys(table).flatMap((key) => {
      if (key in known) return [];
      const guess = didYouMean(key, Object.keys(known));
      return [{ file, field: `${name}.${key}`, message: `unknown key${guess ? ` (did you mean "${guess}"?)` : ''}. [${name}] takes ${Object.keys(known).join(', ')}.` }];
    });
  });
}
