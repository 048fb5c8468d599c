/**
 * `npm run gen:config`: writes what the configuration table gives (see
 * config-artefacts.ts) into package.json, package.nls.json,
 * schemas/config.schema.json and docs/configuration.md. With --check it
 * writes nothing and fails naming each file that differs.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { DOCS_FILE, referenceText, restrictedSettings, ROOT, SCHEMA_FILE, schemaText, vscodeProperties, vscodeTexts, withReference } from './config-artefacts';

/** package.json with its settings contributions and restricted settings from the table. */
export function manifestText(current: string): string {
  const manifest = JSON.parse(current) as { capabilities: { untrustedWorkspaces: { restrictedConfigurations: string[] } }; contributes: { configuration: { properties: unknown } } };
  manifest.capabilities.untrustedWorkspaces.restrictedConfigurations = restrictedSettings();
  manifest.contributes.configuration.properties = vscodeProperties();
  return `${JSON.stringify(manifest, null, 2)}\n`;
}

/** package.nls.json with the settings' texts from the table, every other text kept in place. */
export function nlsText(current: string): string {
  const texts = JSON.parse(current) as Record<string, string>;
  const others = Object.entries(texts).filter(([key]) => !key.startsWith('config.'));
  const at = Object.keys(texts).indexOf('configuration.title') + 1;
  const ordered = [...others.slice(0, at), ...Object.entries(vscodeTexts()), ...others.slice(at)];
  return `${JSON.stringify(Object.fromEntries(ordered), null, 2)}\n`;
}

function main(check: boolean): number {
  const read = (file: string): string => (existsSync(file) ? readFileSync(file, 'utf8') : '');
  const manifest = join(ROOT, 'package.json');
  const nls = join(ROOT, 'package.nls.json');
  const wanted: [string, string][] = [
    [manifest, manifestText(read(manifest))],
    [nls, nlsText(read(nls))],
    [SCHEMA_FILE, schemaText()],
    [DOCS_FILE, withReference(read(DOCS_FILE), referenceText())],
  ];
  const stale = wanted.filter(([file, text]) => read(file) !== text);
  if (check) {
    for (const [file] of stale) process.stderr.write(`gen-config: ${relative(ROOT, file)} is not what src/config/config-keys.ts says: run npm run gen:config\n`);
    return stale.length > 0 ? 1 : 0;
  }
  for (const [file, text] of stale) {
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, text);
    process.stdout.write(`gen-config: wrote ${relative(ROOT, file)}\n`);
  }
  return 0;
}

if (require.main === module) process.exitCode = main(process.argv.includes('--check'));
