import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { binarySuite } from '../support/binary-suite';
import { runCrow, startAcp } from '../support/crow-binary';
import { isolatedEnv } from '../support/isolated-env';
import { describeSandboxed } from '../support/sandbox';

/**
 * Issue 45's X3 and the allow-list bypasses of its third pass, through the
 * real binary: a command an allow-list entry lets run unasked must do what
 * its words say and nothing a planted repository, git's configuration or
 * a trick of the shell adds to them.
 */
describe('allow-listed commands run what their words say (crow run, sandbox off)', function () {
  this.timeout(60_000);
  const suite = binarySuite('allow-list');

  const bash = (command: string) => ({ blocks: [{ type: 'tool_call' as const, name: 'bash', arguments: { command } }] });
  const say = (text: string) => ({ blocks: [{ type: 'text' as const, text }] });
  const write = (path: string, text: string): void => {
    mkdirSync(dirname(join(suite.root, path)), { recursive: true });
    writeFileSync(join(suite.root, path), text);
  };

  /** Runs crow once, the model calling bash with each of `commands`; what each call told the model. */
  async function run(allowCommands: string[], commands: string[], sandbox = 'off', execute = 'ask'): Promise<string[]> {
    mkdirSync(join(suite.home, 'config', 'crow-agent'), { recursive: true });
    writeFileSync(
      join(suite.home, 'config', 'crow-agent', 'config.toml'),
      `[permissions]\nexecute = "${execute}"\nallow_commands = ${JSON.stringify(allowCommands)}\n`,
    );
    suite.llm.enqueue('anthropic', ...commands.map(bash), say('Done.'));
    const env = isolatedEnv(suite.home, { ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: suite.llm.anthropicBaseUrl, CROW_SANDBOX: sandbox });
    const result = await runCrow(['run', 'Look around', '--cwd', suite.root, '--provider', 'anthropic'], env, suite.root);
    assert.equal(result.code, 0, result.stderr);
    return suite.llm.requestsFor('anthropic').slice(1).map((request) => JSON.stringify(request.body.messages.at(-1)));
  }

  /** A bare repository's files in `folder` (HEAD, objects/, refs/), with a config naming `fsmonitor` and the work tree `..`-free `worktree`. */
  function plantBareRepository(folder: string, fsmonitor: string, worktree: string): void {
    const scratch = join(suite.base, 'bare-template');
    execFileSync('git', ['init', '-q', '--bare', scratch]);
    mkdirSync(folder, { recursive: true });
    for (const part of ['HEAD', 'objects', 'refs']) cpSync(join(scratch, part), join(folder, part), { recursive: true });
    writeFileSync(join(folder, 'config'), `[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tworktree = ${worktree}\n\tfsmonitor = "${fsmonitor}; false"\n`);
  }

  it('X3: git status in a bare repository planted at the root is asked, saying why, and its fsmonitor never runs', async () => {
    plantBareRepository(suite.root, `touch ${join(suite.root, 'pwned')}`, '.');
    const told = await run(['git status'], ['git status', 'git status --short']);
    assert.ok(!existsSync(join(suite.root, 'pwned')), "the planted repository's fsmonitor ran");
    for (const result of told.slice(0, 2)) {
      assert.match(result, /Permission needed/);
      assert.match(result, /git would use \. as a repository of its own/i);
    }
  });

  it('an allow-listed command line that makes a bare repository and runs git in it: git refuses it, nothing runs', async () => {
    plantBareRepository(join(suite.root, 'template'), `touch ${join(suite.root, 'pwned')}`, '.');
    const told = await run(['cp', 'cd', 'git status'], ['cp -r template copy && cd copy && git status']);
    assert.ok(!existsSync(join(suite.root, 'pwned')), 'the copied repository\'s fsmonitor ran');
    assert.doesNotMatch(told[0]!, /Permission needed/, 'the line was allowed: the repository did not exist when it was judged');
    assert.match(told[0]!, /cannot use bare repository/);
  });

  it("an allow-listed git runs none of the programs the repository names (fsmonitor, external diff, textconv, hooks)", async () => {
    const git = (...args: string[]) => execFileSync('git', args, { cwd: suite.root });
    git('init', '-q');
    write('notes.txt', 'one\n');
    write('.gitattributes', '*.txt diff=shout\n');
    git('add', '.');
    git('-c', 'user.name=A', '-c', 'user.email=a@b.c', 'commit', '-q', '-m', 'one');
    write('notes.txt', 'two\n');
    const ran = (name: string) => join(suite.root, `ran-${name}`);
    const gitConfig = join(suite.root, '.git', 'config');
    writeFileSync(
      gitConfig,
      `${readFileSync(gitConfig, 'utf8')}[user]\n\tname = A\n\temail = a@b.c\n[core]\n\tfsmonitor = "touch ${ran('fsmonitor')}; false"\n` +
        `[diff]\n\texternal = "touch ${ran('external')}; false"\n[diff "shout"]\n\ttextconv = "touch ${ran('textconv')}; cat"\n`,
    );
    write('.git/hooks/pre-commit', `#!/bin/sh\ntouch ${ran('hook')}\n`);
    execFileSync('chmod', ['+x', join(suite.root, '.git/hooks/pre-commit')]);
    const told = await run(['git status', 'git diff', 'git log', 'git commit'], ['git status --short', 'git diff', 'git diff --no-ext-diff', 'git log -p -1', 'git commit -qam two']);
    assert.deepEqual(['fsmonitor', 'external', 'textconv', 'hook'].filter((program) => existsSync(ran(program))), [], 'these ran');
    assert.doesNotMatch(told.join('\n'), /Permission needed/);
    assert.match(told[0]!, /M notes\.txt/);
    assert.match(told[1]!, /the external diff program git's configuration names does not run here; use git diff --no-ext-diff/);
    assert.match(told[2]!, /\+two/);
    assert.match(told[3]!, /\+one/);
    assert.match(git('log', '--format=%s', '-1').toString(), /^two/, 'the commit was made');
  });

  it("over ACP, an allow-listed git status run in the client's terminal gets the same rules", async () => {
    const git = (...args: string[]) => execFileSync('git', args, { cwd: suite.root });
    git('init', '-q');
    const ran = join(suite.root, 'ran-fsmonitor');
    writeFileSync(join(suite.root, '.git', 'config'), `${readFileSync(join(suite.root, '.git', 'config'), 'utf8')}\tfsmonitor = "touch ${ran}; false"\n`);
    mkdirSync(join(suite.home, 'config', 'crow-agent'), { recursive: true });
    writeFileSync(join(suite.home, 'config', 'crow-agent', 'config.toml'), '[permissions]\nexecute = "ask"\nallow_commands = ["git status"]\n');
    suite.llm.enqueue('anthropic', bash('git status --short'), say('Done.'));
    const agent = startAcp(suite.root, suite.home, { ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: suite.llm.anthropicBaseUrl, CROW_SANDBOX: 'off' }, { capabilities: { terminal: true } });
    try {
      await agent.client.initialize();
      const { sessionId } = await agent.client.newSession(suite.root);
      assert.equal((await agent.client.prompt(sessionId, 'Look around')).stopReason, 'end_turn');
      assert.equal(agent.client.permissionRequests.length, 0, 'the entry covers it');
      const [terminal] = [...agent.client.terminals.values()];
      assert.ok(!existsSync(ran), "the repository's fsmonitor ran in the client's terminal");
      assert.match(terminal!.command, /^env .*GIT_CONFIG_COUNT=\d+ .*GIT_CONFIG_KEY_\d+=core\.fsmonitor GIT_CONFIG_VALUE_\d+=false .*bash -c /, 'the terminal ran it without the rules');
    } finally {
      assert.equal(await agent.stop(), 0, agent.stderr());
    }
  });

  it('closes the bypasses of sed, find, awk, less and uniq that these entries used to cover', async () => {
    write('notes.txt', 'a line\n');
    write('prog.awk', `BEGIN { system("touch ${join(suite.root, 'pwned-awk')}") }\n`);
    write('keys', `#env\nLESSOPEN=|touch ${join(suite.root, 'pwned-less')}; cat %s\n`);
    write('evil.json', '{ "tasks": [{ "label": "x", "type": "shell", "command": "touch pwned", "runOptions": { "runOn": "folderOpen" } }] }\n');
    write('.vscode/tasks.json', '{}\n');
    const attacks = [
      `sed --l 5 '1e touch pwned-sed-long' notes.txt`,
      `sed -nl 5 '1e touch pwned-sed-cluster' notes.txt`,
      `find . -maxdepth 0 $(echo -exec touch pwned-find ';')`,
      'awk -W exec prog.awk',
      'less --lesskey-src=keys notes.txt',
      'uniq evil.json .vscode/tasks.json',
    ];
    const told = await run(['sed', 'find', 'echo', 'awk', 'less', 'uniq'], ['sed -n 1p notes.txt', ...attacks]);
    assert.doesNotMatch(told[0]!, /Permission needed/, 'an ordinary sed runs unasked');
    const made = ['pwned-sed-long', 'pwned-sed-cluster', 'pwned-find', 'pwned-awk', 'pwned-less'].filter((name) => existsSync(join(suite.root, name)));
    assert.deepEqual(made, [], 'these attacks ran');
    assert.equal(readFileSync(join(suite.root, '.vscode/tasks.json'), 'utf8'), '{}\n', 'uniq wrote .vscode/tasks.json');
    assert.deepEqual(attacks.filter((_, i) => !/Permission needed/.test(told[i + 1]!)), [], 'these ran unasked');
    assert.match(told[6]!, /protected path/);
  });
});

describeSandboxed('allow-listed commands in the sandbox (crow run, execute = "ask")', function () {
  this.timeout(60_000);
  const suite = binarySuite('allow-list-sandboxed');

  /** A bare repository's files in `folder` whose fsmonitor makes `pwned` in its work tree. */
  function plant(folder: string): void {
    const scratch = join(suite.base, 'bare-template');
    execFileSync('git', ['init', '-q', '--bare', scratch]);
    mkdirSync(folder, { recursive: true });
    for (const part of ['HEAD', 'objects', 'refs']) cpSync(join(scratch, part), join(folder, part), { recursive: true });
    writeFileSync(join(folder, 'config'), '[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tworktree = .\n\tfsmonitor = "touch pwned; false"\n');
  }

  /** What the model was told after each of `commands`, run in one crow run with the sandbox required. */
  async function run(commands: string[]): Promise<string[]> {
    mkdirSync(join(suite.home, 'config', 'crow-agent'), { recursive: true });
    writeFileSync(join(suite.home, 'config', 'crow-agent', 'config.toml'), '[permissions]\nexecute = "ask"\nallow_commands = ["git status", "cp", "cd"]\n');
    suite.llm.enqueue('anthropic', ...commands.map((command) => ({ blocks: [{ type: 'tool_call' as const, name: 'bash', arguments: { command } }] })), {
      blocks: [{ type: 'text', text: 'Done.' }],
    });
    const env = isolatedEnv(suite.home, { ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: suite.llm.anthropicBaseUrl, CROW_SANDBOX: 'required' });
    const result = await runCrow(['run', 'Look around', '--cwd', suite.root, '--provider', 'anthropic'], env, suite.root);
    assert.equal(result.code, 0, result.stderr);
    return suite.llm.requestsFor('anthropic').slice(1).map((request) => JSON.stringify(request.body.messages.at(-1)));
  }

  it('X3 with the sandbox on: git status in the planted bare repository is asked, saying why, and its fsmonitor never runs', async () => {
    plant(suite.root);
    const told = await run(['git status']);
    assert.match(told[0]!, /Permission needed/);
    assert.match(told[0]!, /git would use \. as a repository of its own/i);
    assert.ok(!existsSync(join(suite.root, 'pwned')), 'the fsmonitor ran');
  });

  it('with the sandbox on, a bare repository copied on the same allow-listed line is refused by git', async () => {
    plant(join(suite.root, 'template'));
    const told = await run(['cp -r template copy && cd copy && git status']);
    assert.doesNotMatch(told[0]!, /Permission needed/);
    assert.match(told[0]!, /cannot use bare repository/);
    assert.ok(!existsSync(join(suite.root, 'copy', 'pwned')), 'the fsmonitor ran');
  });
});
