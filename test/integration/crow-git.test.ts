/**
 * Crow's own git in a hostile repository: the hooks a work-tree folder holds
 * (husky's `core.hooksPath = .husky`) never run when Spec Kit starts a
 * branch, no git Crow starts (Spec Kit's, the undo snapshots') sees a key
 * or runs without the code paths turned off, and the model cannot plant
 * what the user's own git runs next (the hooks folder, a work-tree config
 * file the repository includes). Through the real binary.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FakeLlmServer } from '../../testkit/fake-llm-server';
import { runCrow } from '../support/crow-binary';
import { isolatedEnv } from '../support/isolated-env';
import { describeSandboxed } from '../support/sandbox';
import { SPEC, writes } from '../support/speckit';

const OPENAI_KEY = 'sk-openai-user-key-0123456789abcdef';
const ANTHROPIC_KEY = 'sk-ant-user-key-0123456789abcdef';

const git = (cwd: string, ...args: string[]): string => execFileSync('git', args, { cwd, encoding: 'utf8' }).trim();

/** A repository with one commit whose user ran husky: hooks come from the work tree's .husky/. */
function huskyRepository(root: string): void {
  git(root, 'init', '-q', '-b', 'main');
  git(root, 'config', 'user.email', 'dev@example.com');
  git(root, 'config', 'user.name', 'Dev');
  writeFileSync(join(root, 'README.md'), '# Photos\n');
  git(root, 'add', '.');
  git(root, 'commit', '-qm', 'init');
  git(root, 'config', 'core.hooksPath', '.husky');
}

/** A hook that leaves the environment it ran with in `marker`. */
function plantHook(root: string, name: string, marker: string): void {
  mkdirSync(join(root, '.husky'), { recursive: true });
  writeFileSync(join(root, '.husky', name), `#!/bin/sh\nenv > '${marker}'\n`);
  chmodSync(join(root, '.husky', name), 0o755);
}

describe('Crow\'s own git in a hostile repository', function () {
  this.timeout(60_000);
  let llm: FakeLlmServer;
  let home: string;
  let root: string;
  let marker: string;
  let keys: Record<string, string>;

  before(async () => (llm = await FakeLlmServer.start()));
  after(() => llm.close());
  beforeEach(() => {
    llm.reset();
    home = realpathSync(mkdtempSync(join(tmpdir(), 'crow-git-home-')));
    root = realpathSync(mkdtempSync(join(tmpdir(), 'crow-git-ws-')));
    marker = join(home, 'hook-ran');
    keys = { ANTHROPIC_API_KEY: ANTHROPIC_KEY, ANTHROPIC_BASE_URL: llm.anthropicBaseUrl, OPENAI_API_KEY: OPENAI_KEY, CROW_SANDBOX: 'off' };
    huskyRepository(root);
    // Spec Kit 1.0's branches are opt-in: these tests ask for them in the user's settings.
    mkdirSync(join(home, 'config', 'crow-agent'), { recursive: true });
    writeFileSync(join(home, 'config', 'crow-agent', 'config.toml'), '[speckit]\ncreate_branch = true\n');
  });
  afterEach(() => {
    rmSync(home, { recursive: true, force: true });
    rmSync(root, { recursive: true, force: true });
  });

  it('/speckit.specify starts its branch without running the post-checkout hook the work tree holds', async () => {
    plantHook(root, 'post-checkout', marker);
    llm.enqueue('anthropic', ...writes('specs/001-photo-albums/spec.md', SPEC));
    const run = await runCrow(['run', '/speckit.specify Photo albums', '--allow', 'write', '--cwd', root], isolatedEnv(home, keys), root);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(git(root, 'symbolic-ref', '--short', 'HEAD'), '001-photo-albums', 'the branch was started');
    assert.ok(!existsSync(marker), `the hook ran, with: ${existsSync(marker) ? readFileSync(marker, 'utf8').split('\n').filter((l) => /KEY/.test(l)).join(', ') : ''}`);
  });

  it('every git Crow starts (Spec Kit, undo snapshots) runs with hooks, fsmonitor and the pager off, and without a key', async () => {
    // A git first on PATH that logs how it was started, then runs the real one.
    const bin = join(home, 'bin');
    const logs = join(home, 'git-calls');
    mkdirSync(bin);
    mkdirSync(logs);
    const realGit = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();
    // One file per call: Crow runs some git commands side by side.
    writeFileSync(join(bin, 'git'), `#!/bin/sh\n{ echo "ARGS $*"; env; } > '${logs}/call-'$$\nexec '${realGit}' "$@"\n`);
    chmodSync(join(bin, 'git'), 0o755);
    llm.enqueue(
      'anthropic',
      ...writes('specs/001-photo-albums/spec.md', SPEC),
    );
    const env = isolatedEnv(home, { ...keys, PATH: `${bin}:${process.env.PATH}` });
    const run = await runCrow(['run', '/speckit.specify Photo albums', '--allow', 'write', '--cwd', root], env, root);
    assert.equal(run.code, 0, run.stderr);
    const calls = readdirSync(logs).map((name) => readFileSync(join(logs, name), 'utf8'));
    const ours = calls.filter((call) => !/^ARGS (init|add|commit|config user)/.test(call));
    assert.ok(ours.some((call) => /ARGS .*switch --quiet -c 001-photo-albums/.test(call)), 'Spec Kit started the branch');
    assert.ok(ours.some((call) => /GIT_DIR=.*snapshots/.test(call)), 'the undo snapshots\' git ran');
    for (const call of ours) {
      const args = call.split('\n')[0]!;
      assert.match(args, /--no-pager .*-c core\.hooksPath=\/dev\/null .*-c core\.fsmonitor=false/, `git started without the code paths off: ${args}`);
      for (const key of [OPENAI_KEY, ANTHROPIC_KEY]) assert.ok(!call.includes(key), `git got a key: ${args}`);
    }
  });
});

