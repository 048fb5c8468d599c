/**
 * The configuration table drives every artefact made from it: VS Code's
 * settings contributions and texts, the JSON Schema of config.toml, the
 * reference in docs/configuration.md and the environment variables the code
 * reads. Each differs from the table only when someone edits a copy by hand;
 * then one of these fails, and `npm run gen:config` puts it right.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import { parse } from 'smol-toml';
import { CONFIG_KEYS, type ConfigKey } from '../../../src/config/config-keys';
import { OTHER_VARIABLES, SET_VARIABLES } from '../../../src/config/keys/environment';
import { SettingsFileSchema } from '../../../src/config/settings-file';
import { DOCS_FILE, REFERENCE_END, REFERENCE_START, referenceText, ROOT, SCHEMA_FILE, schemaText } from '../../../scripts/config-artefacts';
import { manifestText, nlsText } from '../../../scripts/gen-config';

const read = (file: string): string => readFileSync(file, 'utf8');

function filesUnder(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => (entry.isDirectory() ? filesUnder(join(folder, entry.name)) : entry.name.endsWith('.ts') ? [join(folder, entry.name)] : []));
}

/** Source text without its comments, so a variable named in a comment does not count as read. */
const code = (text: string): string => text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`])\/\/.*$/gm, '$1');

describe('the configuration table', () => {
  it("is what package.json contributes to VS Code's settings, in its order, and what Restricted Mode holds back", () => {
    const manifest = read(join(ROOT, 'package.json'));
    assert.equal(manifestText(manifest), manifest, 'package.json differs from src/config/config-keys.ts: run npm run gen:config');
    const properties = (JSON.parse(manifest) as { contributes: { configuration: { properties: Record<string, { order: number; default: unknown; enum?: unknown[] }> } } }).contributes.configuration.properties;
    const orders = Object.values(properties).map((property) => property.order);
    assert.deepEqual(orders, orders.map((_, index) => index + 1), 'every setting has its own place, in the order listed');
    assert.deepEqual(Object.keys(properties).slice(0, 2), ['crow.provider', 'crow.model']);
    for (const [name, property] of Object.entries(properties)) {
      if (property.enum) assert.ok(property.enum.includes(property.default), `${name}: its default is one of its values, never blank`);
    }
  });

  it("is what package.nls.json says of each setting, with the default's label saying so", () => {
    const nls = read(join(ROOT, 'package.nls.json'));
    assert.equal(nlsText(nls), nls, 'package.nls.json differs from src/config/config-keys.ts: run npm run gen:config');
    assert.equal((JSON.parse(nls) as Record<string, string>)['config.compaction.enumItemLabels.auto'], 'Default (auto)');
  });

  it('is the JSON Schema of config.toml in schemas/', () => {
    assert.equal(read(SCHEMA_FILE), schemaText(), 'schemas/config.schema.json differs: run npm run gen:config');
  });

  it('is the reference section of docs/configuration.md', () => {
    const doc = read(DOCS_FILE);
    const section = doc.slice(doc.indexOf(REFERENCE_START), doc.indexOf(REFERENCE_END) + REFERENCE_END.length);
    assert.equal(section, referenceText(), 'docs/configuration.md differs: run npm run gen:config');
    for (const row of CONFIG_KEYS.filter((candidate: ConfigKey) => candidate.file !== false && candidate.schema)) assert.ok(section.includes(`\`${row.key}\``), row.key);
  });

  it('names every CROW_ variable the code reads, and each variable it names is read', () => {
    // Names in the code that are not variables of yours: constants, a build-time define, a prefix of names Crow gives.
    const notVariables = new Set(['CROW_VENDOR', 'CROW_IDENTITY', 'CROW_BUNDLE_SHA256', 'CROW_IMPORTED_MCP_SECRET_']);
    const source = filesUnder(join(ROOT, 'src')).map((file) => code(read(file))).join('\n');
    const inCode = new Set([...source.matchAll(/\bCROW_[A-Z0-9_]+/g)].map((match) => match[0]).filter((name) => !notVariables.has(name)));
    const tableVariables = CONFIG_KEYS.flatMap((row: ConfigKey) => [...(row.env ? [row.env] : []), ...Object.values(row.namedEnv?.variables ?? {})]);
    const named = new Set([...tableVariables, ...OTHER_VARIABLES.map((variable) => variable.name), ...SET_VARIABLES.map((variable) => variable.name)]);
    assert.deepEqual([...inCode].filter((name) => !named.has(name)).sort(), [], 'a variable the code reads is missing from src/config/keys/');
    assert.deepEqual([...named].filter((name) => !new RegExp(`\\b${name}\\b`).test(source)).sort(), [], 'the table names a variable no code reads');
  });
});

