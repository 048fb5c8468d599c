/**
 * Checks a .vsix the way Open VSX would take it, offline: ovsx has no
 * command that checks a package without publishing it (`ovsx verify` and
 * `verify-signature` check a signature; `publish` uploads), so this runs
 * the checks ovsx 1.4.0 itself makes before an upload, from its own modules,
 * and mirrors those the registry makes on receiving it, rule by rule, from
 * eclipse/openvsx at 9cf4058d (server/src/main/java/org/eclipse/openvsx/):
 * ExtensionProcessor.java (what it reads from the package and refuses when
 * missing), ExtensionValidator.java (validateNamespace, validateExtensionName,
 * validateExtensionVersion, validateMetadata) and
 * publish/PublishExtensionVersionHandler.java (the license rule).
 *
 * It also checks what Crow's manifest promises is inside: the icon, the
 * walkthrough's pages and the translations.
 *
 * `npx tsx scripts/vsix-validate.ts FILE.vsix` prints the checks and fails
 * on any problem; scripts/package.ts and the VS Code harness's vsix phase
 * run it on every package they make.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { inflateRawSync } from 'node:zlib';
import { isLicenseOk } from 'ovsx/lib/check-license';
import { validateManifest } from 'ovsx/lib/util';
import { readVSIXPackage } from 'ovsx/lib/zip';

export interface VsixReport {
  /** What was checked and held. */
  passed: string[];
  /** What Open VSX (or Crow's manifest) would refuse, each saying what to fix. */
  problems: string[];
}

type OvsxManifest = Parameters<typeof validateManifest>[0];

interface PackageJson {
  name?: string;
  publisher?: string;
  version?: string;
  license?: string;
  icon?: string;
  markdown?: unknown;
  qna?: unknown;
  l10n?: string;
  contributes?: { walkthroughs?: { steps: { media: { markdown?: string; image?: string | Record<string, string> } }[] }[] };
}

export async function validateVsix(vsix: string): Promise<VsixReport> {
  const report: VsixReport = { passed: [], problems: [] };
  const check = (what: string, problem: string | undefined | false): void => {
    if (problem) report.problems.push(`${what}: ${problem}`);
    else report.passed.push(what);
  };
  const zip = readFileSync(vsix);
  const entries = zipEntries(zip);
  const names = new Set(entries.map((entry) => entry.name));
  // The package's top level and its extension folder's (where ovsx looks for a LICENSE file).
  const files = new Map(entries.filter((entry) => /^(extension\/)?[^/]+$/.test(entry.name)).map((entry) => [entry.name, zipContent(zip, entry)]));

  // ovsx's own checks before an upload: the manifest it reads from the package, and a license (publish.js, check-license.js).
  const manifest = (await readVSIXPackage(vsix)) as OvsxManifest & PackageJson;
  check('ovsx: the package has extension/package.json with publisher, name and version', catching(() => validateManifest(manifest)));
  const unpacked = mkdtempSync(join(tmpdir(), 'crow-vsix-'));
  try {
    for (const [name, content] of files) {
      if (!name.startsWith('extension/')) continue;
      const path = join(unpacked, name.slice('extension/'.length));
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, content);
    }
    check('ovsx: the extension is licensed (a license field or a LICENSE file)', !(await isLicenseOk(unpacked, manifest)) && 'no license field and no LICENSE file; Open VSX takes only licensed extensions');
  } finally {
    rmSync(unpacked, { recursive: true, force: true });
  }

  // The registry: ExtensionProcessor reads extension.vsixmanifest, and refuses a package without it or package.json.
  const xml = files.get('extension.vsixmanifest')?.toString('utf8');
  check('Open VSX: the package has extension.vsixmanifest', xml === undefined && 'Entry not found: extension.vsixmanifest');
  if (xml === undefined) return report;
  const vsixManifest = parseVsixManifest(xml);
  for (const problem of registryProblems(vsixManifest, manifest)) report.problems.push(`Open VSX: ${problem}`);
  if (!report.problems.some((problem) => problem.startsWith('Open VSX'))) report.passed.push('Open VSX: name, namespace, version, target platform and metadata pass ExtensionValidator');
  for (const path of vsixManifest.assets) check(`Open VSX: the asset ${path} is in the package`, !names.has(path) && `Entry not found: ${path}`);
  // ExtensionProcessor.isPotentiallyMalicious: an entry with extra fields marks the version as potentially malicious.
  const extra = entries.filter((entry) => entry.extraLength > 0).map((entry) => entry.name);
  check('Open VSX: no zip entry carries extra fields', extra.length > 0 && `${extra.length} entries do (${extra.slice(0, 3).join(', ')}): the registry marks such a version potentially malicious`);

  // What Crow's own manifest names must be inside, or VS Code shows nothing in its place.
  const promised = [
    manifest.icon,
    ...(manifest.contributes?.walkthroughs ?? []).flatMap((walkthrough) => walkthrough.steps.map((step) => step.media.markdown ?? (typeof step.media.image === 'string' ? step.media.image : undefined))),
    // VS Code shows a "%key%" as it is when package.nls.json is missing.
    /"%[\w.-]+%"/.test(JSON.stringify(manifest)) ? 'package.nls.json' : undefined,
    manifest.l10n !== undefined ? join(manifest.l10n, 'bundle.l10n.json') : undefined,
  ].filter((path): path is string => path !== undefined);
  for (const path of promised) {
    const inPackage = `extension/${path.replace(/^\.\//, '')}`;
    const found = names.has(inPackage) || [...names].some((name) => name.toLowerCase() === inPackage.toLowerCase());
    check(`the package holds ${path}`, !found && `package.json names it but the .vsix lacks ${inPackage}: check .vscodeignore`);
  }
  return report;
}

