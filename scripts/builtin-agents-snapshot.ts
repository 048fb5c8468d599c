/**
 * Writes the snapshot of the built-in agent definitions (see
 * src/config/builtin-agents.ts): `node <this, bundled> <package root> <out file>`.
 * Run by esbuild.mjs after each build, with the parser of that build.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { AGENT_PARSERS } from '../src/config/agent-registry';
import { type BuiltinSnapshot, snapshotEntry } from '../src/config/builtin-agents';
import { readMarkdownFiles } from '../src/config/markdown-files';

const [root, out] = process.argv.slice(2);
if (!root || !out) throw new Error('usage: builtin-agents-snapshot <package root> <out file>');
const snapshot: BuiltinSnapshot = {};
for (const [folder, parse] of Object.entries(AGENT_PARSERS)) {
  for (const file of readMarkdownFiles(join(root, folder))) {
    const entry = snapshotEntry(root, file, parse(file));
    if (entry) snapshot[entry[0]] = entry[1];
  }
}
writeFileSync(out, `${JSON.stringify(snapshot)}\n`);