describe('the JSON Schema of config.toml', () => {
  const ajv = new Ajv({ allErrors: true, strict: false });
  addFormats(ajv);
  const validate = ajv.compile(JSON.parse(read(SCHEMA_FILE)) as object);

  /** The TOML the tests write as config.toml (every string literal of a test that parses to a table the loader accepts), and the docs' example. */
  function samples(): { where: string; data: Record<string, unknown> }[] {
    const found: { where: string; data: Record<string, unknown> }[] = [];
    const docs = read(DOCS_FILE);
    for (const [, toml] of docs.matchAll(/```toml\n([\s\S]*?)```/g)) found.push({ where: 'docs/configuration.md', data: parse(toml!) as Record<string, unknown> });
    for (const file of [...filesUnder(join(ROOT, 'test', 'unit')), ...filesUnder(join(ROOT, 'test', 'integration'))]) {
      const text = read(file);
      if (!text.includes('config.toml')) continue;
      for (const [, literal] of text.matchAll(/'((?:[^'\\\n]|\\.)*\\n(?:[^'\\\n]|\\.)*)'/g)) {
        let data: unknown;
        try {
          data = parse((JSON.parse(`"${literal!.replace(/"/g, '\\"').replace(/\\'/g, "'")}"`) as string));
        } catch {
          continue;
        }
        if (SettingsFileSchema().safeParse(data).success && Object.keys(data as object).length > 0) found.push({ where: file.slice(ROOT.length + 1), data: JSON.parse(JSON.stringify(data)) as Record<string, unknown> });
      }
    }
    return found;
  }

  it('accepts every config.toml the tests and the docs use', () => {
    const all = samples();
    assert.ok(all.length >= 30, `only ${all.length} samples found`);
    const refused = all.filter((sample) => !validate(sample.data)).map((sample) => `${sample.where}: ${JSON.stringify(sample.data)} ${ajv.errorsText(validate.errors)}`);
    assert.deepEqual(refused, []);
  });

  it('refuses what the loader refuses for its shape: an unknown key, a misspelt choice, a wrong type, a key where a variable name belongs', () => {
    const bad: Record<string, unknown>[] = [
      { max_iteration: 5 },
      { sandbox: 'sometimes' },
      { sandbox: { mode: 'auto', allow_ports: [70000] } },
      { permissions: { write: 'maybe' } },
      { providers: { local: { type: 'ollama' } } },
      { max_iterations: '50' },
      { limits: { max_cost_per_prompt: -1 } },
      { compaction: '' },
      { mcp_servers: { db: { command: 'x', timeout: 3 } } },
      { hooks: [{ event: 'stop' }] },
      { hooks: [{ event: 'PreToolUse', command: 'npm test' }] },
    ];
    for (const data of bad) {
      assert.equal(SettingsFileSchema().safeParse(data).success, false, `the loader refuses ${JSON.stringify(data)}`);
      assert.equal(validate(data), false, `the JSON Schema refuses ${JSON.stringify(data)}`);
    }
    assert.equal(validate({ sandbox: 'off', compaction: 'off', providers: { local: { type: 'openai', base_url: 'http://localhost:11434/v1' } } }), true);
  });
});