function catching(run: () => void): string | undefined {
  try {
    run();
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}

interface VsixManifest {
  id: string;
  publisher: string;
  version: string;
  targetPlatform: string;
  displayName: string;
  description: string;
  categories: string[];
  tags: string[];
  properties: Map<string, string>;
  /** The package paths the manifest points at: its assets, License and Icon. */
  assets: string[];
}

/** vsce writes the manifest as plain XML with attribute values escaped; only the fields the registry reads are taken. */
export function parseVsixManifest(xml: string): VsixManifest {
  const attribute = (element: string, name: string): string => unescapeXml(new RegExp(`<${element}\\b[^>]*\\s${name}="([^"]*)"`).exec(xml)?.[1] ?? '');
  const text = (element: string): string => unescapeXml(new RegExp(`<${element}\\b[^>]*>([^<]*)</${element}>`).exec(xml)?.[1] ?? '');
  const list = (value: string): string[] => (value === '' ? [] : value.split(','));
  const properties = new Map([...xml.matchAll(/<Property Id="([^"]*)" Value="([^"]*)"/g)].map((match) => [match[1]!, unescapeXml(match[2]!)]));
  const assets = [...xml.matchAll(/<Asset Type="[^"]*" Path="([^"]*)"/g)].map((match) => unescapeXml(match[1]!));
  for (const element of ['License', 'Icon']) if (text(element) !== '') assets.push(text(element));
  return {
    id: attribute('Identity', 'Id'),
    publisher: attribute('Identity', 'Publisher'),
    version: attribute('Identity', 'Version'),
    targetPlatform: attribute('Identity', 'TargetPlatform') || 'universal',
    displayName: text('DisplayName'),
    description: text('Description'),
    categories: list(text('Categories')),
    tags: list(text('Tags')),
    properties,
    assets: [...new Set(assets)],
  };
}

function unescapeXml(text: string): string {
  return text.replace(/&(lt|gt|quot|apos|amp);/g, (_, name: string) => ({ lt: '<', gt: '>', quot: '"', apos: "'", amp: '&' })[name]!);
}

/** ExtensionValidator's name pattern, size limits and allowed values. */
const NAME_PATTERN = /^[\w\-+$~]+$/;
const DEFAULT_STRING_SIZE = 255;
const DESCRIPTION_SIZE = 2048;
const GALLERY_COLOR_SIZE = 16;
const RESERVED_VERSIONS = ['latest', 'pre-release', 'reviews'];
/** TargetPlatform.java. */
const TARGET_PLATFORMS = ['win32-x64', 'win32-ia32', 'win32-arm64', 'linux-x64', 'linux-arm64', 'linux-armhf', 'alpine-x64', 'alpine-arm64', 'darwin-x64', 'darwin-arm64', 'web', 'universal'];
/** entities/SemanticVersion.java's pattern: semantic versioning 2.0.0. */
const SEMVER = /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$/;
/** Java's Character.getType CONTROL, FORMAT, UNASSIGNED, PRIVATE_USE, LINE_SEPARATOR and PARAGRAPH_SEPARATOR. */
const BAD_CHARACTER = /[\p{Cc}\p{Cf}\p{Cn}\p{Co}\p{Zl}\p{Zp}]/u;

/** Every issue ExtensionValidator (and the processor's identity reading) would raise, in its words. */
export function registryProblems(vsix: VsixManifest, manifest: PackageJson): string[] {
  const problems: string[] = [];
  const characters = (value: string | undefined, field: string, allowed: string[] = []): void => {
    if (value === undefined) return;
    const index = [...value].findIndex((char) => !allowed.includes(char) && BAD_CHARACTER.test(char));
    if (index >= 0) problems.push(`Invalid character found in field '${field}': ${value} (index ${index})`);
  };
  const size = (value: string | undefined, limit: number, field: string): void => {
    if (value !== undefined && value.length > limit) problems.push(`The field '${field}' exceeds the current limit of ${limit} characters.`);
  };
  const url = (value: string | undefined, field: string): void => {
    if (!value) return;
    if (invalidUrl(value)) problems.push(`Invalid URL in field '${field}': ${value}`);
    size(value, DEFAULT_STRING_SIZE, field);
  };
  const oneOf = (value: string | undefined, allowed: string[], field: string, orUrl = false): void => {
    if (!value || allowed.includes(value) || (orUrl && !invalidUrl(value))) return;
    problems.push(`Invalid value in field '${field}': ${value}. Allowed values: [${allowed.join(', ')}]${orUrl ? ' or a URL' : ''}`);
  };

  for (const [what, value] of [['namespace name', vsix.publisher], ['extension name', vsix.id]] as const) {
    if (value === '' || value === '-') problems.push(`${what === 'namespace name' ? 'Namespace name' : 'Name'} must not be empty.`);
    else if (!NAME_PATTERN.test(value)) problems.push(`Invalid ${what === 'namespace name' ? 'namespace' : 'extension'} name: ${value}`);
    else if (value.length > DEFAULT_STRING_SIZE) problems.push(`The ${what} exceeds the current limit of ${DEFAULT_STRING_SIZE} characters.`);
  }
  if (vsix.version === '') problems.push('Version must not be empty.');
  else {
    if (RESERVED_VERSIONS.includes(vsix.version)) problems.push(`The version string '${vsix.version}' is reserved.`);
    if (!SEMVER.test(vsix.version)) problems.push('Invalid semantic version. See https://semver.org/.');
  }
  if (!TARGET_PLATFORMS.includes(vsix.targetPlatform)) problems.push(`Unsupported target platform '${vsix.targetPlatform}'`);
  characters(vsix.displayName, 'displayName');
  size(vsix.displayName, DEFAULT_STRING_SIZE, 'displayName');
  characters(vsix.description, 'description', ['\u200d']);
  size(vsix.description, DESCRIPTION_SIZE, 'description');
  for (const category of vsix.categories) (characters(category, 'categories'), size(category, DEFAULT_STRING_SIZE, 'categories'));
  for (const tag of vsix.tags) (characters(tag, 'keywords'), size(tag, DEFAULT_STRING_SIZE, 'keywords'));
  const license = typeof manifest.license === 'string' ? manifest.license : undefined;
  characters(license, 'license');
  size(license, DEFAULT_STRING_SIZE, 'license');
  url(vsix.properties.get('Microsoft.VisualStudio.Services.Links.Learn'), 'homepage');
  url(vsix.properties.get('Microsoft.VisualStudio.Services.Links.Source'), 'repository');
  url(vsix.properties.get('Microsoft.VisualStudio.Services.Links.Support'), 'bugs');
  oneOf(typeof manifest.markdown === 'string' ? manifest.markdown : undefined, ['github', 'standard'], 'markdown');
  const color = vsix.properties.get('Microsoft.VisualStudio.Services.Branding.Color');
  characters(color, 'galleryBanner.color');
  size(color, GALLERY_COLOR_SIZE, 'galleryBanner.color');
  oneOf(vsix.properties.get('Microsoft.VisualStudio.Services.Branding.Theme'), ['dark', 'light'], 'galleryBanner.theme');
  // The registry reads qna from package.json as text: `false` (a boolean) is no text, so it is not checked.
  const qna = typeof manifest.qna === 'string' ? manifest.qna : undefined;
  oneOf(qna, ['marketplace', 'false'], 'qna', true);
  size(qna, DEFAULT_STRING_SIZE, 'qna');
  return problems;
}

/** ExtensionValidator.isInvalidURL: java.net.URL must parse it (after a "git+" prefix), and an http(s) URL needs a host. */
function invalidUrl(value: string): boolean {
  const text = value.startsWith('git+') && value.length > 4 ? value.slice(4) : value;
  try {
    const parsed = new URL(text);
    return /^https?:$/.test(parsed.protocol) && parsed.hostname === '';
  } catch {
    return true;
  }
}

interface ZipEntry {
  name: string;
  extraLength: number;
  method: number;
  compressedSize: number;
  localHeader: number;
}

/** The central directory's entries (APPNOTE.TXT 4.3.12, 4.3.16): names and the length of their extra fields. */
export function zipEntries(zip: Buffer): ZipEntry[] {
  const end = zip.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  if (end < 0) throw new Error('not a zip file: no end of central directory record');
  const count = zip.readUInt16LE(end + 10);
  let at = zip.readUInt32LE(end + 16);
  const entries: ZipEntry[] = [];
  for (let index = 0; index < count; index++) {
    if (zip.readUInt32LE(at) !== 0x02014b50) throw new Error(`zip central directory entry ${index} is damaged`);
    const nameLength = zip.readUInt16LE(at + 28);
    const extraLength = zip.readUInt16LE(at + 30);
    const commentLength = zip.readUInt16LE(at + 32);
    entries.push({
      name: zip.toString('utf8', at + 46, at + 46 + nameLength),
      extraLength,
      method: zip.readUInt16LE(at + 10),
      compressedSize: zip.readUInt32LE(at + 20),
      localHeader: zip.readUInt32LE(at + 42),
    });
    at += 46 + nameLength + extraLength + commentLength;
  }
  return entries;
}

/** One file of a .vsix, by its path inside the package; undefined when it is not there. */
export function vsixFile(vsix: string, name: string): Buffer | undefined {
  const zip = readFileSync(vsix);
  const entry = zipEntries(zip).find((candidate) => candidate.name === name);
  return entry && zipContent(zip, entry);
}

/** An entry's bytes: stored (method 0) or deflated (8), the two methods vsce's zip writer uses. */
function zipContent(zip: Buffer, entry: ZipEntry): Buffer {
  const at = entry.localHeader;
  if (zip.readUInt32LE(at) !== 0x04034b50) throw new Error(`zip entry ${entry.name} is damaged`);
  const start = at + 30 + zip.readUInt16LE(at + 26) + zip.readUInt16LE(at + 28);
  const data = zip.subarray(start, start + entry.compressedSize);
  if (entry.method === 0) return data;
  if (entry.method === 8) return inflateRawSync(data);
  throw new Error(`zip entry ${entry.name} uses compression method ${entry.method}`);
}

async function main(file: string | undefined): Promise<number> {
  if (!file) {
    process.stderr.write('usage: npx tsx scripts/vsix-validate.ts FILE.vsix\n');
    return 2;
  }
  const report = await validateVsix(file);
  for (const passed of report.passed) process.stdout.write(`  ✔ ${passed}\n`);
  for (const problem of report.problems) process.stdout.write(`  ✘ ${problem}\n`);
  return report.problems.length > 0 ? 1 : 0;
}

if (require.main === module) {
  main(process.argv[2]).then(
    (code) => (process.exitCode = code),
    (error: unknown) => {
      process.stderr.write(`vsix-validate: ${(error as Error).message}\n`);
      process.exitCode = 1;
    },
  );
}
