import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import Handlebars from 'handlebars';
import { BUILTIN_SNAPSHOT } from '../../../src/config/builtin-snapshot';
import { PromptRegistry, TEMPLATE_OPTIONS } from '../../../src/config/prompts';

const ROOT = resolve(__dirname, '../../..');
const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

/**
 * The build stores each built-in prompt template precompiled, with the hash
 * of the text it compiled; the registry uses that only for a built-in file
 * whose text has that hash, and compiles anything else as ever.
 */
describe('built-in prompt templates precompiled by the build', () => {
  let base: string;
  let builtin: string;
  let bundle: string;
  const text = 'Hello {{name}}\n';

  beforeEach(() => {
    base = mkdtempSync(join(tmpdir(), 'crow-prompt-snapshot-'));
    builtin = join(base, 'package', 'prompts');
    bundle = join(base, 'package', 'dist');
    mkdirSync(builtin, { recursive: true });
    mkdirSync(bundle);
    writeFileSync(join(builtin, 'greet.hbs'), text);
  });
  afterEach(() => rmSync(base, { recursive: true, force: true }));

  /** A snapshot whose entry for greet.hbs carries `spec` under the hash of `forText`. */
  function snapshot(spec: string, forText = text): void {
    writeFileSync(join(bundle, BUILTIN_SNAPSHOT), JSON.stringify({ 'prompts/greet.hbs': { sha256: sha256(forText), template: spec } }));
  }
  // A spec compiled from other text shows which one rendered.
  const stored = (): string => Handlebars.precompile('Stored {{name}}\n', TEMPLATE_OPTIONS) as unknown as string;

  it("renders a built-in template from the build's spec when the file's text is the one the build compiled", () => {
    snapshot(stored());
    assert.equal(new PromptRegistry([], builtin, bundle).render('greet', { name: 'Ada' }), 'Stored Ada\n');
  });

  it('compiles a built-in template whose file was edited since the build', () => {
    snapshot(stored(), 'Hello {{name}}, as the build read it\n');
    assert.equal(new PromptRegistry([], builtin, bundle).render('greet', { name: 'Ada' }), 'Hello Ada\n');
  });

  it("compiles an override's template from its own file, even with a built-in's very text", () => {
    snapshot(stored());
    const override = join(base, 'override');
    mkdirSync(override);
    writeFileSync(join(override, 'greet.hbs'), text);
    assert.equal(new PromptRegistry([override], builtin, bundle).render('greet', { name: 'Ada' }), 'Hello Ada\n');
  });

  it('compiles the file when the stored spec does not evaluate, and keeps strict mode either way', () => {
    snapshot('not a spec (');
    const prompts = new PromptRegistry([], builtin, bundle);
    assert.equal(prompts.render('greet', { name: 'Ada' }), 'Hello Ada\n');
    snapshot(stored());
    assert.throws(() => new PromptRegistry([], builtin, bundle).render('greet', {}), /"name" not defined/);
  });

  it('holds, in the build beside the bundles, every built-in template as handlebars precompiles its text now', () => {
    const built = JSON.parse(readFileSync(join(ROOT, 'dist', BUILTIN_SNAPSHOT), 'utf8')) as Record<string, { sha256: string; template?: string }>;
    const names = readdirSync(join(ROOT, 'prompts')).filter((name) => name.endsWith('.hbs'));
    assert.ok(names.includes('system.hbs'));
    for (const name of names) {
      const source = readFileSync(join(ROOT, 'prompts', name), 'utf8');
      const entry = built[`prompts/${name}`];
      assert.equal(entry?.sha256, sha256(source), `${name} is stored with its text's hash (run npm run build)`);
      assert.equal(entry.template, Handlebars.precompile(source, TEMPLATE_OPTIONS) as unknown as string, name);
    }
  });
});
