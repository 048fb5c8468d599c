/**
 * Running the user's hooks: what each exit code and each JSON answer
 * decides, what a hook is given (Crow's names, or Claude Code's for a hook
 * brought from its settings.json), the environment without secrets, a
 * timeout or a cancel that stops the hook's whole process group, and the
 * span each run leaves in the trace.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { HookEvent, HookSettings } from '../../../src/config/hook-settings';
import { HookRunner } from '../../../src/host/hook-runner';
import { Redactor } from '../../../src/telemetry/redact';
import { TraceRecorder } from '../../../src/telemetry/trace-recorder';
import type { HookedCall } from '../../../src/tools/hooks';

const SECRET = 'sk-ant-hook-test-0123456789abcdef';

/** Whether a process whose command line is exactly `sleep SECONDS` runs. */
function sleeping(seconds: string): boolean {
  try {
    return execFileSync('pgrep', ['-f', `^sleep ${seconds}$`], { encoding: 'utf8' }).trim() !== '';
  } catch {
    return false;
  }
}

describe('HookRunner', function () {
  this.timeout(20_000);
  let root: string;
  let notices: string[];
  const never = new AbortController().signal;
  const bash = (args: Record<string, unknown> = { command: 'ls' }): HookedCall => ({ agent: 'builder', depth: 0, callId: 'call-1', tool: 'bash', arguments: args });

  const hook = (event: HookEvent, command: string, more: Partial<HookSettings> = {}): HookSettings => ({ event, command, timeoutSec: 10, source: '/home/me/.config/crow-agent/config.toml', ...more });
  const runner = (hooks: HookSettings[], env: NodeJS.ProcessEnv = { PATH: process.env.PATH }, hidden: string[] = []): HookRunner =>
    new HookRunner({
      hooks,
      root,
      sessionId: 'session-1',
      env,
      hidden,
      notify: (level, message) => notices.push(`${level}: ${message}`),
      redact: (value) => new Redactor({ ANTHROPIC_API_KEY: SECRET }).value(value),
      killGraceMs: 200,
    });
  /** A hook whose stdin is kept in `file`, then runs `then`. */
  const keeping = (file: string, then = 'true'): string => `cat > ${JSON.stringify(join(root, file))}; ${then}`;
  const input = (file: string): Record<string, unknown> => JSON.parse(readFileSync(join(root, file), 'utf8')) as Record<string, unknown>;
  const answer = (json: unknown): string => `cat > /dev/null; echo '${JSON.stringify(json)}'`;

  beforeEach(() => {
    root = realpathSync(mkdtempSync(join(tmpdir(), 'crow-hook-runner-')));
    notices = [];
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  describe('pre_tool_use', () => {
    it('gives the event as JSON on stdin, and lets the call run when the hook exits 0 saying nothing', async () => {
      const verdict = await runner([hook('pre_tool_use', keeping('in.json'))]).beforeCall(bash({ command: 'npm test' }), never, undefined);
      assert.deepEqual(verdict, { run: true, notes: [] });
      assert.deepEqual(input('in.json'), {
        session_id: 'session-1',
        cwd: root,
        hook_event_name: 'pre_tool_use',
        agent: 'builder',
        depth: 0,
        tool_name: 'bash',
        tool_input: { command: 'npm test' },
        tool_use_id: 'call-1',
      });
    });

    it('denies the call on exit code 2, with stderr as the reason', async () => {
      const verdict = await runner([hook('pre_tool_use', 'echo "no force pushes" >&2; exit 2')]).beforeCall(bash(), never, undefined);
      assert.deepEqual(verdict, { run: false, reason: 'Not run: the pre_tool_use hook "echo \\"no force pushes\\" >&2; exit 2" denied it: no force pushes' });
    });

    it('denies, allows or asks by permissionDecision; ask wins over allow', async () => {
      const deny = answer({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: 'not on main' } });
      assert.match((await runner([hook('pre_tool_use', deny)]).beforeCall(bash(), never, undefined) as { reason: string }).reason, /denied it: not on main$/);
      const allow = answer({ hookSpecificOutput: { permissionDecision: 'allow' } });
      const ask = answer({ hookSpecificOutput: { permissionDecision: 'ask' } });
      assert.deepEqual(await runner([hook('pre_tool_use', allow)]).beforeCall(bash(), never, undefined), { run: true, rule: 'allow', notes: [] });
      assert.deepEqual(await runner([hook('pre_tool_use', allow), hook('pre_tool_use', ask)]).beforeCall(bash(), never, undefined), { run: true, rule: 'ask', notes: [] });
      // The older decision "approve" Claude Code still reads is an allow.
      assert.deepEqual(await runner([hook('pre_tool_use', answer({ decision: 'approve' }))]).beforeCall(bash(), never, undefined), { run: true, rule: 'allow', notes: [] });
    });

    it('rewrites the arguments by updatedInput, the next hook seeing them rewritten, and tells the person and the model', async () => {
      const rewrite = answer({ hookSpecificOutput: { permissionDecision: 'allow', updatedInput: { command: 'npm test -- --bail' } } });
      const verdict = await runner([hook('pre_tool_use', rewrite), hook('pre_tool_use', keeping('second.json'))]).beforeCall(bash({ command: 'npm test' }), never, undefined);
      assert.ok(verdict.run);
      assert.equal(verdict.arguments, '{"command":"npm test -- --bail"}');
      assert.match(verdict.rewrittenBy ?? '', /^the pre_tool_use hook "cat > \/dev\/null/);
      assert.deepEqual((input('second.json').tool_input as Record<string, unknown>).command, 'npm test -- --bail');
      assert.match(verdict.notes[0]!, /changed this call's arguments to \{"command":"npm test -- --bail"\}/);
      assert.match(notices.join('\n'), /^warning: The pre_tool_use hook .* changed the arguments of the bash call: \{"command":"npm test"\} → \{"command":"npm test -- --bail"\}/m);
    });

    it('gives a file tool\'s absolute file_path, and takes a changed file_path back as the path', async () => {
      const call = { ...bash(), tool: 'write_file', arguments: { path: 'src/a.ts', content: 'x' } };
      await runner([hook('pre_tool_use', keeping('in.json'))]).beforeCall(call, never, undefined);
      assert.deepEqual(input('in.json').tool_input, { path: 'src/a.ts', content: 'x', file_path: join(root, 'src/a.ts') });
      const moved = answer({ hookSpecificOutput: { updatedInput: { path: 'src/a.ts', file_path: join(root, 'src/b.ts'), content: 'x' } } });
      const verdict = await runner([hook('pre_tool_use', moved)]).beforeCall(call, never, undefined);
      assert.deepEqual(verdict.run && JSON.parse(verdict.arguments!), { path: join(root, 'src/b.ts'), content: 'x' });
      const same = answer({ hookSpecificOutput: { updatedInput: { path: 'src/a.ts', file_path: join(root, 'src/a.ts'), content: 'y' } } });
      const kept = await runner([hook('pre_tool_use', same)]).beforeCall(call, never, undefined);
      assert.deepEqual(kept.run && JSON.parse(kept.arguments!), { path: 'src/a.ts', content: 'y' });
    });

    it('names events and tools as Claude Code does for a hook brought from its settings.json', async () => {
      await runner([hook('pre_tool_use', keeping('in.json'), { claude: true })]).beforeCall({ ...bash(), tool: 'edit_file', arguments: { path: 'a.ts', old_string: 'a', new_string: 'b' } }, never, undefined);
      const given = input('in.json');
      assert.equal(given.hook_event_name, 'PreToolUse');
      assert.equal(given.tool_name, 'Edit');
      assert.equal((given.tool_input as Record<string, unknown>).file_path, join(root, 'a.ts'));
    });

    it('runs only the hooks whose matcher matches the tool', async () => {
      const verdict = await runner([hook('pre_tool_use', 'exit 2', { matcher: 'write_file|edit_file' })]).beforeCall(bash(), never, undefined);
      assert.equal(verdict.run, true);
    });

    it('goes on after a hook that fails with another exit code or prints broken JSON, warning the person', async () => {
      const verdict = await runner([hook('pre_tool_use', 'echo boom >&2; exit 1'), hook('pre_tool_use', 'echo "{ not json"')]).beforeCall(bash(), never, undefined);
      assert.deepEqual(verdict, { run: true, notes: [] });
      assert.match(notices[0]!, /^warning: The pre_tool_use hook "echo boom >&2; exit 1" \(\/home\/me\/\.config\/crow-agent\/config\.toml\) failed with exit code 1: boom\. The bash call goes on as if the hook had not run\./);
      assert.match(notices[1]!, /printed output that starts like JSON but is not/);
    });

    it('says which fields of its JSON it could not use, and uses the rest', async () => {
      const verdict = await runner([hook('pre_tool_use', answer({ systemMessage: 'careful', hookSpecificOutput: { permissionDecision: 'maybe' }, continue: 'no' }))]).beforeCall(bash(), never, undefined);
      assert.deepEqual(verdict, { run: true, notes: [] });
      assert.match(notices.join('\n'), /could not fully use: "hookSpecificOutput\.permissionDecision" should be "allow", "deny" or "ask", not "maybe"; "continue" should be true or false, not "no"/);
      assert.match(notices.join('\n'), /warning: The pre_tool_use hook .*: careful/);
    });

    it('stops the run when a hook says continue: false', async () => {
      const verdict = await runner([hook('pre_tool_use', answer({ continue: false, stopReason: 'the build is red' }))]).beforeCall(bash(), never, undefined);
      assert.deepEqual(verdict.run === false && verdict.stop, 'the build is red');
      assert.match(notices.join('\n'), /stopped the run: the build is red/);
    });

    it('stops a hook past its timeout with everything it started, and says which timeout to raise', async () => {
      const started = Date.now();
      const slow = hook('pre_tool_use', 'sleep 41.25 & sleep 41.25', { timeoutSec: 0.5 });
      const verdict = await runner([slow]).beforeCall(bash(), never, undefined);
      assert.ok(Date.now() - started < 5_000, 'it did not wait for the hook');
      assert.equal(verdict.run, true);
      assert.equal(sleeping('41.25'), false, 'the hook and what it started in the background are gone');
      assert.match(notices[0]!, /did not finish within its timeout of 0\.5 s and was stopped\. The bash call goes on as if the hook had not run\. Raise its timeout \(timeout_sec/);
    });

    it('stops a running hook when the prompt is cancelled, and the call does not run', async () => {
      const controller = new AbortController();
      const pending = runner([hook('pre_tool_use', 'sleep 42.75')]).beforeCall(bash(), controller.signal, undefined);
      const deadline = Date.now() + 5_000;
      while (!sleeping('42.75') && Date.now() < deadline) await new Promise((done) => setTimeout(done, 20));
      controller.abort();
      const verdict = await pending;
      assert.deepEqual(verdict, { run: false, reason: 'Cancelled while a pre_tool_use hook ran.', cancelled: true });
      assert.equal(sleeping('42.75'), false);
    });
  });

  it('runs a hook without the secrets of the environment, in the workspace root, and redacts what it is given', async () => {
    const env = { PATH: process.env.PATH, HOME: '/home/me', ANTHROPIC_API_KEY: SECRET, GITHUB_TOKEN: 'ghp_x', MY_DB_URL: 'postgres://me:pw@db' };
    const command = `cat > ${JSON.stringify(join(root, 'in.json'))}; env > ${JSON.stringify(join(root, 'env.txt'))}; pwd > ${JSON.stringify(join(root, 'pwd.txt'))}`;
    await runner([hook('pre_tool_use', command)], env, ['MY_DB_URL']).beforeCall(bash({ command: `echo ${SECRET}` }), never, undefined);
    const seen = readFileSync(join(root, 'env.txt'), 'utf8');
    assert.ok(!seen.includes(SECRET) && !seen.includes('ghp_x') && !seen.includes('postgres://'), seen);
    assert.match(seen, /^HOME=\/home\/me$/m);
    assert.match(seen, new RegExp(`^CROW_PROJECT_DIR=${root}$`, 'm'));
    assert.match(seen, new RegExp(`^CLAUDE_PROJECT_DIR=${root}$`, 'm'));
    assert.equal(readFileSync(join(root, 'pwd.txt'), 'utf8').trim(), root);
    assert.ok(!readFileSync(join(root, 'in.json'), 'utf8').includes(SECRET), 'the arguments reached the hook redacted');
  });

  it('records each run as a hook span under the given one: event, decision, exit code, reason', async () => {
    const trace = new TraceRecorder();
    const parent = trace.startTrace('tool', 'execute_tool bash');
    await runner([hook('pre_tool_use', 'echo "not now" >&2; exit 2', { matcher: 'bash' })]).beforeCall(bash(), never, parent);
    const span = trace.spans.find((record) => record.kind === 'hook')!;
    assert.equal(span.parentSpanId, parent.spanId);
    assert.equal(span.name, 'hook pre_tool_use echo "not now" >&2; exit 2');
    assert.equal(span.status, 'ok');
    assert.deepEqual(
      Object.fromEntries(['crow.hook.event', 'crow.hook.matcher', 'crow.hook.tool', 'crow.hook.decision', 'crow.hook.exit_code', 'crow.hook.reason'].map((key) => [key, span.attributes[key]])),
      { 'crow.hook.event': 'pre_tool_use', 'crow.hook.matcher': 'bash', 'crow.hook.tool': 'bash', 'crow.hook.decision': 'deny', 'crow.hook.exit_code': 2, 'crow.hook.reason': 'not now' },
    );
    assert.equal(typeof span.attributes['crow.hook.duration_ms'], 'number');
  });

  describe('post_tool_use', () => {
    it('gives the result, and hands the model a block\'s reason and added context as notes', async () => {
      const hooks = [
        hook('post_tool_use', keeping('in.json', 'echo "lint failed: 2 errors" >&2; exit 2')),
        hook('post_tool_use', answer({ hookSpecificOutput: { additionalContext: 'The file is generated; edit the template.' } })),
      ];
      const after = await runner(hooks).afterCall(bash(), { output: 'done', filesModified: ['a.ts'] }, never, undefined);
      assert.deepEqual(input('in.json').tool_response, { success: true, output: 'done', files_modified: ['a.ts'] });
      assert.deepEqual(after.notes.map((note) => note.replace(/^\[The post_tool_use hook ".*" (says|adds): /, '[$1: ')), [
        '[says: lint failed: 2 errors]',
        '[adds: The file is generated; edit the template.]',
      ]);
      assert.equal(after.stop, undefined);
    });
  });

  describe('user_prompt_submit', () => {
    it('adds what a hook prints as context, and blocks on exit code 2, telling the person why', async () => {
      const context = await runner([hook('user_prompt_submit', keeping('in.json', 'echo "Today is release day."'))]).promptSubmitted({ agent: 'build', text: 'Ship it' }, never, undefined);
      assert.deepEqual(context, { context: ['Today is release day.'] });
      assert.equal(input('in.json').prompt, 'Ship it');
      const blocked = await runner([hook('user_prompt_submit', 'echo "it names a customer" >&2; exit 2')]).promptSubmitted({ agent: 'build', text: 'x' }, never, undefined);
      assert.match(blocked.blocked ?? '', /blocked this prompt, so it was not sent to the model: it names a customer$/);
      assert.match(notices[0]!, /^warning: The user_prompt_submit hook .* blocked this prompt/);
    });
  });

  describe('stop', () => {
    const ending = { agent: 'build', status: 'needs_input', message: 'your move', lastMessage: 'All done.', active: false };

    it('sends the agents back with a block\'s reason, once: asked again, the run ends and the person is told', async () => {
      const stop = hook('stop', keeping('in.json', `echo '{"decision":"block","reason":"tests fail"}'`));
      assert.deepEqual(await runner([stop]).stopping(ending, never, undefined), { continueWith: 'tests fail' });
      assert.deepEqual(
        Object.fromEntries(['hook_event_name', 'stop_hook_active', 'last_assistant_message', 'status'].map((key) => [key, input('in.json')[key]])),
        { hook_event_name: 'stop', stop_hook_active: false, last_assistant_message: 'All done.', status: 'needs_input' },
      );
      notices = [];
      assert.deepEqual(await runner([stop]).stopping({ ...ending, active: true }, never, undefined), {});
      assert.match(notices[0]!, /asked once more to go on \(tests fail\), but a run goes on only once after a stop hook/);
    });

    it('lets the run end when no hook blocks', async () => {
      assert.deepEqual(await runner([hook('stop', 'exit 0'), hook('stop', 'exit 1')]).stopping(ending, never, undefined), {});
      assert.match(notices[0]!, /The run ends without it\./);
    });
  });

  it('knows which events it has hooks for', () => {
    const hooks = runner([hook('stop', 'true')]);
    assert.equal(hooks.has('stop'), true);
    assert.equal(hooks.has('pre_tool_use'), false);
  });
});

