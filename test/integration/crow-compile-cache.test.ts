import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
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

  it(`${offered ? "keeps V8's compile cache in its own private cache folder" : "runs without V8's compile cache where Node has none"} (Node ${process.versions.node})`, () => {
    for (let run = 0; run < 2; run++) {
      const result = crow();
      assert.equal(result.status, 0, result.stderr);
      assert.equal(result.stdout.trim(), version);
    }
    if (offered) {
      assert.equal(statSync(cacheOf()).mode & 0o777, 0o700);
      assert.ok(readdirSync(cacheOf(), { recursive: true }).length > 0, 'the compiled bundle was cached');
    } else {
      assert.equal(existsSync(cacheOf()), false, 'nothing is made where Node has no compile cache');
    }
  });

  it('keeps no cache when NODE_DISABLE_COMPILE_CACHE is set', () => {
    const result = crow({ NODE_DISABLE_COMPILE_CACHE: '1' });
    assert.equal(result.status, 0, result.stderr);
    assert.equal(existsSync(cacheOf()), false);
  });
});
