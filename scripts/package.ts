/**
 * `npm run package`: builds the extension for production and packs it into
 * a .vsix with @vscode/vsce. The .vsix holds the bundled extension, the crow
 * binary, the webviews, the built-in agents, commands and prompts and the
 * icon, and no node_modules (.vscodeignore). Prints its size against the
 * 10 MB target and fails above it, and checks it as the Marketplace and
 * Open VSX would take it: vsce packs it with no warning, and
 * scripts/vsix-validate.ts finds nothing ovsx or the registry would refuse.
 * Then it rebuilds the development bundles.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { validateVsix } from './vsix-validate';

const ROOT = join(__dirname, '..');
const TARGET_BYTES = 10 * 1024 * 1024;
/** What a working .vsix must hold. */
const REQUIRED = ['extension/package.json', 'extension/dist/extension.js', 'extension/dist/engine.js', 'extension/dist/crow.js', 'extension/dist/crow-cli.js', 'extension/dist/crow-trace.js', 'extension/dist/webview/chat.js', 'extension/dist/webview/chat.css', 'extension/dist/webview/codicon.css', 'extension/dist/webview/codicon.ttf', 'extension/dist/webview/viewer.js', 'extension/agents/base/builder.md', 'extension/prompts'];

function step(title: string, command: string, args: string[], options: { noWarnings?: boolean } = {}): string {
  const started = Date.now();
  process.stderr.write(`→ ${title}…\n`);
  const result = spawnSync(command, args, { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], shell: process.platform === 'win32' });
  process.stderr.write(result.stderr ?? '');
  if (result.status !== 0) {
    process.stdout.write(result.stdout ?? '');
    throw new Error(`${title} failed (exit ${result.status ?? result.signal}); see the output above.`);
  }
  // vsce says what the Marketplace would hold against the package as " WARNING " lines on stderr.
  if (options.noWarnings && /\bWARNING\b/.test(`${result.stdout}${result.stderr}`)) {
    process.stdout.write(result.stdout ?? '');
    throw new Error(`${title} warned; see the output above.`);
  }
  process.stderr.write(`  done in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
  return result.stdout;
}

/** Runs the packed crow binary from a copy of exactly the packed files: it must need no node_modules. */
function smokeTest(files: string[]): void {
  const copy = mkdtempSync(join(tmpdir(), 'crow-vsix-'));
  try {
    for (const file of files) {
      mkdirSync(dirname(join(copy, file)), { recursive: true });
      cpSync(join(ROOT, file), join(copy, file));
    }
    const home = join(copy, 'home');
    const env = { PATH: process.env.PATH, HOME: home, XDG_CONFIG_HOME: join(home, 'config'), XDG_DATA_HOME: join(home, 'data') };
    const started = Date.now();
    const result = spawnSync(process.execPath, [join(copy, 'dist', 'crow.js'), 'agents', 'list'], { cwd: copy, env, encoding: 'utf8' });
    if (result.status !== 0 || !/\bbuild\b/.test(result.stdout)) {
      throw new Error(`the packed crow binary does not run on its own: ${result.stderr || result.stdout}`);
    }
    process.stderr.write(`→ The packed crow binary runs without node_modules (crow agents list, ${Date.now() - started} ms)\n`);
  } finally {
    rmSync(copy, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const { name, version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { name: string; version: string };
  const vsix = `${name}-${version}.vsix`;
  const vsce = join(ROOT, 'node_modules', '.bin', 'vsce');
  try {
    step('Building for production (minified, no source maps)', process.execPath, ['esbuild.mjs', '--production']);
    const files = step('Listing what goes in', vsce, ['ls', '--no-dependencies']).split('\n').filter(Boolean);
    const shipped = files.map((file) => `extension/${file}`);
    const missing = REQUIRED.filter((required) => !shipped.some((file) => file === required || file.startsWith(`${required}/`)));
    if (missing.length > 0) throw new Error(`the package would miss ${missing.join(', ')}: check .vscodeignore`);
    const modules = files.filter((file) => file.includes('node_modules/'));
    if (modules.length > 0) throw new Error(`the package would ship node_modules (${modules[0]}, …): check .vscodeignore`);
    smokeTest(files);
    // Relative links stay as they are: the repository's address is not public yet (see package.json).
    step(`Packing ${vsix}`, vsce, ['package', '--no-dependencies', '--no-rewrite-relative-links', '--out', vsix], { noWarnings: true });
    const report = await validateVsix(join(ROOT, vsix));
    if (report.problems.length > 0) throw new Error(`${vsix} would be refused:\n  ${report.problems.join('\n  ')}`);
    process.stderr.write(`→ ${vsix} passes ${report.passed.length} checks of ovsx, Open VSX and the manifest (scripts/vsix-validate.ts)\n`);
    const bytes = statSync(join(ROOT, vsix)).size;
    const verdict = bytes <= TARGET_BYTES ? 'under' : 'OVER';
    process.stdout.write(`${vsix}: ${(bytes / 1024 / 1024).toFixed(2)} MB, ${files.length} files, ${verdict} the 10 MB target (${((bytes / TARGET_BYTES) * 100).toFixed(0)}%)\n`);
    if (bytes > TARGET_BYTES) process.exitCode = 1;
  } finally {
    step('Rebuilding the development bundles', process.execPath, ['esbuild.mjs']);
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`package: ${(error as Error).message}\n`);
  process.exitCode = 1;
});
