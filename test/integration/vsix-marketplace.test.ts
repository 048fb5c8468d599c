import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseVsixManifest, registryProblems, validateVsix, vsixFile, zipEntries } from '../../scripts/vsix-validate';

const ROOT = join(__dirname, '..', '..');
const VSCE = join(ROOT, 'node_modules', '.bin', 'vsce');

/** vsce package as scripts/package.ts runs it (there after a production build; here on the bundles `npm run build` made). */
function pack(cwd: string, out: string): { status: number | null; output: string } {
  const result = spawnSync(VSCE, ['package', '--no-dependencies', '--no-rewrite-relative-links', '--out', out], { cwd, encoding: 'utf8', env: { ...process.env, GITHUB_ACTIONS: '' } });
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

/** The marketplace's 128×128 icon, read from the PNG's IHDR chunk. */
function pngSize(file: string): { width: number; height: number } {
  const png = readFileSync(file);
  assert.equal(png.toString('latin1', 1, 4), 'PNG', `${file} is a PNG`);
  return { width: png.readUInt32BE(16), height: png.readUInt32BE(20) };
}

describe('the .vsix as the Marketplace and Open VSX take it', function () {
  this.timeout(120_000);
  let dir: string;
  before(function () {
    if (!existsSync(join(ROOT, 'dist', 'extension.js'))) this.skip();
    dir = mkdtempSync(join(tmpdir(), 'crow-vsix-test-'));
  });
  after(() => dir && rmSync(dir, { recursive: true, force: true }));

  it('vsce packs the repository with no warning; ovsx and the registry find nothing to refuse; the walkthrough pages, icon and translations are inside', async () => {
    const vsix = join(dir, 'crow.vsix');
    const { status, output } = pack(ROOT, vsix);
    assert.equal(status, 0, output);
    assert.doesNotMatch(output, /\bWARNING\b/, output);
    const report = await validateVsix(vsix);
    assert.deepEqual(report.problems, []);
    const names = zipEntries(readFileSync(vsix)).map((entry) => entry.name);
    for (const file of ['media/icon.png', 'media/walkthrough/connect.md', 'media/walkthrough/prompt.md', 'media/walkthrough/review.md', 'media/walkthrough/trace.md', 'package.nls.json', 'l10n/bundle.l10n.json', 'changelog.md', 'schemas/config.schema.json']) {
      assert.ok(names.includes(`extension/${file}`), file);
    }
    // The gallery shows the English texts package.nls.json gives, not the %keys%.
    const shown = parseVsixManifest(vsixFile(vsix, 'extension.vsixmanifest')?.toString('utf8') ?? '');
    assert.equal(shown.displayName, 'Crow Agent');
    assert.match(shown.description, /^A coding-agent engine/);
    assert.deepEqual(shown.categories, ['AI', 'Chat']);
    assert.deepEqual(pngSize(join(ROOT, 'media', 'icon.png')), { width: 128, height: 128 });
  });

  it('refuses a package whose manifest names a walkthrough page it does not hold', async () => {
    const fixture = join(dir, 'fixture');
    mkdirSync(join(fixture, 'media'), { recursive: true });
    writeFileSync(join(fixture, 'media', 'page.md'), '# A page\n');
    writeFileSync(join(fixture, 'README.md'), '# Fixture\n\nAn extension for the test.\n');
    writeFileSync(join(fixture, 'LICENSE'), 'MIT\n');
    writeFileSync(join(fixture, '.vscodeignore'), 'media/page.md\n');
    writeFileSync(
      join(fixture, 'package.json'),
      JSON.stringify({
        name: 'fixture', publisher: 'crow-test', version: '1.0.0', license: 'MIT', engines: { vscode: '^1.95.0' },
        repository: { type: 'git', url: 'https://example.com/fixture.git' },
        contributes: { walkthroughs: [{ id: 'w', title: 'W', description: 'W', steps: [{ id: 's', title: 'S', description: 'S', media: { markdown: 'media/page.md' } }] }] },
      }),
    );
    const vsix = join(dir, 'fixture.vsix');
    const { status, output } = pack(fixture, vsix);
    assert.equal(status, 0, output);
    const report = await validateVsix(vsix);
    assert.deepEqual(report.problems, ['the package holds media/page.md: package.json names it but the .vsix lacks extension/media/page.md: check .vscodeignore']);
  });
});

/** The registry's refusals, each as ExtensionValidator words it (eclipse/openvsx 9cf4058d). */
describe("the check mirrors Open VSX's ExtensionValidator", () => {
  const good = parseVsixManifest(`<PackageManifest><Metadata>
    <Identity Language="en-US" Id="crow-agent" Version="0.1.0" Publisher="crow-agent" />
    <DisplayName>Crow Agent</DisplayName><Description xml:space="preserve">A coding agent.</Description>
    <Tags>agent,ai</Tags><Categories>AI,Chat</Categories>
    <Properties>
      <Property Id="Microsoft.VisualStudio.Services.Links.Source" Value="https://github.com/crow-agent/crow-agent.git" />
      <Property Id="Microsoft.VisualStudio.Services.Branding.Color" Value="#1f2a44" />
      <Property Id="Microsoft.VisualStudio.Services.Branding.Theme" Value="dark" />
    </Properties></Metadata></PackageManifest>`);

  it('passes a well-formed manifest', () => {
    assert.deepEqual(registryProblems(good, { license: 'MIT', qna: false }), []);
  });

  it('refuses what the registry refuses, in its words', () => {
    const cases: [Partial<typeof good>, object, string][] = [
      [{ version: '1.0' }, {}, 'Invalid semantic version. See https://semver.org/.'],
      [{ id: 'crow agent' }, {}, 'Invalid extension name: crow agent'],
      [{ publisher: '' }, {}, 'Namespace name must not be empty.'],
      [{ targetPlatform: 'solaris-x64' }, {}, "Unsupported target platform 'solaris-x64'"],
      [{ displayName: 'Crow\u0007' }, {}, "Invalid character found in field 'displayName': Crow\u0007 (index 4)"],
      [{ description: 'x'.repeat(2049) }, {}, "The field 'description' exceeds the current limit of 2048 characters."],
      [{ properties: new Map([['Microsoft.VisualStudio.Services.Branding.Theme', 'blue']]) }, {}, "Invalid value in field 'galleryBanner.theme': blue. Allowed values: [dark, light]"],
      [{ properties: new Map([['Microsoft.VisualStudio.Services.Branding.Color', '#1f2a44-and-more-than-16']]) }, {}, "The field 'galleryBanner.color' exceeds the current limit of 16 characters."],
      [{ properties: new Map([['Microsoft.VisualStudio.Services.Links.Learn', 'https://']]) }, {}, "Invalid URL in field 'homepage': https://"],
      [{}, { qna: 'maybe' }, "Invalid value in field 'qna': maybe. Allowed values: [marketplace, false] or a URL"],
      [{}, { markdown: 'fancy' }, "Invalid value in field 'markdown': fancy. Allowed values: [github, standard]"],
    ];
    // A reserved word is no semantic version either: the registry says both.
    assert.deepEqual(registryProblems({ ...good, version: 'latest' }, { license: 'MIT' }), ["The version string 'latest' is reserved.", 'Invalid semantic version. See https://semver.org/.']);
    for (const [change, manifest, problem] of cases) {
      assert.deepEqual(registryProblems({ ...good, ...change }, { license: 'MIT', ...manifest }), [problem], JSON.stringify(change));
    }
  });
});
