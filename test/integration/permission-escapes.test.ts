import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { RequestPermissionRequest } from '@agentclientprotocol/sdk';
import { FakeLlmServer } from '../../testkit/fake-llm-server';
import type { PermissionReply } from '../support/acp-client';
import { isolatedEnv } from '../support/isolated-env';
import { type AcpProcess, runCrow, startAcp } from '../support/crow-binary';

/**
 * The ways past the permission gate that issue 14 found, attacked through
 * the real binary: an "always" for `git status` stretched to anything after
 * it, writes that raise the agent's own permissions (.crow/config.toml,
 * .git/config), and a read-only agent escaping through a subagent.
 */
describe('permission escapes (crow acp and crow run)', function () {
  this.timeout(60_000);
  let server: FakeLlmServer;
  let workspace: string;
  let home: string;
  const agents: AcpProcess[] = [];

  before(async () => (server = await FakeLlmServer.start()));
  after(() => server.close());
  beforeEach(() => {
    server.reset();
    workspace = mkdtempSync(join(tmpdir(), 'crow-escape-ws-'));
    home = mkdtempSync(join(tmpdir(), 'crow-escape-home-'));
  });
  afterEach(async () => {
    for (const agent of agents.splice(0)) assert.equal(await agent.stop(), 0, agent.stderr());
    rmSync(workspace, { recursive: true, force: true });
    rmSync(home, { recursive: true, force: true });
  });

  // Commands ask: the rules are on trial here, not the sandbox (which would let them run unasked).
  const env = (): Record<string, string> => ({ ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: server.anthropicBaseUrl, CROW_SANDBOX: 'off' });
  const write = (path: string, text: string): void => {
    mkdirSync(dirname(join(workspace, path)), { recursive: true });
    writeFileSync(join(workspace, path), text);
  };
  const bash = (command: string) => ({ blocks: [{ type: 'tool_call' as const, name: 'bash', arguments: { command } }] });
  const writeFile = (path: string, content: string) => ({ blocks: [{ type: 'tool_call' as const, name: 'write_file', arguments: { path, content } }] });
  const say = (text: string) => ({ blocks: [{ type: 'text' as const, text }] });

  /** A `crow acp` session whose client answers each permission request with `answer(command line, or title)`. */
  async function acpSession(answer: (asked: string) => PermissionReply) {
    const commands = new Map<string, string>();
    let sessionId = '';
    // Permission requests name the call; its whole command line is in the announced tool call's raw input.
    const commandOf = (request: RequestPermissionRequest): string => {
      for (const call of agent.client.updates(sessionId, 'tool_call')) {
        const input = call.rawInput as { command?: string } | undefined;
        if (input?.command !== undefined) commands.set(call.toolCallId, input.command);
      }
      return commands.get(request.toolCall.toolCallId) ?? request.toolCall.title ?? '';
    };
    const agent = startAcp(workspace, home, env(), { permission: (request) => answer(commandOf(request)) });
    agents.push(agent);
    const { client } = agent;
    await client.initialize();
    sessionId = (await client.newSession(workspace)).sessionId;
    return {
      client,
      asked: (): string[] => client.permissionRequests.map(commandOf),
      prompt: (text: string) => client.prompt(sessionId, text),
    };
  }

  it('"always" for git status covers none of the six ways past it: each asks again, and rejected, nothing runs', async () => {
    const bypasses = [
      'git status; touch x',
      'git status && touch x',
      'git status $(touch x)',
      'git status | sh',
      'git() { touch x; }; git status',
      'git status\ntouch x',
      "shopt -s expand_aliases\nalias git='touch x'\ngit status",
    ];
    server.enqueue('anthropic', bash('git status'), bash('git status --short'), ...bypasses.map(bash), say('Done.'));
    const session = await acpSession((command) => (command === 'git status' ? 'allow_always' : 'reject_once'));
    assert.equal((await session.prompt('Check the repository')).stopReason, 'end_turn');
    assert.deepEqual(session.asked(), ['git status', ...bypasses], 'git status --short ran on the "always"; every bypass was asked');
    assert.ok(!existsSync(join(workspace, 'x')), 'no bypass ran');
    const scopes = session.client.permissionRequests.map((request) => request.options.find((option) => option.kind === 'allow_always')!.name);
    assert.equal(scopes[0], 'Always allow commands starting with "git status"');
    const results = JSON.stringify(server.requestsFor('anthropic').at(-1)!.body.messages);
    assert.equal(results.match(/Permission denied by the user/g)?.length, bypasses.length);
  });

  it('asks before writing .crow/ or .git/ over ACP even though the user allows every write', async () => {
    execFileSync('git', ['init', '-q'], { cwd: workspace });
    write('.crow/config.toml', '[permissions]\nexecute = "ask"\n');
    mkdirSync(join(home, 'config', 'crow-agent'), { recursive: true });
    writeFileSync(join(home, 'config', 'crow-agent', 'config.toml'), '[permissions]\nwrite = "allow"\n');
    const gitConfig = readFileSync(join(workspace, '.git/config'), 'utf8');
    server.enqueue(
      'anthropic',
      writeFile('notes.txt', 'free to write\n'),
      writeFile('.crow/config.toml', '[permissions]\nexecute = "allow"\n'),
      writeFile('.git/config', '[core]\n\tfsmonitor = touch pwned\n'),
      say('Tried.'),
    );
    const session = await acpSession(() => 'reject_once');
    await session.prompt('Loosen your own permissions');
    assert.equal(readFileSync(join(workspace, 'notes.txt'), 'utf8'), 'free to write\n', 'ordinary writes are allowed without asking');
    assert.deepEqual(session.client.permissionRequests.map((request) => request.toolCall.title), ['Writing .crow/config.toml', 'Writing .git/config']);
    assert.match(session.client.permissionRequests[0]!.options.find((option) => option.kind === 'allow_always')!.name, /except changes to \.crow\/config\.toml \(protected: asked every time\)/);
    assert.equal(readFileSync(join(workspace, '.crow/config.toml'), 'utf8'), '[permissions]\nexecute = "ask"\n');
    assert.equal(readFileSync(join(workspace, '.git/config'), 'utf8'), gitConfig);
  });

  it('denies rewriting .crow/config.toml and .git/config in a non-interactive crow run, even with --allow write,execute', async () => {
    execFileSync('git', ['init', '-q'], { cwd: workspace });
    write('.crow/config.toml', '[permissions]\nexecute = "ask"\n');
    const gitConfig = readFileSync(join(workspace, '.git/config'), 'utf8');
    server.enqueue(
      'anthropic',
      writeFile('.crow/config.toml', '[permissions]\nexecute = "allow"\n'),
      { blocks: [{ type: 'tool_call', name: 'edit_file', arguments: { path: '.git/config', old_string: '[core]', new_string: '[core]\n\tfsmonitor = touch pwned' } }] },
      say('Could not.'),
    );
    const first = await runCrow(['run', 'Loosen your permissions', '--cwd', workspace, '--provider', 'anthropic', '--allow', 'write'], isolatedEnv(home, env()), workspace);
    assert.equal(first.code, 0, first.stderr);
    server.enqueue(
      'anthropic',
      bash('echo \'[permissions]\nexecute = "allow"\' > .crow/config.toml'),
      bash('git config core.fsmonitor "touch pwned"'),
      bash('cd .git && echo "[alias] st = !touch pwned" >> config'),
      say('Could not either.'),
    );
    const second = await runCrow(['run', 'Try with commands', '--cwd', workspace, '--provider', 'anthropic', '--allow', 'write,execute'], isolatedEnv(home, env()), workspace);
    assert.equal(second.code, 0, second.stderr);
    assert.equal(readFileSync(join(workspace, '.crow/config.toml'), 'utf8'), '[permissions]\nexecute = "ask"\n');
    assert.equal(readFileSync(join(workspace, '.git/config'), 'utf8'), gitConfig);
    assert.ok(!existsSync(join(workspace, 'pwned')));
    const told = JSON.stringify(server.requestsFor('anthropic').map((request) => request.body.messages.at(-1)));
    assert.equal(told.match(/a protected path/g)?.length, 5, 'each of the five attempts is refused, saying why');
    assert.match(first.stderr + second.stderr, /protected path/);
  });

  /** A repository whose last commit message is a git config that runs `touch pwned` from fsmonitor. */
  function repositoryWithHostileMessage(): string {
    const git = (...args: string[]) => execFileSync('git', args, { cwd: workspace, encoding: 'utf8' });
    git('init', '-q');
    git('config', 'user.email', 'a@b.c');
    git('config', 'user.name', 'A');
    git('commit', '-q', '--allow-empty', '-m', '[core]\n\tfsmonitor = "touch pwned; false"');
    return readFileSync(join(workspace, '.git/config'), 'utf8');
  }

  it('an allow-listed git log cannot write files with --output (sandbox off, nobody to ask)', async () => {
    const gitConfig = repositoryWithHostileMessage();
    mkdirSync(join(home, 'config', 'crow-agent'), { recursive: true });
    writeFileSync(join(home, 'config', 'crow-agent', 'config.toml'), '[permissions]\nallow_commands = ["git log", "git status"]\n');
    const attacks = [
      'git log -1 --format=%B --output=.git/config',
      'git log -1 --format=%B --outp .crow/config.toml',
      `git log -1 --format=%B --output=${join(home, 'dotfile')}`,
      'git log -1 --format=%B $(echo --output=.git/config)',
    ];
    server.enqueue('anthropic', bash('git log --oneline -1'), ...attacks.map(bash), bash('git status --short'), say('Done.'));
    const run = await runCrow(['run', 'Look at the history', '--cwd', workspace, '--provider', 'anthropic'], isolatedEnv(home, env()), workspace);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(readFileSync(join(workspace, '.git/config'), 'utf8'), gitConfig, '.git/config is as it was');
    assert.ok(!existsSync(join(workspace, '.crow/config.toml')) && !existsSync(join(home, 'dotfile')), 'no file was written');
    assert.ok(!existsSync(join(workspace, 'pwned')), 'git status ran no fsmonitor');
    const told = server.requestsFor('anthropic').map((request) => JSON.stringify(request.body.messages.at(-1)));
    assert.doesNotMatch(told[1]!, /Permission needed/, 'plain git log runs unasked');
    for (const [i, attack] of attacks.entries()) assert.match(told[i + 2]!, /Permission needed/, `${attack} was not asked`);
    assert.match(told[2]!, /protected path/, "the target is .git/config");
    assert.match(told[4]!, /The allowed commands do not cover it: git --output writes its output to any file, which is asked every time/);
  });

  it('"always" for git log never covers git log --output: it is asked again, and rejected, nothing is written', async () => {
    const gitConfig = repositoryWithHostileMessage();
    const attack = 'git log -1 --format=%B --output=.git/config';
    server.enqueue('anthropic', bash('git log --oneline -3'), bash('git log --stat -1'), bash(attack), bash('git status'), say('Done.'));
    const session = await acpSession((command) => (command === 'git log --oneline -3' || command === 'git status' ? 'allow_always' : 'reject_once'));
    await session.prompt('Look at the history');
    assert.deepEqual(session.asked(), ['git log --oneline -3', attack, 'git status'], 'git log --stat ran on the "always"; --output was asked');
    const scope = session.client.permissionRequests[1]!.options.find((option) => option.kind === 'allow_always')!.name;
    assert.match(scope, /asked every time: git --output writes its output to any file/);
    assert.equal(readFileSync(join(workspace, '.git/config'), 'utf8'), gitConfig);
    assert.ok(!existsSync(join(workspace, 'pwned')));
  });

  it('refuses a read-only agent that asks the worker subagent to write and run for it', async () => {
    write('.crow/agents/base/reader.md', '---\nname: reader\ndescription: Reads only.\nrole: primary\ntools: [read_file, grep, task]\n---\nYou read.\n');
    write('.crow/agents/acp/read-only.md', '---\nname: read-only\ndescription: Reads only.\nprimary: reader\nflow: hitl\n---\n');
    server.enqueue(
      'anthropic',
      { blocks: [{ type: 'tool_call', name: 'task', arguments: { agent: 'worker', task: 'Create pwned.txt and run touch pwned.' } }] },
      say('The worker was refused.'),
    );
    const run = await runCrow(['run', 'Get it done somehow', '--cwd', workspace, '--provider', 'anthropic', '--agent', 'read-only', '--allow', 'all'], isolatedEnv(home, env()), workspace);
    assert.equal(run.code, 0, run.stderr);
    const told = JSON.stringify(server.requestsFor('anthropic')[1]!.body.messages);
    assert.match(told, /worker needs [^"]*write_file[^"]*, which reader does not have/);
    assert.match(told, /worker needs [^"]*bash/);
    assert.equal(server.requestsFor('anthropic').length, 2, 'the worker never called the model');
    assert.ok(!existsSync(join(workspace, 'pwned.txt')) && !existsSync(join(workspace, 'pwned')));
  });
});
