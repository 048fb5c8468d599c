/**
 * The built `crow` binary called the ways scripts and people call it: help
 * for every command, clear usage errors with exit code 2, session ids by a
 * unique start, output piped into `head`, and --json runs a script can follow.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FakeLlmServer } from '../../testkit/fake-llm-server';
import { CROW, runCrow, startCrow, until } from '../support/crow-binary';
import { isolatedEnv } from '../support/isolated-env';

const COMMANDS = [
  'run', 'undo', 'trace', 'trust', 'acp', 'acp-bridge',
  'agents', 'agents list', 'agents show', 'agents validate',
  'config', 'config get', 'config set', 'config validate', 'config path',
  'sessions', 'sessions list', 'sessions show', 'sessions export', 'sessions delete',
  'sessions checkpoints', 'sessions fork', 'eval', 'eval merge', 'eval k8s',
  'attempts', 'attempts k8s', 'attempts k8s collect',
];

describe('crow on the command line', function () {
  this.timeout(60_000);
  let server: FakeLlmServer;
  let workspace: string;
  let home: string;
  let env: NodeJS.ProcessEnv;

  before(async () => {
    server = await FakeLlmServer.start();
  });
  after(() => server.close());
  beforeEach(() => {
    server.reset();
    workspace = mkdtempSync(join(tmpdir(), 'crow-usage-ws-'));
    home = mkdtempSync(join(tmpdir(), 'crow-usage-home-'));
    env = isolatedEnv(home, { ANTHROPIC_API_KEY: 'k', ANTHROPIC_BASE_URL: server.anthropicBaseUrl });
  });
  afterEach(() => {
    rmSync(workspace, { recursive: true, force: true });
    rmSync(home, { recursive: true, force: true });
  });

  /** Runs one prompt that answers "Hello."; the session id. */
  async function oneSession(): Promise<string> {
    server.enqueue('anthropic', { blocks: [{ type: 'text', text: 'Hello.' }] });
    const run = await runCrow(['run', 'Say hello', '--json', '--provider', 'anthropic'], env, workspace);
    assert.equal(run.code, 0, run.stderr);
    return (JSON.parse(run.stdout.split('\n')[0]!) as { sessionId: string }).sessionId;
  }

  it('answers --help for every command and sub-command', async () => {
    for (const command of COMMANDS) {
      const run = await runCrow([...command.split(' '), '--help'], env, workspace);
      assert.equal(run.code, 0, `crow ${command} --help: ${run.stderr}`);
      assert.match(run.stdout, /^Usage: crow /, `crow ${command} --help prints its usage`);
      assert.equal(run.stderr, '');
    }
  });

  it('an unknown flag names the command and its --help, with exit code 2', async () => {
    const run = await runCrow(['sessions', 'export', 'x', '--frob'], env, workspace);
    assert.equal(run.code, 2);
    assert.equal(run.stderr, 'crow: Unknown option --frob. Run "crow sessions export --help" for its options.\n');
    const typo = await runCrow(['run', '--agnet', 'pair', 'hi'], env, workspace);
    assert.equal(typo.code, 2);
    assert.match(typo.stderr, /Unknown option --agnet\. Did you mean --agent\? Run "crow run --help"/);
  });

  it('bad usage exits 2 and says what is wrong: a file as --cwd, an unknown session', async () => {
    const file = join(workspace, 'notes.txt');
    writeFileSync(file, 'x');
    const cwd = await runCrow(['run', 'hi', '--cwd', file], env, workspace);
    assert.equal(cwd.code, 2);
    assert.match(cwd.stderr, /notes\.txt is a file, not a folder/);
    const missing = await runCrow(['run', 'hi', '--cwd', join(workspace, 'nowhere')], env, workspace);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /does not exist/);
    const session = await runCrow(['run', 'hi', '--session', 'abc'], env, workspace);
    assert.equal(session.code, 2);
    assert.match(session.stderr, /No stored session "abc"/);
  });

  it('crow trace, which loads a bundle of its own, says what is wrong as every command does: exit 2, no stack', async () => {
    const none = await runCrow(['trace'], env, workspace);
    assert.equal(none.code, 2);
    assert.equal(none.stderr, 'crow: crow trace takes one session id (see crow sessions list).\n');
    const unknown = await runCrow(['trace', 'f00dfeed', '--json'], env, workspace);
    assert.equal(unknown.code, 2);
    assert.equal(unknown.stderr, 'crow: No stored session "f00dfeed". List them with: crow sessions list --all\n');
    const flag = await runCrow(['trace', 'x', '--frob'], env, workspace);
    assert.equal(flag.code, 2);
    assert.equal(flag.stderr, 'crow: Unknown option --frob. Run "crow trace --help" for its options.\n');
  });

  it('a run that fails before the model is called stores no session, and --continue reaches the last conversation', async () => {
    server.enqueue('anthropic', { blocks: [{ type: 'text', text: 'Noted: 42.' }] });
    const first = await runCrow(['run', 'remember 42', '--provider', 'anthropic'], env, workspace);
    assert.equal(first.code, 0, first.stderr);
    const typo = await runCrow(['run', 'hi', '--agent', 'biuld', '--provider', 'anthropic'], env, workspace);
    assert.equal(typo.code, 2);
    assert.match(typo.stderr, /Unknown agent "biuld"/);
    const keyless = await runCrow(['run', 'hi', '--provider', 'anthropic'], { ...env, ANTHROPIC_API_KEY: undefined }, workspace);
    assert.equal(keyless.code, 2);
    assert.match(keyless.stderr, /ANTHROPIC_API_KEY/);
    const list = await runCrow(['sessions', 'list'], env, workspace);
    assert.equal(list.stdout.trim().split('\n').length, 1, `only the conversation is stored:\n${list.stdout}`);
    assert.match(list.stdout, /remember 42/);
    server.enqueue('anthropic', { blocks: [{ type: 'text', text: 'It was 42.' }] });
    const next = await runCrow(['run', '--continue', 'what number?', '--provider', 'anthropic'], env, workspace);
    assert.equal(next.code, 0, next.stderr);
    const sent = JSON.stringify(server.requestsFor('anthropic').at(-1)!.body.messages);
    assert.match(sent, /remember 42/, 'the model gets the conversation the person had');
  });

  it('--continue with no session to continue is bad usage: exit 2 and how to start one', async () => {
    const run = await runCrow(['run', '--continue', 'hi', '--provider', 'anthropic'], env, workspace);
    assert.equal(run.code, 2);
    assert.match(run.stderr, /No earlier session in .* to continue\. Start one with: crow run/);
  });

  it('crow undo --session tells a session of another folder from a made-up id', async () => {
    const id = await oneSession();
    const other = mkdtempSync(join(tmpdir(), 'crow-usage-other-'));
    try {
      const there = await runCrow(['undo', '--session', id, '--cwd', other], env, workspace);
      assert.equal(there.code, 1);
      assert.equal(there.stderr, `crow: nothing to undo in ${other}: session ${id} worked in ${workspace}, not here; to undo its last prompt there: crow undo --session ${id} --cwd ${workspace}.\n`);
    } finally {
      rmSync(other, { recursive: true, force: true });
    }
    const madeUp = await runCrow(['undo', '--session', 'f00dfeed'], env, workspace);
    assert.equal(madeUp.code, 2);
    assert.match(madeUp.stderr, /^crow: No stored session "f00dfeed"\. List them with: crow sessions list --all\n$/);
  });

  it('crow config set: a bad value exits 2 and writes nothing; a widening project key says it waits for trust, and how', async () => {
    const bad = await runCrow(['config', 'set', 'max_iterations', 'many'], env, workspace);
    assert.equal(bad.code, 2, bad.stderr);
    assert.match(bad.stderr, /field "max_iterations".*\n.*nothing was written/);
    const widening = await runCrow(['config', 'set', 'permissions.execute', 'allow', '--project'], env, workspace);
    assert.equal(widening.code, 0, widening.stderr);
    assert.equal(widening.stdout, `permissions.execute = allow (in ${join(workspace, '.crow', 'config.toml')})\n`);
    assert.match(widening.stderr, new RegExp(`this folder is not trusted, so permissions\\.execute from its \\.crow/config\\.toml is ignored until you trust it: crow trust --cwd ${workspace}\\n`));
    const narrowing = await runCrow(['config', 'set', 'permissions.write', 'deny', '--project'], env, workspace);
    assert.equal(narrowing.code, 0, narrowing.stderr);
    assert.doesNotMatch(narrowing.stderr, /permissions\.write .*ignored/, 'a narrowing key applies untrusted: no such line for it');
    const get = await runCrow(['config', 'get', 'permissions.execute'], env, workspace);
    assert.doesNotMatch(get.stderr, /<folder>/);
    assert.match(get.stderr, new RegExp(`these parts are ignored: permissions\\.execute\\. To use them: crow trust --cwd ${workspace}\\.`));
    await runCrow(['trust', '--yes'], env, workspace);
    const trusted = await runCrow(['config', 'set', 'permissions.execute', 'allow', '--project'], env, workspace);
    assert.equal(trusted.stderr, '', 'nothing to say once the folder is trusted');
  });

  it('SIGTERM while the model streams exits 143 and is reported as SIGTERM, not as the person cancelling', async () => {
    server.enqueue('anthropic', { blocks: [{ type: 'text', text: 'Starting a long answer...' }], fault: { kind: 'stall_after', events: 4 } });
    const crow = startCrow(['run', 'Talk', '--provider', 'anthropic'], env, workspace);
    crow.child.stdin.end();
    await until(() => server.requestsFor('anthropic').length > 0, 'the model call');
    crow.child.kill('SIGTERM');
    const { code } = await crow.exited;
    assert.equal(code, 143, crow.stderr());
    assert.match(crow.stderr(), /Cancelling: SIGTERM received…\n[\s\S]*⚠ Stopped by SIGTERM while builder was working/);
    assert.doesNotMatch(crow.stderr(), /by the user/);
  });

  it('a connection error names the server ANTHROPIC_BASE_URL points at, in one line, and exits 1', async () => {
    mkdirSync(join(home, 'config', 'crow-agent'), { recursive: true });
    writeFileSync(join(home, 'config', 'crow-agent', 'config.toml'), 'max_retries = 0\n');
    server.enqueue('anthropic', { blocks: [{ type: 'text', text: 'never sent' }], fault: { kind: 'drop_before_first_byte' } });
    const run = await runCrow(['run', 'hi', '--provider', 'anthropic'], env, workspace);
    assert.equal(run.code, 1, run.stderr);
    const failed = `the connection to the server at ${server.anthropicBaseUrl} failed`;
    assert.match(run.stderr, new RegExp(`✖ ${failed.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}`));
    assert.equal(run.stderr.split(failed).length - 1, 1, `told once:\n${run.stderr}`);
    assert.doesNotMatch(run.stderr, /Anthropic/, 'not the company: the server at the configured URL');
  });

  it('piped, the answer is the model\'s text as it came: no escapes, no redraws, no spinner', async () => {
    const text = '# Plan\n\nA **bold** start, then the rest.\n\n```js\nconst a = 1;\n```\n';
    server.enqueue('anthropic', { blocks: [{ type: 'text', text }], chunkSize: 3 });
    const run = await runCrow(['run', 'Plan it', '--provider', 'anthropic'], { ...env, FORCE_COLOR: '1' }, workspace);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout.trimEnd(), text.trimEnd());
    assert.doesNotMatch(run.stderr, /waiting for|\r|\x1b\[\d*[AJ]/, 'nothing on stderr is drawn over');
  });

  it('--json opens with the session and workspace, and run_complete names the session', async () => {
    server.enqueue('anthropic', { blocks: [{ type: 'text', text: 'Hello.' }] });
    const run = await runCrow(['run', 'Say hello', '--json', '--provider', 'anthropic'], env, workspace);
    assert.equal(run.code, 0, run.stderr);
    const events = run.stdout.trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
    const first = events[0]!;
    const last = events.at(-1)!;
    assert.equal(first.type, 'session_start');
    assert.match(String(first.sessionId), /^[0-9a-f-]{36}$/);
    assert.equal(first.workspace, workspace);
    assert.equal(first.agent, 'build');
    assert.equal(last.type, 'run_complete');
    assert.equal(last.sessionId, first.sessionId);
    const trace = await runCrow(['trace', String(first.sessionId)], env, workspace);
    assert.equal(trace.code, 0, 'a script can follow up on the session');
  });

  it('takes a unique start of a session id wherever an id goes, and refuses an ambiguous one', async () => {
    const id = await oneSession();
    const show = await runCrow(['sessions', 'show', id.slice(0, 6)], env, workspace);
    assert.equal(show.code, 0, show.stderr);
    assert.match(show.stdout, /Say hello/);
    const trace = await runCrow(['trace', id.slice(0, 6)], env, workspace);
    assert.equal(trace.code, 0, trace.stderr);
    assert.match(trace.stdout, new RegExp(`Session ${id}`));
    const other = await oneSession();
    let common = 0;
    while (id[common] === other[common]) common += 1;
    const ambiguous = await runCrow(['sessions', 'show', id.slice(0, common)], env, workspace);
    if (common === 0) assert.equal(ambiguous.code, 2, 'an empty start is refused');
    else {
      assert.equal(ambiguous.code, 2);
      assert.match(ambiguous.stderr, /is the start of 2 sessions/);
    }
  });

  it('output piped into head ends quietly with exit code 0, however much is left to write', async () => {
    // An answer far larger than a pipe holds, so crow is still writing when head has gone.
    const long = Array.from({ length: 4000 }, (_, i) => `Line ${i} of a long answer that fills the pipe.`).join('\n');
    server.enqueue('anthropic', { blocks: [{ type: 'text', text: long }] });
    const run = await runCrow(['run', 'Say a lot', '--json', '--provider', 'anthropic'], env, workspace);
    assert.equal(run.code, 0, run.stderr);
    const id = (JSON.parse(run.stdout.split('\n')[0]!) as { sessionId: string }).sessionId;
    for (const command of [`sessions show ${id}`, `sessions export ${id}`, `trace ${id} --json`, 'sessions list --all', 'agents list']) {
      const piped = spawnSync('bash', ['-o', 'pipefail', '-c', `"${process.execPath}" "${CROW}" ${command} | head -1`], { env, cwd: workspace, encoding: 'utf8' });
      assert.equal(piped.status, 0, `${command} | head -1: ${piped.stderr}`);
      assert.equal(piped.stdout.split('\n').filter(Boolean).length, 1);
      assert.equal(piped.stderr, '', `${command} | head -1 prints nothing else`);
    }
  });
});
