/**
 * `npm run pack:npm [-- --out DIR]`: the npm package `crow-agent`, what
 * `npx crow-agent acp` runs. The repository's package.json is the VS Code
 * extension's manifest (private, the extension's dependencies), so the npm
 * package is made in a staging folder of its own: the crow binary's bundles
 * built for production (every dependency inside them, no source maps), the
 * built-in agents, commands, prompts and eval tasks, README and LICENSE, and
 * a package.json with the `crow` bin, `engines`, no scripts and no
 * dependencies. ripgrep's binary for the platform is an optional dependency
 * (@vscode/ripgrep's platform packages: plain binaries, no install script);
 * where npm cannot fetch it (offline) the package installs without it and
 * grep/glob use `rg` from PATH or CROW_RG_PATH. Writes DIR/crow-agent-VERSION.tgz
 * (default: the repository root) and prints its packed and unpacked sizes;
 * fails when the package would hold a file it must not (sources, tests, source
 * maps, a .vsix) or miss one the binary needs.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const ROOT = join(__dirname, '..');

/** What the package holds (package.json's `files`; npm adds package.json, README and LICENSE): what the crow binary loads. */
const FILES = [
  'dist/crow.js',
  'dist/crow-cli.js',
  'dist/crow-trace.js',
  'dist/markdown.js',
  'dist/otlp.js',
  'dist/bedrock.js',
  'dist/vertex.js',
  'dist/builtin-definitions.json',
  // `crow trace --serve` and `crow eval`'s report.
  'dist/webview/viewer.js',
  'dist/webview/viewer.css',
  'dist/webview/eval-report.js',
  'agents/',
  'commands/',
  'prompts/',
  'eval/tasks/',
  // The JSON Schema of config.toml, for TOML editors (#:schema node_modules/crow-agent/schemas/config.schema.json).
  'schemas/config.schema.json',
];

/** Files the binary cannot start without. */
const REQUIRED = ['package.json', 'README.md', 'LICENSE', 'dist/crow.js', 'dist/crow-cli.js', 'dist/builtin-definitions.json', 'agents/base/builder.md', 'prompts/system.hbs'];

/** Nothing of the repository beyond what runs: no sources, tests, source maps, packaged extension or VS Code bundles. */
const FORBIDDEN = [/\.map$/, /\.vsix$/, /\.ts$/, /^(src|test|testkit|node_modules)\//, /^dist\/(extension|engine)\.js$/];

interface PackResult {
  filename: string;
  size: number;
  unpackedSize: number;
  files: { path: string; size: number }[];
}

function run(title: string, command: string, args: string[], cwd: string): string {
  const started = Date.now();
  process.stderr.write(`→ ${title}…\n`);
  const result = spawnSync(command, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], shell: process.platform === 'win32' });
  if (result.status !== 0) {
    process.stdout.write(result.stdout ?? '');
    throw new Error(`${title} failed (exit ${result.status ?? result.signal}); see the output above.`);
  }
  process.stderr.write(`  done in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
  return result.stdout;
}

/** ripgrep's platform packages at the version the lock file holds: npm installs the one matching the machine, if it can. */
function ripgrepBinaries(): Record<string, string> {
  const wrapper = JSON.parse(readFileSync(join(ROOT, 'node_modules', '@vscode', 'ripgrep', 'package.json'), 'utf8')) as { optionalDependencies?: Record<string, string> };
  return wrapper.optionalDependencies ?? {};
}

/**
 * The OS keychain binding `crow login` uses where it is installed, at the version the repository's package.json
 * asks for (an optional dependency there too): a native module, never bundled; without it keys go to a 0600 file.
 */
function keychainBinding(): Record<string, string> {
  const root = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { optionalDependencies?: Record<string, string> };
  const version = root.optionalDependencies?.['@napi-rs/keyring'];
  return version ? { '@napi-rs/keyring': version } : {};
}

/** The npm package's own manifest, from the repository's (name, version, licence, Node range). */
export function npmManifest(root: { name: string; version: string; description: string; license: string; engines: { node: string } }, optional: Record<string, string>): Record<string, unknown> {
  return {
    name: root.name,
    version: root.version,
    description: root.description,
    license: root.license,
    keywords: ['acp', 'agent-client-protocol', 'coding-agent', 'zed', 'jetbrains', 'cli'],
    type: 'commonjs',
    bin: { crow: 'dist/crow.js' },
    engines: { node: root.engines.node },
    files: FILES,
    optionalDependencies: optional,
  };
}

function main(): void {
  const outAt = process.argv.indexOf('--out');
  const out = resolve(outAt >= 0 ? process.argv[outAt + 1] ?? '' : ROOT);
  const root = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
  const staging = mkdtempSync(join(tmpdir(), 'crow-npm-'));
  try {
    run('Building the crow binary for production', process.execPath, ['esbuild.mjs', '--production', '--cli', '--out', join(staging, 'dist')], ROOT);
    for (const folder of ['agents', 'commands', 'prompts', join('eval', 'tasks'), 'schemas']) cpSync(join(ROOT, folder), join(staging, folder), { recursive: true });
    for (const file of ['README.md', 'LICENSE']) cpSync(join(ROOT, file), join(staging, file));
    writeFileSync(join(staging, 'package.json'), `${JSON.stringify(npmManifest(root, { ...ripgrepBinaries(), ...keychainBinding() }), null, 2)}\n`);
    mkdirSync(out, { recursive: true });
    const [packed] = JSON.parse(run('Packing', 'npm', ['pack', '--json', '--pack-destination', out], staging)) as PackResult[];
    if (!packed) throw new Error('npm pack reported no package');
    const paths = packed.files.map((file) => file.path);
    const missing = REQUIRED.filter((file) => !paths.includes(file));
    if (missing.length > 0) throw new Error(`the package would miss ${missing.join(', ')}`);
    const forbidden = paths.filter((path) => FORBIDDEN.some((pattern) => pattern.test(path)));
    if (forbidden.length > 0) throw new Error(`the package would hold ${forbidden.slice(0, 5).join(', ')}`);
    const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(2)} MB`;
    process.stdout.write(`${join(out, packed.filename)}: ${mb(packed.size)} packed, ${mb(packed.unpackedSize)} unpacked, ${paths.length} files\n`);
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}

if (require.main === module) {
  try {
    main();
  } catch (error) {
    process.stderr.write(`pack:npm: ${(error as Error).message}\n`);
    process.exitCode = 1;
  }
}
