import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import { devNull } from 'node:os';
import * as path from 'node:path';
import { bashTool } from '../../../src/tools/builtin/bash';
import { type CommandLaunch, inheritingCommandLine } from '../../../src/tools/command-sandbox';
import { coveredCommandLaunch } from '../../../src/tools/covered-command';
import { PermissionGate, type PermissionRequest } from '../../../src/tools/permissions';
import { GIT_CODE_OFF, GIT_PROGRAMS_OFF, gitProgramsOffVariables, readRepositoryGit } from '../../../src/tools/repository-git';
import { DEFAULT_POLICY } from '../../../src/vocabulary/permission-types';
import { describeSandboxed } from '../../support/sandbox';
import { tempDir, tempWorkspace, toolContext } from './temp-workspace';

/** An environment without the machine's or the user's git configuration, for git run by the tests. */
const quietGit = (home: string): NodeJS.ProcessEnv => ({ PATH: process.env.PATH, HOME: home, GIT_CONFIG_NOSYSTEM: '1', XDG_CONFIG_HOME: path.join(home, '.cfg') });

describe('git under the rules of a command entries let run unasked', () => {
  let root: string;
  let remove: () => void;
  const git = (env: NodeJS.ProcessEnv, ...args: string[]): string => execFileSync('git', args, { cwd: root, env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  const ran = (name: string): string => path.join(root, `ran-${name}`);

  beforeEach(() => ({ dir: root, remove } = tempDir('crow-covered-')));
  afterEach(() => remove());

  it("refuses a bare repository planted in the folder, which git otherwise uses with its config's fsmonitor", async () => {
    const scratch = path.join(root, 'scratch.git');
    git(quietGit(root), 'init', '-q', '--bare', scratch);
    for (const part of ['HEAD', 'objects', 'refs']) fs.cpSync(path.join(scratch, part), path.join(root, part), { recursive: true });
    fs.writeFileSync(path.join(root, 'config'), `[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tworktree = .\n\tfsmonitor = "touch '${ran('fsmonitor')}'; false"\n`);
    git(quietGit(root), 'status');
    assert.ok(fs.existsSync(ran('fsmonitor')), 'the planted repository works as an attack without the rules');
    fs.rmSync(ran('fsmonitor'));
    const variables = gitProgramsOffVariables(await readRepositoryGit(root, quietGit(root)));
    assert.throws(() => git({ ...quietGit(root), ...variables }, 'status'), /cannot use bare repository/);
    assert.ok(!fs.existsSync(ran('fsmonitor')));
  });

  it('runs no program the configuration names, and git diff still diffs when no external diff is configured', async () => {
    const env = quietGit(root);
    git(env, 'init', '-q');
    git(env, 'config', 'user.name', 'A');
    git(env, 'config', 'user.email', 'a@b.c');
    fs.writeFileSync(path.join(root, 'a.txt'), 'one\n');
    fs.writeFileSync(path.join(root, '.gitattributes'), 'a.txt diff=shout filter=loud\n');
    git(env, 'add', '.');
    git(env, 'commit', '-qm', 'one');
    fs.writeFileSync(path.join(root, 'a.txt'), 'two\n');
    const plain = gitProgramsOffVariables(await readRepositoryGit(root, env));
    assert.match(git({ ...env, ...plain }, 'diff'), /^\+two$/m, 'nothing configured: git diff is git diff');

    const signed = signedCommit(env);
    fs.writeFileSync(path.join(root, 'fake-gpg'), `#!/bin/sh\ntouch '${ran('gpg')}'\n`, { mode: 0o755 });
    fs.mkdirSync(path.join(root, '.hooks'));
    fs.writeFileSync(path.join(root, '.hooks', 'pre-commit'), `#!/bin/sh\ntouch '${ran('hook')}'\n`, { mode: 0o755 });
    git(env, 'config', 'core.fsmonitor', `touch '${ran('fsmonitor')}'; false`);
    git(env, 'config', 'core.hooksPath', '.hooks');
    git(env, 'config', 'diff.shout.textconv', `touch '${ran('textconv')}'; cat`);
    git(env, 'config', 'filter.loud.clean', `touch '${ran('clean')}'; cat`);
    git(env, 'config', 'diff.external', `touch '${ran('external')}'; false`);
    git(env, 'config', 'gpg.program', path.join(root, 'fake-gpg'));
    const programs = ['fsmonitor', 'clean', 'external', 'textconv', 'hook', 'gpg'];
    const everything = (with_: NodeJS.ProcessEnv): void => {
      fs.writeFileSync(path.join(root, 'a.txt'), `${Math.random()}\n`);
      for (const args of [['status', '--short'], ['diff'], ['log', '-p', '-1'], ['commit', '-qam', 'next'], ['log', '--show-signature', '-1', signed]]) {
        try {
          git(with_, ...args);
        } catch {
          // a program that failed still ran; that is what is counted
        }
      }
    };
    everything(env);
    assert.deepEqual(programs.filter((name) => fs.existsSync(ran(name))), programs, 'without the rules git runs each of them');
    for (const name of programs) fs.rmSync(ran(name));

    const variables = { ...env, ...gitProgramsOffVariables(await readRepositoryGit(root, env)) };
    everything(variables);
    assert.deepEqual(programs.filter((name) => fs.existsSync(ran(name))), [], 'with the rules git runs none');
    fs.writeFileSync(path.join(root, 'a.txt'), 'last\n');
    assert.throws(() => git(variables, 'diff'), /the external diff program git's configuration names does not run here; use git diff --no-ext-diff/);
    assert.match(git(variables, 'diff', '--no-ext-diff'), /^\+last$/m);
  });

  /** A commit carrying a (fake) signature, which `git log --show-signature` hands to gpg.program. */
  function signedCommit(env: NodeJS.ProcessEnv): string {
    const tree = git(env, 'rev-parse', 'HEAD^{tree}').trim();
    const body = `tree ${tree}\nauthor A <a@b.c> 0 +0000\ncommitter A <a@b.c> 0 +0000\ngpgsig -----BEGIN PGP SIGNATURE-----\n \n x\n -----END PGP SIGNATURE-----\n\nsigned\n`;
    return execFileSync('git', ['hash-object', '-t', 'commit', '-w', '--stdin'], { cwd: root, env, input: body, encoding: 'utf8' }).trim();
  }

  it("shares GIT_PROGRAMS_OFF with Crow's own git, which also turns off what it never needs", () => {
    assert.deepEqual(GIT_CODE_OFF.slice(0, GIT_PROGRAMS_OFF.length), GIT_PROGRAMS_OFF);
    for (const setting of ['safe.bareRepository=explicit', 'core.fsmonitor=false', `core.hooksPath=${devNull}`, 'credential.helper=']) {
      assert.ok(GIT_PROGRAMS_OFF.includes(setting), setting);
    }
    assert.ok(GIT_CODE_OFF.includes('protocol.allow=never') && !GIT_PROGRAMS_OFF.includes('protocol.allow=never'), 'commands may still fetch');
    const variables = gitProgramsOffVariables({ overrides: ['filter.a.clean='], codePaths: [] });
    assert.equal(variables.GIT_CONFIG_COUNT, String(GIT_PROGRAMS_OFF.length + 1));
    assert.equal(variables[`GIT_CONFIG_KEY_${GIT_PROGRAMS_OFF.length}`], 'filter.a.clean');
    assert.equal(variables[`GIT_CONFIG_VALUE_${GIT_PROGRAMS_OFF.length}`], '');
    assert.deepEqual([variables.GIT_PAGER, variables.GIT_EDITOR, variables.GIT_TERMINAL_PROMPT], ['cat', ':', '0']);
  });

  it('reads no override from its own command line into the repository listing', async () => {
    git(quietGit(root), 'init', '-q');
    const repository = await readRepositoryGit(root, quietGit(root));
    assert.ok(!repository.overrides.some((setting) => setting.startsWith('diff.external=')), 'diff.external= of GIT_CODE_OFF is no external diff of the repository');
  });
});

describe('the launch of a command entries let run unasked', () => {
  const launch = (): CommandLaunch & { released: number } => {
    const made = { wrapper: [], env: { PATH: '/bin', BASH_ENV: '/ws/.rc', ENV: '/ws/.rc', GIT_CONFIG_COUNT: '1' }, unset: ['SECRET'], released: 0, release: () => void made.released++ };
    return made;
  };

  it('gives git the settings and the shell no startup file, on every route', async () => {
    const { dir, remove } = tempDir('crow-covered-launch-');
    try {
      const covered = await coveredCommandLaunch(launch(), dir, quietGit(dir));
      const expected = gitProgramsOffVariables(await readRepositoryGit(dir, quietGit(dir)));
      assert.equal(covered.env.BASH_ENV, undefined);
      assert.equal(covered.env.ENV, undefined);
      assert.equal(covered.env.GIT_CONFIG_COUNT, expected.GIT_CONFIG_COUNT, 'the environment\'s own list is replaced');
      assert.deepEqual(covered.unset, ['SECRET', 'BASH_ENV', 'ENV']);
      assert.deepEqual(covered.set, expected);
      const line = inheritingCommandLine(covered, ['bash', '-c', 'git status']);
      assert.deepEqual(line.slice(0, 7), ['env', '-u', 'SECRET', '-u', 'BASH_ENV', '-u', 'ENV']);
      assert.ok(line.includes('GIT_CONFIG_KEY_0=core.hooksPath') && line.includes(`GIT_CONFIG_COUNT=${expected.GIT_CONFIG_COUNT}`));
      assert.deepEqual(line.slice(-3), ['bash', '-c', 'git status']);
    } finally {
      remove();
    }
  });

  it('refuses, releasing what the launch holds, when the configuration names a driver no setting can turn off', async () => {
    const { dir, remove } = tempDir('crow-covered-launch-');
    try {
      execFileSync('git', ['init', '-q'], { cwd: dir, env: quietGit(dir) });
      fs.appendFileSync(path.join(dir, '.git', 'config'), '[filter "a=b"]\n\tclean = ./x\n');
      const held = launch();
      await assert.rejects(coveredCommandLaunch(held, dir, quietGit(dir)), /Not run: the git config .* names a filter "a=b" that Crow cannot turn off when it runs git; rename it/);
      assert.equal(held.released, 1);
    } finally {
      remove();
    }
  });
});

describe('bash: a command entries let run unasked', () => {
  const ws = tempWorkspace({ '.rc': 'echo sourced-startup-file\n' });
  after(() => ws.remove());
  const probe = 'git config --get safe.bareRepository; echo "[$BASH_ENV]"';

  it('runs under the rules when an entry covers it, and as it is when a person allowed it', async () => {
    process.env.BASH_ENV = path.join(ws.root, '.rc');
    try {
      const asked: PermissionRequest[] = [];
      const gate = new PermissionGate({
        policy: { ...DEFAULT_POLICY, rules: { ...DEFAULT_POLICY.rules, execute: 'ask' }, allowCommands: ['git config --get', 'echo'] },
        ask: async (request) => (asked.push(request), 'allow_once'),
      });
      const run = (command: string) => bashTool.run(JSON.stringify({ command }), toolContext(ws.workspace, undefined, { permissions: gate }));
      assert.equal((await run(probe)).output, 'explicit\n[]\n[exit code 0]');
      assert.equal(asked.length, 0);
      const byPerson = await run(`${probe}; true`);
      assert.equal(asked.length, 1);
      assert.match(byPerson.output, /^sourced-startup-file\n/, 'a person allowed it: the user\'s BASH_ENV is read as always');
      assert.doesNotMatch(byPerson.output, /explicit/);
    } finally {
      delete process.env.BASH_ENV;
    }
  });

  it('reads no .bashrc of a workspace that holds HOME, nor aliases or functions from one', async () => {
    fs.writeFileSync(path.join(ws.root, '.bashrc'), 'git() { echo function-from-bashrc; }\nalias ls="echo alias-from-bashrc"\n');
    const home = process.env.HOME;
    process.env.HOME = ws.root;
    try {
      const result = await ws.workspace.exec('git --version; ls -d .', { timeoutMs: 10_000, signal: new AbortController().signal, coveredByEntries: true });
      assert.match(result.output, /^git version .*\n\.\n$/);
    } finally {
      process.env.HOME = home;
    }
  });
});

describeSandboxed('a command entries let run unasked, in the sandbox', () => {
  const ws = tempWorkspace({}, { sandbox: { mode: 'required', protectedPaths: [], network: false, hiddenVariables: [] } });
  after(() => ws.remove());

  it('gets the same settings inside bubblewrap', async () => {
    const options = { timeoutMs: 10_000, signal: new AbortController().signal };
    const covered = await ws.workspace.exec('git config --get safe.bareRepository; git config --get core.fsmonitor', { ...options, coveredByEntries: true });
    assert.equal(covered.output, 'explicit\nfalse\n');
    assert.equal((await ws.workspace.exec('git config --get safe.bareRepository; echo end', options)).output, 'end\n');
  });
});
