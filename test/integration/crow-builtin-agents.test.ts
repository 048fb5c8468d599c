/**
 * The built-in agents as the build parsed them (dist/builtin-agents.json),
 * through the real binary in a copy of the package: every built-in agent
 * shows exactly as when its file is parsed at start, and a built-in file
 * changed after the build is read as it is now, not as the build saw it.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { isolatedEnv } from '../support/isolated-env';

const PACKAGE = resolve(__dirname, '../..');

describe('built-in agents parsed at build time', function () {
  this.timeout(60_000);
  let base: string;

  beforeEach(() => (base = mkdtempSync(join(tmpdir(), 'crow-builtin-'))));
  afterEach(() => rmSync(base, { recursive: true, force: true }));

  /** A copy of the built package (bundles, agents, prompts, commands) at `name`, with or without the snapshot. */
  function packageCopy(name: string, snapshot: boolean): string {
    const root = join(base, name);
    mkdirSync(join(root, 'dist'), { recursive: true });
    for (const file of readdirSync(join(PACKAGE, 'dist'))) {
      if (file.endsWith('.js') || (snapshot && file === 'builtin-agents.json')) cpSync(join(PACKAGE, 'dist', file), join(root, 'dist', file));
    }
    for (const folder of ['agents', 'prompts', 'commands']) cpSync(join(PACKAGE, folder), join(root, folder), { recursive: true });
    cpSync(join(PACKAGE, 'package.json'), join(root, 'package.json'));
    symlinkSync(join(PACKAGE, 'node_modules'), join(root, 'node_modules'));
    return root;
  }

  /** That copy's crow binary. */
  const crow = async (root: string, ...args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> => {
    const run = spawnSync(process.execPath, [join(root, 'dist', 'crow.js'), ...args], { cwd: base, env: isolatedEnv(join(base, 'home')), encoding: 'utf8' });
    return { code: run.status, stdout: run.stdout, stderr: run.stderr };
  };
  const agentsOf = (root: string): string[] =>
    readdirSync(join(root, 'agents', 'base')).concat(readdirSync(join(root, 'agents', 'acp'))).map((file) => file.replace(/\.md$/, ''));

  it('shows every built-in agent as parsing its file does', async () => {
    assert.ok(existsSync(join(PACKAGE, 'dist', 'builtin-agents.json')), 'npm run build writes the snapshot');
    const withSnapshot = packageCopy('with', true);
    const without = packageCopy('without', false);
    const shown = async (root: string): Promise<string> => {
      const outputs: string[] = [(await crow(root, 'agents', 'list')).stdout];
      for (const name of agentsOf(root)) outputs.push((await crow(root, 'agents', 'show', name)).stdout);
      return outputs.join('\n').split(root).join('<package>');
    };
    const expected = await shown(without);
    assert.match(expected, /base agent: +builder[\s\S]*file: +<package>\/agents\/base\/builder\.md/);
    assert.equal(await shown(withSnapshot), expected);
    const validated = await crow(withSnapshot, 'agents', 'validate');
    assert.equal(validated.code, 0, validated.stderr);
  });

  it('reads a built-in file changed after the build as it is now', async () => {
    const root = packageCopy('edited', true);
    const file = join(root, 'agents', 'base', 'builder.md');
    writeFileSync(file, readFileSync(file, 'utf8').replace(/^description: .*$/m, 'description: Edited after the build.'));
    const shown = await crow(root, 'agents', 'show', 'builder');
    assert.equal(shown.code, 0, shown.stderr);
    assert.match(shown.stdout, /description: +Edited after the build\./);
  });
});
