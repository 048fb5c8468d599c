/**
 * The .vsix as a user gets it: built by scripts/package.ts (or reused when
 * newer than everything it is built from), installed by code-server's own
 * `--install-extension` into a sandbox's extensions dir, and checked to have
 * no node_modules within reach, so the workbench can only run what was packed.
 */
import { spawnSync } from 'node:child_process';
import { accessSync, constants, existsSync, mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { delimiter, join, relative } from 'node:path';
import { runLogged } from './exec';
import { HarnessError } from './harness-error';
import { ARTIFACTS_DIR, CODE_SERVER_ENTRY, NODE_BIN, REPO_ROOT } from './paths';
import { log, step } from './progress';
import type { Sandbox } from './sandbox';

interface Manifest {
  name: string;
  publisher: string;
  version: string;
  dependencies?: Record<string, string>;
}

/** What scripts/package.ts builds the .vsix from; a .vsix newer than all of them is current. */
const PACKAGE_INPUTS = [
  'package.json',
  'package-lock.json',
  'esbuild.mjs',
  'tsconfig.json',
  '.vscodeignore',
  'README.md',
  'LICENSE',
  'CHANGELOG.md',
  'package.nls.json',
  'l10n',
  'media',
  'src',
  'webview',
  'agents',
  'commands',
  'prompts',
];

export function repoManifest(): Manifest {
  return JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as Manifest;
}

/** The repository's .vsix, packed now unless the one on disk is newer than every input. */
export async function freshVsix(): Promise<string> {
  const { name, version } = repoManifest();
  const vsix = join(REPO_ROOT, `${name}-${version}.vsix`);
  const newestInput = newestMtime(PACKAGE_INPUTS.map((input) => join(REPO_ROOT, input)));
  if (existsSync(vsix) && statSync(vsix).mtimeMs > newestInput) {
    log(`reusing ${relative(REPO_ROOT, vsix)}: it is newer than its sources`);
    return vsix;
  }
  mkdirSync(ARTIFACTS_DIR, { recursive: true });
  const logFile = join(ARTIFACTS_DIR, 'vsix-package.log');
  await step(`packing ${relative(REPO_ROOT, vsix)} (scripts/package.ts; output in ${relative(REPO_ROOT, logFile)})`, () =>
    runLogged(join(REPO_ROOT, 'node_modules', '.bin', 'tsx'), ['scripts/package.ts'], { cwd: REPO_ROOT, env: process.env, logFile }),
  );
  if (!existsSync(vsix)) throw new HarnessError(`scripts/package.ts succeeded but wrote no ${vsix}; see ${logFile}`);
  return vsix;
}

function newestMtime(paths: string[]): number {
  let newest = 0;
  for (const path of paths) {
    if (!existsSync(path)) continue;
    const stats = statSync(path);
    newest = Math.max(newest, stats.mtimeMs);
    if (stats.isDirectory()) newest = Math.max(newest, newestMtime(readdirSync(path).map((entry) => join(path, entry))));
  }
  return newest;
}

/** Installs `vsix` the way a user would, with code-server's CLI, before the server starts; returns the installed folder. */
export async function installVsix(sandbox: Sandbox, vsix: string): Promise<string> {
  mkdirSync(ARTIFACTS_DIR, { recursive: true });
  const logFile = join(ARTIFACTS_DIR, 'vsix-install.log');
  const args = [
    CODE_SERVER_ENTRY,
    '--config', '/dev/null',
    '--user-data-dir', sandbox.userDataDir,
    '--extensions-dir', sandbox.extensionsDir,
    '--install-extension', vsix,
  ];
  const shown = relative(REPO_ROOT, vsix).startsWith('..') ? vsix : relative(REPO_ROOT, vsix);
  await step(`installing ${shown} with code-server --install-extension`, () =>
    runLogged(NODE_BIN, args, { cwd: sandbox.root, env: sandbox.env, logFile }),
  );
  const { publisher, name } = repoManifest();
  const prefix = `${publisher}.${name}-`.toLowerCase();
  const installed = existsSync(sandbox.extensionsDir)
    ? readdirSync(sandbox.extensionsDir).filter((entry) => entry.toLowerCase().startsWith(prefix))
    : [];
  if (installed.length !== 1) {
    throw new HarnessError(
      `after --install-extension, ${sandbox.extensionsDir} holds ${installed.length} folders named ${prefix}*, not one; see ${logFile}`,
    );
  }
  return join(sandbox.extensionsDir, installed[0]!);
}

/**
 * Fails unless the installed extension runs on what was packed alone: it is
 * outside the repository, holds no node_modules, and no node_modules folder
 * exists on the module lookup path of its bundles in the environment
 * code-server (and so the extension host) gets. The runtime dependencies are
 * also resolved from there, as a direct proof that none is reachable.
 */
export function assertNoNodeModulesInReach(extensionDir: string, sandbox: Sandbox): string {
  if (!relative(REPO_ROOT, extensionDir).startsWith('..')) {
    throw new HarnessError(`the installed extension is inside the repository (${extensionDir}): its node_modules would be reachable`);
  }
  const shipped = findNodeModules(extensionDir);
  if (shipped) throw new HarnessError(`the installed extension ships node_modules (${shipped}): check .vscodeignore`);
  const probes = [...Object.keys(repoManifest().dependencies ?? {}), `@vscode/ripgrep-${process.platform}-${process.arch}/bin/rg`];
  const result = spawnSync(NODE_BIN, ['-e', LOOKUP_PROBE, join(extensionDir, 'dist', 'engine.js'), JSON.stringify(probes)], {
    env: sandbox.env,
    encoding: 'utf8',
  });
  if (result.status !== 0) throw new HarnessError(`the module lookup probe failed: ${result.stderr || result.error?.message}`);
  const probe = JSON.parse(result.stdout) as { lookupPaths: string[]; existing: string[]; resolved: string[] };
  const reachable = [...probe.existing.map((dir) => `folder ${dir}`), ...probe.resolved];
  if (reachable.length > 0) {
    throw new HarnessError(`the installed extension could load modules that were not packed: ${reachable.join('; ')}`);
  }
  return `${probe.lookupPaths.length} lookup folders, none exists; ${probes.length} runtime dependencies unresolvable`;
}

/**
 * Runs in code-server's Node with the sandbox's environment (HOME, no
 * NODE_PATH): the folders `require` would search from the engine bundle,
 * those of them that exist, and which of the probed packages resolve
 * (a package found but closed by its `exports` counts as found).
 */
const LOOKUP_PROBE = `
const { createRequire } = require('node:module');
const { existsSync } = require('node:fs');
const require_ = createRequire(process.argv[1]);
const lookupPaths = require_.resolve.paths('probe') ?? [];
const existing = lookupPaths.filter((dir) => existsSync(dir));
const resolved = [];
for (const name of JSON.parse(process.argv[2])) {
  try {
    resolved.push(name + ' -> ' + require_.resolve(name));
  } catch (error) {
    if (error.code !== 'MODULE_NOT_FOUND') resolved.push(name + ' (' + error.code + ')');
  }
}
process.stdout.write(JSON.stringify({ lookupPaths, existing, resolved }));
`;

function findNodeModules(dir: string): string | undefined {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (!entry.isDirectory()) continue;
    const path = join(dir, entry.name);
    if (entry.name === 'node_modules') return path;
    const nested = findNodeModules(path);
    if (nested) return nested;
  }
  return undefined;
}

/** The version of the installed extension, as its package.json says. */
export function installedVersion(extensionDir: string): string {
  return (JSON.parse(readFileSync(join(extensionDir, 'package.json'), 'utf8')) as Manifest).version;
}


/**
 * Besides the sandbox's PATH, the extension host may get what a login shell
 * sets: under code-server 4.139 its PATH was these folders (and VS Code's remote-cli).
 */
const SYSTEM_BIN_DIRS = ['/usr/local/sbin', '/usr/local/bin', '/usr/sbin', '/usr/bin', '/sbin', '/bin'];

/**
 * An rg the extension could run from PATH, if any: with one there, the grep
 * check passes even when the lookup of VS Code's own rg is broken.
 */
export function ripgrepOnPath(sandbox: Sandbox): string | undefined {
  const dirs = [...(sandbox.env.PATH ?? '').split(delimiter), ...SYSTEM_BIN_DIRS].filter(Boolean);
  return dirs.map((dir) => join(dir, 'rg')).find((file) => {
    try {
      accessSync(file, constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}