describeSandboxed('the model and what the user\'s own git runs next', function () {
  this.timeout(60_000);
  let llm: FakeLlmServer;
  let home: string;
  let root: string;

  before(async () => (llm = await FakeLlmServer.start()));
  after(() => llm.close());
  beforeEach(() => {
    llm.reset();
    home = realpathSync(mkdtempSync(join(tmpdir(), 'crow-git-home-')));
    root = realpathSync(mkdtempSync(join(tmpdir(), 'crow-git-ws-')));
    huskyRepository(root);
    // Some projects keep shared git settings in the work tree and include them.
    git(root, 'config', 'include.path', '../.gitconfig.shared');
    writeFileSync(join(root, '.gitconfig.shared'), '[pull]\n\trebase = true\n');
  });
  afterEach(() => {
    rmSync(home, { recursive: true, force: true });
    rmSync(root, { recursive: true, force: true });
  });

  it('cannot plant a hook in the hooks folder nor fsmonitor in an included config file: both are protected like .git', async () => {
    const bash = (command: string) => ({ blocks: [{ type: 'tool_call' as const, name: 'bash', arguments: { command } }] });
    llm.enqueue(
      'anthropic',
      // Writers the command parser cannot see: only the sandbox stands in their way.
      bash(`node -e "const fs = require('fs'); fs.mkdirSync('.husky', { recursive: true }); fs.writeFileSync('.husky/pre-commit', 'touch pwned', { mode: 0o755 })"; echo planted`),
      bash(`node -e "require('fs').appendFileSync('.gitconfig.shared', '[core]\\\\n\\\\tfsmonitor = touch pwned\\\\n')"; echo appended`),
      { blocks: [{ type: 'tool_call', name: 'write_file', arguments: { path: '.husky/post-checkout', content: '#!/bin/sh\ntouch pwned\n' } }] },
      { blocks: [{ type: 'text', text: 'Tried.' }] },
    );
    const env = isolatedEnv(home, { ANTHROPIC_API_KEY: ANTHROPIC_KEY, ANTHROPIC_BASE_URL: llm.anthropicBaseUrl });
    const run = await runCrow(['run', 'Set up hooks', '--cwd', root, '--provider', 'anthropic', '--model', 'claude-test', '--allow', 'write'], env, root);
    assert.equal(run.code, 0, run.stderr);
    assert.ok(!existsSync(join(root, '.husky', 'pre-commit')), 'a command planted a pre-commit hook');
    assert.ok(!existsSync(join(root, '.husky', 'post-checkout')), 'write_file planted a post-checkout hook');
    assert.equal(readFileSync(join(root, '.gitconfig.shared'), 'utf8'), '[pull]\n\trebase = true\n', 'the included config file changed');
    const told = JSON.stringify(llm.requestsFor('anthropic').slice(1).map((request) => request.body.messages.at(-1)));
    assert.match(told, /read-only file system/i);
    assert.match(told, /planted/);
    assert.match(told, /protected path/);
    // The user's next commit runs no hook of the model's.
    git(root, 'commit', '-q', '--allow-empty', '-m', 'next');
    assert.ok(!existsSync(join(root, 'pwned')));
  });
});
