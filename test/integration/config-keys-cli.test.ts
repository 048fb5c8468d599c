/**
 * `crow config list` and `explain` through the real binary: the table of
 * keys as a person asks about it, a misspelt key answered with the right
 * one, and `set` keeping the `#:schema` line a TOML editor reads.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FILE_KEYS } from '../../src/config/config-keys';
import { runCrow } from '../support/crow-binary';
import { isolatedEnv } from '../support/isolated-env';

describe('crow config list and explain', function () {
  this.timeout(30_000);
  let home: string;
  let workspace: string;
  let env: NodeJS.ProcessEnv;
  const crow = (...args: string[]) => runCrow(args, env, workspace);

  beforeEach(() => {
    home = realpathSync(mkdtempSync(join(tmpdir(), 'crow-config-keys-')));
    workspace = join(home, 'project');
    mkdirSync(workspace);
    env = isolatedEnv(home);
  });
  afterEach(() => rmSync(home, { recursive: true, force: true }));

  it('lists every key of config.toml with its help', async () => {
    const listed = await crow('config', 'list');
    assert.equal(listed.code, 0, listed.stderr);
    const keys = listed.stdout.trimEnd().split('\n').map((line) => line.split(/\s+/)[0]);
    assert.deepEqual(keys, FILE_KEYS.map((row) => row.key));
    assert.match(listed.stdout, /^permissions\.write\s+Writing and editing files\.$/m);
  });

  it('explains a key: its values, default, what an untrusted project may do, its VS Code setting and variable', async () => {
    const explained = await crow('config', 'explain', 'sandbox.mode');
    assert.equal(explained.code, 0, explained.stderr);
    assert.equal(
      explained.stdout,
      [
        'sandbox.mode: Whether commands run in the sandbox.',
        '  value:       auto | required | off',
        '  default:     auto',
        '  project:     only narrower: off → auto → required (a .crow/config.toml, until the folder is trusted)',
        '  VS Code:     crow.sandbox',
        '  environment: CROW_SANDBOX',
        '  auto: Run commands in the sandbox where bubblewrap can run (Linux), without it elsewhere (said once).',
        '  required: Run commands only in the sandbox: without bubblewrap, commands do not run.',
        '  off: Run commands without the sandbox.',
        '',
      ].join('\n'),
    );
    const provider = await crow('config', 'explain', 'providers.local.base_url');
    assert.match(provider.stdout, /^providers\.NAME: A provider/);
    assert.match(provider.stdout, /environment: ANTHROPIC_BASE_URL \(anthropic\.base_url\), OPENAI_BASE_URL \(openai\.base_url\)/);
  });

  it('answers a misspelt key with the one meant, and a wrong use with the usage', async () => {
    const misspelt = await crow('config', 'explain', 'sandbox.mod');
    assert.notEqual(misspelt.code, 0);
    assert.match(misspelt.stderr, /Unknown setting "sandbox\.mod"\. Did you mean "sandbox\.mode"\? crow config list shows the keys\./);
    const malformed = await crow('config', 'explain', 'permissions."write');
    assert.equal(malformed.code, 2);
    assert.match(malformed.stderr, /is not a settings key: use names joined by dots/);
    assert.equal(malformed.stdout, '');
    const extra = await crow('config', 'list', 'permissions');
    assert.notEqual(extra.code, 0);
    assert.match(extra.stderr, /Usage: crow config list/);
  });

  it("gets compaction's default, auto, and set keeps the #:schema line a TOML editor reads", async () => {
    const compaction = await crow('config', 'get', 'compaction');
    assert.deepEqual([compaction.code, compaction.stdout, compaction.stderr], [0, 'auto\n', 'crow: from default\n']);
    const file = join(home, 'config', 'crow-agent', 'config.toml');
    mkdirSync(join(home, 'config', 'crow-agent'), { recursive: true });
    const directive = '#:schema https://raw.githubusercontent.com/crow-agent/crow-agent/main/schemas/config.schema.json';
    writeFileSync(file, `${directive}\n# my notes\nmax_iterations = 20\n`);
    const set = await crow('config', 'set', 'max_iterations', '30');
    assert.equal(set.code, 0, set.stderr);
    const written = readFileSync(file, 'utf8');
    assert.deepEqual(written.split('\n').slice(0, 2), [directive, 'max_iterations = 30']);
    assert.doesNotMatch(written, /my notes/, 'other comments are not kept, as crow config --help says');
  });
});
