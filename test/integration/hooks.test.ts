/**
 * Hooks through the real `crow run` binary on the fake LLM server: what
 * post_tool_use, user_prompt_submit and stop hooks do to a run, a hook
 * brought from Claude Code's settings.json, a subagent's calls going
 * through the same hooks, a hook stopped by Ctrl-C, and the hook spans
 * `crow trace` prints.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FakeLlmServer, type ScriptedReply } from '../../testkit/fake-llm-server';
import { runCrow, startCrow, until } from '../support/crow-binary';
import { isolatedEnv } from '../support/isolated-env';

const text = (value: string): ScriptedReply => ({ blocks: [{ type: 'text', text: value }] });
const call = (name: string, args: unknown): ScriptedReply => ({ blocks: [{ type: 'tool_call', name, arguments: args }] });
const lastUserText = (body: { messages: { role: string; content: unknown }[] }): string => JSON.stringify(body.messages.at(-1)?.content ?? '');

describe('hooks through the real crow run', function () {
  this.timeout(30_000);
  let llm: FakeLlmServer;
  let home: string;
  let root: string;
  let env: NodeJS.ProcessEnv;
  /** Writes a hook script into the user's home and returns the command that runs it. */
  const script = (name: string, body: string): string => {
    writeFileSync(join(home, name), body);
    return `sh ${join(home, name)}`;
  };
  const config = (toml: string): void => writeFileSync(join(home, 'config', 'crow-agent', 'config.toml'), toml);
  const hookToml = (event: string, command: string, matcher?: string): string =>
    `[[hooks]]\nevent = "${event}"\n${matcher ? `matcher = "${matcher}"\n` : ''}command = ${JSON.stringify(command)}\n`;
  const crow = (...args: string[]) => runCrow(['run', ...args, '--json', '--allow', 'all', '--no-undo'], env, root);
  const sessionOf = (stdout: string): string => (JSON.parse(stdout.split('\n').find((line) => line.includes('"session_start"'))!) as { sessionId: string }).sessionId;

  before(async () => (llm = await FakeLlmServer.start()));
  after(() => llm.close());
  beforeEach(() => {
    llm.reset();
    home = realpathSync(mkdtempSync(join(tmpdir(), 'crow-hooks-home-')));
    root = realpathSync(mkdtempSync(join(tmpdir(), 'crow-hooks-ws-')));
    env = isolatedEnv(home, { ANTHROPIC_API_KEY: 'hooks-key-0123456789', ANTHROPIC_BASE_URL: llm.anthropicBaseUrl });
    mkdirSync(join(home, 'config', 'crow-agent'), { recursive: true });
  });
  afterEach(() => {
    rmSync(home, { recursive: true, force: true });
    rmSync(root, { recursive: true, force: true });
  });

  it('post_tool_use: a block after an edit hands its reason to the model with the result', async () => {
    config(hookToml('post_tool_use', script('lint.sh', 'cat > /dev/null\necho "lint: missing semicolon in a.js" >&2\nexit 2\n'), 'write_file'));
    llm.enqueue('anthropic', call('write_file', { path: 'a.js', content: 'let a = 1\n' }), text('Fixing the lint.'));
    const run = await crow('Write a.js');
    assert.equal(run.code, 0, run.stderr);
    assert.equal(readFileSync(join(root, 'a.js'), 'utf8'), 'let a = 1\n', 'the edit itself stands');
    assert.match(lastUserText(llm.requestsFor('anthropic')[1]!.body), /Created a\.js.*\[The post_tool_use hook .* says: lint: missing semicolon in a\.js\]/);
  });

  it('post_tool_use: what a hook changes is recorded with the prompt, so crow undo puts it back too', async () => {
    execFileSync('git', ['init', '-q'], { cwd: root });
    writeFileSync(join(root, 'style.css'), 'a{}\n');
    // A formatter that also rewrites a file the agent never named.
    config(hookToml('post_tool_use', script('format.sh', `cat > /dev/null\necho "a { }" > ${join(root, 'style.css')}\necho made > ${join(root, 'formatted.log')}\n`), 'write_file'));
    llm.enqueue('anthropic', call('write_file', { path: 'a.js', content: 'let a = 1;\n' }), text('Done.'));
    const run = await runCrow(['run', 'Write a.js', '--json', '--allow', 'all'], env, root);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(readFileSync(join(root, 'style.css'), 'utf8'), 'a { }\n', 'the hook ran');
    const undo = await runCrow(['undo', '--yes'], env, root);
    assert.equal(undo.code, 0, undo.stderr);
    assert.equal(readFileSync(join(root, 'style.css'), 'utf8'), 'a{}\n', 'what the hook changed is back');
    assert.throws(() => readFileSync(join(root, 'formatted.log')), 'what the hook made is gone');
    assert.throws(() => readFileSync(join(root, 'a.js')), 'and the agent\'s own file');
  });

  it('user_prompt_submit: a block keeps the prompt from the model and says why; printed text becomes context', async () => {
    config(hookToml('user_prompt_submit', script('secrets.sh', 'grep -q password && { echo "the prompt holds a password" >&2; exit 2; }\necho "Today is release day."\n')));
    const blocked = await crow('my password is hunter2');
    assert.equal(blocked.code, 0, blocked.stderr);
    assert.equal(llm.requestsFor('anthropic').length, 0, 'the model never saw it');
    assert.match(blocked.stdout, /"type":"notice".*blocked this prompt, so it was not sent to the model: the prompt holds a password/);
    assert.match(blocked.stdout, /"type":"run_complete","agent":"build","status":"needs_input"/);
    llm.enqueue('anthropic', text('Shipping.'));
    assert.equal((await crow('Ship it')).code, 0);
    assert.match(lastUserText(llm.requestsFor('anthropic')[0]!.body), /Ship it.*Context a user_prompt_submit hook of the user's added to this message:\\nToday is release day\./);
  });

  it('stop: a block sends the agent back once with the reason; a hook reading stop_hook_active lets it end', async () => {
    config(hookToml('stop', script('tests.sh', 'grep -q \'"stop_hook_active":false\' && { echo "run the tests before you stop" >&2; exit 2; }\nexit 0\n')));
    llm.enqueue('anthropic', text('Done.'), text('Ran them: green.'));
    const run = await crow('Fix it');
    assert.equal(run.code, 0, run.stderr);
    const requests = llm.requestsFor('anthropic');
    assert.equal(requests.length, 2);
    assert.match(lastUserText(requests[1]!.body), /a stop hook of the user's asked you to go on, saying: run the tests before you stop/);
    assert.match(run.stdout, /sent the agents back to work: run the tests before you stop/);
    assert.equal(run.stdout.match(/"type":"run_complete"/g)?.length, 1);
  });

  it('brings a Claude Code PreToolUse hook from settings.json: Claude Code\'s names in, its JSON deny out', async () => {
    mkdirSync(join(home, '.claude'));
    const deny = { hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: 'use the Makefile' } };
    const command = `cat > ${join(home, 'claude-in.json')}; printf '%s' '${JSON.stringify(deny)}'`;
    writeFileSync(join(home, '.claude', 'settings.json'), JSON.stringify({ hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command }] }] } }));
    config('claude_hooks = ["~/.claude/settings.json"]\n');
    llm.enqueue('anthropic', call('bash', { command: 'gcc main.c' }), text('I will use make.'));
    const run = await crow('Build it');
    assert.equal(run.code, 0, run.stderr);
    const given = JSON.parse(readFileSync(join(home, 'claude-in.json'), 'utf8')) as Record<string, unknown>;
    assert.equal(given.hook_event_name, 'PreToolUse');
    assert.equal(given.tool_name, 'Bash');
    assert.deepEqual(given.tool_input, { command: 'gcc main.c' });
    assert.match(lastUserText(llm.requestsFor('anthropic')[1]!.body), /denied it: use the Makefile/);
  });

  it('a subagent\'s tool calls go through the same hooks, which know whose call it is', async () => {
    writeFileSync(join(root, 'notes.md'), 'secret plans\n');
    const log = join(home, 'calls.jsonl');
    config(hookToml('pre_tool_use', script('guard.sh', `cat >> ${log}\necho >> ${log}\necho "notes are private" >&2\nexit 2\n`), 'read_file'));
    llm.enqueue(
      'anthropic',
      call('task', { agent: 'explorer', task: 'Read notes.md.' }),
      call('read_file', { path: 'notes.md' }),
      call('task_complete', { summary: 'I could not read notes.md: a hook denied it.' }),
      text('The explorer could not read it.'),
    );
    assert.equal((await crow('What is in notes.md?')).code, 0);
    const calls = readFileSync(log, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
    assert.deepEqual(calls.map(({ agent, depth, tool_name }) => ({ agent, depth, tool_name })), [{ agent: 'explorer', depth: 1, tool_name: 'read_file' }]);
    const child = llm.requestsFor('anthropic')[2]!;
    assert.match(lastUserText(child.body), /denied it: notes are private/);
    assert.doesNotMatch(JSON.stringify(child.body), /secret plans/);
  });

  it('records every hook run in the trace: crow trace shows its decision and exit code', async () => {
    config(hookToml('pre_tool_use', script('deny.sh', 'cat > /dev/null\necho "not today" >&2\nexit 2\n'), 'bash'));
    llm.enqueue('anthropic', call('bash', { command: 'make' }), text('Fine.'));
    const run = await crow('Build');
    const id = sessionOf(run.stdout);
    const tree = await runCrow(['trace', id], env, root);
    assert.match(tree.stdout, /execute_tool bash .*\n\s+│?\s*└─ \[builder\] hook pre_tool_use sh .*deny\.sh \(\d+ms\) ✓ · deny · exit 2 · not today/);
    const spans = JSON.parse((await runCrow(['trace', id, '--json'], env, root)).stdout) as { kind: string; attributes: Record<string, unknown> }[];
    const hook = spans.find((span) => span.kind === 'hook')!;
    assert.equal(hook.attributes['crow.hook.decision'], 'deny');
    assert.equal(hook.attributes['crow.hook.matcher'], 'bash');
    assert.equal(typeof hook.attributes['crow.hook.duration_ms'], 'number');
  });

  it('Ctrl-C while a hook runs stops the hook with its process group, and the prompt ends as cancelled', async () => {
    config(hookToml('pre_tool_use', 'sleep 43.25'));
    llm.enqueue('anthropic', call('bash', { command: 'echo never > ran.txt' }));
    const crowRun = startCrow(['run', 'Go', '--allow', 'all', '--no-undo'], env, root);
    crowRun.child.stdin.end();
    const sleeping = (): boolean => {
      try {
        return execFileSync('pgrep', ['-f', '^sleep 43.25$'], { encoding: 'utf8' }).trim() !== '';
      } catch {
        return false;
      }
    };
    await until(sleeping, 'the hook to start', 20_000);
    crowRun.child.kill('SIGINT');
    assert.equal((await crowRun.exited).code, 130);
    await until(() => !sleeping(), 'the hook to stop', 5_000);
    assert.throws(() => readFileSync(join(root, 'ran.txt')), 'the call did not run');
  });

  describe('a Claude Code settings file of an untrusted folder, reached through a link', () => {
    let link: string;
    beforeEach(() => {
      // The workspace's own .claude/settings.json: a hook that leaves a mark when it runs.
      mkdirSync(join(root, '.claude'));
      const hooks = { hooks: { UserPromptSubmit: [{ hooks: [{ type: 'command', command: `touch ${join(home, 'hook-ran')}` }] }] } };
      writeFileSync(join(root, '.claude', 'settings.json'), JSON.stringify(hooks));
      link = join(home, 'ws-link');
      execFileSync('ln', ['-s', root, link]);
    });

    it('is the workspace\'s when the user lists it by a path through a link: it does not run until the folder is trusted', async () => {
      config(`claude_hooks = ["${join(link, '.claude', 'settings.json')}"]\n`);
      llm.enqueue('anthropic', text('Hi.'));
      const run = await crow('Hello');
      assert.equal(run.code, 0, run.stderr);
      assert.throws(() => readFileSync(join(home, 'hook-ran')), 'the folder\'s hook did not run');
    });

    it('is the workspace\'s when crow starts with --cwd through a link: it does not run until the folder is trusted', async () => {
      config(`claude_hooks = ["${join(root, '.claude', 'settings.json')}"]\n`);
      llm.enqueue('anthropic', text('Hi.'));
      const run = await runCrow(['run', 'Hello', '--json', '--allow', 'all', '--no-undo', '--cwd', link], env, home);
      assert.equal(run.code, 0, run.stderr);
      assert.throws(() => readFileSync(join(home, 'hook-ran')), 'the folder\'s hook did not run');
    });

    it('runs once the folder is trusted', async () => {
      config(`claude_hooks = ["${join(link, '.claude', 'settings.json')}"]\n`);
      assert.equal((await runCrow(['trust', '--yes', '--cwd', root], env, root)).code, 0);
      llm.enqueue('anthropic', text('Hi.'));
      assert.equal((await crow('Hello')).code, 0);
      readFileSync(join(home, 'hook-ran'));
    });
  });
});
