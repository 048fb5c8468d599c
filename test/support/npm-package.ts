/**
 * The npm package as a person gets it: packed by `npm run pack:npm`
 * (scripts/pack-npm.ts) once per test process, and installed from the
 * tarball with npm itself, offline, with an empty npm cache, into a prefix of
 * the test's own: nothing may come from the network.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { isolatedEnv } from './isolated-env';

const ROOT = resolve(__dirname, '../..');

export interface PackedCrow {
  /** The .tgz npm pack wrote. */
  tarball: string;
  /** Where it was written (removed by removePacked). */
  folder: string;
}

let packed: PackedCrow | undefined;

/** Packs the package (once per process; about 10 s). Throws with the script's output when it fails. */
export function packCrow(): PackedCrow {
  if (packed) return packed;
  const folder = mkdtempSync(join(tmpdir(), 'crow-packed-'));
  const result = spawnSync(join(ROOT, 'node_modules', '.bin', 'tsx'), [join(ROOT, 'scripts', 'pack-npm.ts'), '--out', folder], { cwd: ROOT, encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`npm run pack:npm failed:\n${result.stdout}\n${result.stderr}`);
  const tarball = readdirSync(folder).find((name) => /^crow-agent-.*\.tgz$/.test(name));
  if (!tarball) throw new Error(`npm run pack:npm wrote no tarball:\n${result.stdout}`);
  packed = { tarball: join(folder, tarball), folder };
  return packed;
}

process.once('exit', () => {
  if (packed) rmSync(packed.folder, { recursive: true, force: true });
});

/**
 * An environment for npm and the agent it starts: HOME and npm's cache under
 * `home` (the cache empty at first), offline, no update check, and `extra`.
 */
export function offlineNpmEnv(home: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  mkdirSync(join(home, 'npm-cache'), { recursive: true });
  return isolatedEnv(home, {
    npm_config_cache: join(home, 'npm-cache'),
    npm_config_offline: 'true',
    npm_config_update_notifier: 'false',
    npm_config_audit: 'false',
    npm_config_fund: 'false',
    ...extra,
  });
}

/** `npm install --offline --prefix PREFIX TARBALL`; its exit code and output. */
export function installOffline(tarball: string, prefix: string, home: string): { code: number | null; output: string } {
  const result = spawnSync('npm', ['install', '--offline', '--no-audit', '--no-fund', '--prefix', prefix, tarball], { cwd: prefix, env: offlineNpmEnv(home), encoding: 'utf8' });
  return { code: result.status, output: `${result.stdout}${result.stderr}` };
}

/** Every file under `folder`, relative and '/'-separated, with its size. */
export function filesUnder(folder: string): { path: string; size: number }[] {
  const files: { path: string; size: number }[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else files.push({ path: relative(folder, path).split('\\').join('/'), size: statSync(path).size });
    }
  };
  walk(folder);
  return files.sort((a, b) => a.path.localeCompare(b.path));
}
