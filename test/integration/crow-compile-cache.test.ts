import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import * as nodeModule from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { version } from '../../package.json';

const CROW = resolve(__dirname, '../../dist/crow.js');
const offered = typeof (nodeModule as { enableCompileCache?: unknown }).enableCompileCache === 'function';

describe('crow binary start-up', () => {
  let home: string;
  beforeEach(() => (home = mkdtempSync(join(tmpdir(), 'crow-cache-home-'))));
  afterEach(() => rmSync(home, { recursive: true, force: true }));

  const crow = (extra: Record<string, string> = {}) =>
    spawnSync(process.execPath, [CROW, '--version'], { encoding: 'utf8', env: { PATH: process.env.PATH!, HOME: home, XDG_CACHE_HOME: join(home, 'cache'), ...extra } });
  const cacheOf = (): string => join(home, 'cache', 'crow-agent', 'compile-cache');

  it(`keeps the compiled bundle in its own private cache folder, as a V8 code cache of its own${offered ? ", beside Node's compile cache for the modules loaded later" : ''} (Node ${process.versions.node})`, () => {
    for (let run = 0; run < 2; run++) {
      const result = crow();
      assert.equal(result.status, 0, result.stderr);
      assert.equal(result.stdout.trim(), version);
    }
    assert.equal(statSync(cacheOf()).mode & 0o777, 0o700);
    const kept = readdirSync(cacheOf(), { withFileTypes: true }).filter((entry) => entry.isFile() && entry.name.endsWith('.v8cache'));
    assert.equal(kept.length, 1, 'the compiled bundle was cached');
    for (const entry of kept) assert.equal(statSync(join(cacheOf(), entry.name)).mode & 0o777, 0o600);
  });

  it('runs as before from a cache that does not fit (another build, a damaged file), and replaces it', () => {
    assert.equal(crow().status, 0);
    const [cached] = readdirSync(cacheOf()).filter((name) => name.endsWith('.v8cache'));
    writeFileSync(join(cacheOf(), cached!), 'not a code cache');
    const result = crow();
    assert.equal(result.status, 0, result.stderr);
    assert.equal(result.stdout.trim(), version);
    assert.notEqual(readFileSync(join(cacheOf(), cached!), 'utf8'), 'not a code cache', 'a fitting cache is written in its place');
    const help = spawnSync(process.execPath, [CROW, 'run', '--help'], { encoding: 'utf8', env: { PATH: process.env.PATH!, HOME: home, XDG_CACHE_HOME: join(home, 'cache') } });
    assert.equal(help.status, 0, help.stderr);
    assert.match(help.stdout, /Usage: crow run/);
  });

  it('keeps the caches of a few builds or Node option sets, not of every one', () => {
    for (let build = 0; build < 6; build++) {
      mkdirSync(cacheOf(), { recursive: true });
      writeFileSync(join(cacheOf(), `crow-cli-${String(build).padStart(32, '0')}.v8cache`), 'an older build');
      utimesSync(join(cacheOf(), `crow-cli-${String(build).padStart(32, '0')}.v8cache`), 1_000 + build, 1_000 + build);
    }
    const result = crow();
    assert.equal(result.status, 0, result.stderr);
    const left = readdirSync(cacheOf()).filter((name) => name.endsWith('.v8cache')).sort();
    assert.equal(left.length, 4);
    assert.deepEqual(left.filter((name) => name.startsWith('crow-cli-0000')), [3, 4, 5].map((build) => `crow-cli-${String(build).padStart(32, '0')}.v8cache`), 'the newest of the older ones stay');
  });

  it('keeps no cache when NODE_DISABLE_COMPILE_CACHE is set', () => {
    const result = crow({ NODE_DISABLE_COMPILE_CACHE: '1' });
    assert.equal(result.status, 0, result.stderr);
    assert.equal(existsSync(cacheOf()), false);
  });

  it('runs a bundle that is not pure ASCII (a watch build keeps its comments as written) as UTF-8, from its cache too', () => {
    const dist = join(home, 'package', 'dist');
    mkdirSync(dist, { recursive: true });
    for (const file of ['crow.js', 'crow-cli.js']) writeFileSync(join(dist, file), readFileSync(join(resolve(CROW, '..'), file)));
    const bundle = join(dist, 'crow-cli.js');
    const text = readFileSync(bundle, 'utf8');
    assert.ok(text.includes(`version = "${version}";`), 'the bundle holds the version as one assignment');
    writeFileSync(bundle, text.replace(`version = "${version}";`, `version = "${version}-déjà ✓";`));
    const written: number[] = [];
    for (let run = 0; run < 2; run++) {
      const result = spawnSync(process.execPath, [join(dist, 'crow.js'), '--version'], { encoding: 'utf8', env: { PATH: process.env.PATH!, HOME: home, XDG_CACHE_HOME: join(home, 'cache') } });
      assert.equal(result.status, 0, result.stderr);
      assert.equal(result.stdout.trim(), `${version}-déjà ✓`);
      const kept = readdirSync(cacheOf()).filter((name) => name.endsWith('.v8cache'));
      assert.equal(kept.length, 1);
      written.push(statSync(join(cacheOf(), kept[0]!)).mtimeMs);
    }
    assert.equal(written[1], written[0], 'the second run took the cache as it was: it fit');
  });
});
