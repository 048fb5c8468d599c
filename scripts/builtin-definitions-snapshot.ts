/**
 * Writes the snapshot of the built-in agent and slash command definitions,
 * of the prompt templates, precompiled, and of the built-in tools' JSON
 * Schemas (see src/config/builtin-snapshot.ts): `node <this, bundled>
 * <package root> <out file>`. Run by esbuild.mjs after each build, with that
 * build's parsers.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Handlebars from 'handlebars';
import { AGENT_PARSERS } from '../src/config/agent-registry';
import { type BuiltinSnapshot, snapshotEntry, templateEntry, toolSchemaEntry } from '../src/config/builtin-snapshot';
import { type MarkdownFile, readMarkdownFiles } from '../src/config/markdown-files';
import { TEMPLATE_OPTIONS } from '../src/config/prompts';
import { parseCommand } from '../src/config/slash-commands';
import { builtinTools } from '../src/tools/registry';

const [root, out] = process.argv.slice(2);
if (!root || !out) throw new Error('usage: builtin-definitions-snapshot <package root> <out file>');
const snapshot: BuiltinSnapshot = {};
const store = (folder: string, define: (file: MarkdownFile) => { file: string } | undefined): void => {
  for (const file of readMarkdownFiles(join(root, folder))) {
    const entry = snapshotEntry(root, file, define(file));
    if (entry) snapshot[entry[0]] = entry[1];
  }
};
for (const [folder, parse] of Object.entries(AGENT_PARSERS)) store(folder, (file) => parse(file).definition);
store('commands', (file) => {
  const parsed = parseCommand(file);
  return 'problems' in parsed ? undefined : parsed;
});
// The prompt templates, precompiled as the registry compiles them.
for (const name of readdirSync(join(root, 'prompts')).filter((file) => file.endsWith('.hbs'))) {
  const path = join(root, 'prompts', name);
  const text = readFileSync(path, 'utf8');
  const [entry, value] = templateEntry(root, path, text, Handlebars.precompile(text, TEMPLATE_OPTIONS) as unknown as string);
  snapshot[entry] = value;
}
// The built-in tools' JSON Schemas, derived from their parameters as a run derives them (no snapshot beside this script).
for (const tool of builtinTools()) {
  const [entry, value] = toolSchemaEntry(tool.name, tool.description, tool.inputSchema);
  snapshot[entry] = value;
}
writeFileSync(out, `${JSON.stringify(snapshot)}\n`);
