/**
 * Attempts through `crow acp`, driven by the SDK's client (test/support):
 * the session's "Attempts" option set to 3, a prompt run as three attempts
 * in git worktrees of the session's folder (the scripted model makes them
 * differ), their progress as a plan, the ranking as markdown, one
 * permission request offering each attempt and "Apply none" with the best
 * attempt's diff, the chosen one applied to the folder and /undo taking it
 * back; the same through `_meta["crow/attempts"]`; and what a client gets
 * wrong, refused.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { PlanEntry, RequestPermissionRequest, SessionConfigOption } from '@agentclientprotocol/sdk';
import { FakeLlmServer, type ScriptedReply } from '../../testkit/fake-llm-server';
import type { PermissionReply } from '../support/acp-client';
import { JUDGE_SAYS, ORIGINAL, REVIEWER_SAYS, WRITES, attemptOf, git, greeterRepository, scriptAttempts } from '../support/attempts-fixture';
import { type AcpProcess, CROW, startAcp } from '../support/crow-binary';
import { userConfigDir } from '../support/doors';
import { isolatedEnv } from '../support/isolated-env';
import { skipBecause } from '../support/skip-reasons';

describe('crow acp: a prompt as parallel attempts, ranked, one applied through a permission request, and /undo', function () {
  this.timeout(120_000);
  let server: FakeLlmServer;
  let home: string;
  let repo: string;
  let agent: AcpProcess | undefined;

  before(async () => (server = await FakeLlmServer.start()));
  after(() => server.close());
  beforeEach(() => {
    server.reset();
    home = mkdtempSync(join(tmpdir(), 'crow-acp-attempts-'));
    repo = join(home, 'project');
    greeterRepository(repo);
    scriptAttempts(server, '{"ranking": [{"attempt": 3, "reason": "Correct, and documents it."}, {"attempt": 1, "reason": "Correct but bare."}, {"attempt": 2, "reason": "Wrong word."}]}');
  });
  afterEach(async () => {
    if (agent) assert.equal(await agent.stop(), 0, agent.stderr());
    agent = undefined;
    rmSync(home, { recursive: true, force: true });
  });

  function start(permission: (request: RequestPermissionRequest) => PermissionReply | Promise<PermissionReply>): AcpProcess {
    agent = startAcp(repo, home, { ANTHROPIC_API_KEY: 'sk-ant-test', ANTHROPIC_BASE_URL: server.anthropicBaseUrl }, { permission });
    return agent;
  }

  it('offers "Attempts" as a config option, shows the attempts as a plan, asks once which to apply, applies it, and /undo takes it back', async () => {
    // The attempts' request: attempt 1 (not the judge's best); then /undo's own question: yes.
    const { client } = start((request) => {
      const one = request.options.find((option) => option.name === 'Apply attempt 1');
      return one ? { optionId: one.optionId } : 'allow_once';
    });
    await client.initialize();
    const session = await client.newSession(repo);
    const option = session.configOptions?.find((one) => one.id === 'attempts') as Extract<SessionConfigOption, { type: 'select' }>;
    assert.equal(option.currentValue, '1');
    assert.deepEqual((option.options as { name: string }[]).map((one) => one.name), ['1 (off)', '2', '3', '4']);
    const set = await client.agent.request('session/set_config_option', { sessionId: session.sessionId, configId: 'attempts', value: '3' });
    assert.equal((set.configOptions.find((one) => one.id === 'attempts') as { currentValue: string }).currentValue, '3');

    const answer = await client.prompt(session.sessionId, 'Make greet.js say hello');
    assert.equal(answer.stopReason, 'end_turn');
    const said = client.said(session.sessionId);
    if (process.env.SHOW) console.log(said, JSON.stringify(client.permissionRequests, null, 1));

    // The plan: one entry per attempt, pending, then running, then how it ended.
    const plans = client.updates(session.sessionId, 'plan').map((update) => update.entries);
    assert.deepEqual(plans[0]!.map((entry: PlanEntry) => entry.status), ['pending', 'pending', 'pending']);
    assert.ok(plans.some((entries) => entries.some((entry) => entry.status === 'in_progress')));
    assert.deepEqual(plans.at(-1)!.map((entry) => [entry.content, entry.status]), [1, 2, 3].map((n) => [`Attempt ${n}: finished, 1 file changed`, 'completed']));

    // The ranking, in the CLI's words, as a markdown table.
    assert.match(said, /Running 3 attempts of /);
    assert.match(said, /Attempts, best first, ranked by the judge/);
    assert.match(said, /\| rank \| attempt \| ended \| check \| files \| cost \| judge's reason \|/);
    assert.match(said, /\| 1 \| 3 \| finished \| — \| 1 \(\+2 −1\) \| .* \| Correct, and documents it\. \|/);

    // One permission request: each attempt best first, then none; the best attempt's diff.
    const [request] = client.permissionRequests;
    assert.deepEqual(request!.options.map((one) => [one.name, one.kind]), [
      ['Apply attempt 3 (best)', 'allow_once'],
      ['Apply attempt 1', 'allow_once'],
      ['Apply attempt 2', 'allow_once'],
      ['Apply none', 'reject_once'],
    ]);
    assert.deepEqual(request!.toolCall.content, [{ type: 'diff', path: join(repo, 'greet.js'), oldText: ORIGINAL, newText: WRITES[3] }]);

    // Attempt 1 applied (the person's pick, not the judge's), the worktrees gone.
    assert.equal(readFileSync(join(repo, 'greet.js'), 'utf8'), WRITES[1]);
    assert.match(said, /Applied attempt 1: 1 file changed\. Undo with \/undo\./);
    assert.equal(git(repo, 'worktree', 'list', '--porcelain').split('\n').filter((line) => line.startsWith('worktree ')).length, 1);
    const folder = join(repo, '.git', 'crow-attempts');
    assert.ok(!existsSync(folder) || readdirSync(folder).length === 0);

    // The option stays for the session: /undo goes back to one run, and takes the applied attempt back.
    await client.agent.request('session/set_config_option', { sessionId: session.sessionId, configId: 'attempts', value: '1' });
    const undo = await client.prompt(session.sessionId, '/undo');
    assert.equal(undo.stopReason, 'end_turn');
    assert.equal(readFileSync(join(repo, 'greet.js'), 'utf8'), ORIGINAL);
    assert.equal(client.permissionRequests.length, 2, 'one request for the attempts, one for /undo');
  });

  it('runs attempts asked for by _meta["crow/attempts"], applies none when told so, and refuses a count it cannot take', async () => {
    const { client } = start(() => ({ optionId: 'apply-none' }));
    await client.initialize();
    const { sessionId } = await client.newSession(repo);
    const answer = await client.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'Make greet.js say hello' }], _meta: { 'crow/attempts': 2 } });
    assert.equal(answer.stopReason, 'end_turn');
    assert.equal(client.permissionRequests.length, 1);
    assert.equal(client.permissionRequests[0]!.options.length, 3);
    assert.match(client.said(sessionId), /Nothing applied\./);
    assert.equal(readFileSync(join(repo, 'greet.js'), 'utf8'), ORIGINAL);

    const requests = server.requests.length;
    await assert.rejects(
      client.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'x' }], _meta: { 'crow/attempts': 9 } }),
      /_meta\["crow\/attempts"\]: 9 is not a number of attempts: give 1 \(off\) to 4\./,
    );
    await assert.rejects(client.agent.request('session/set_config_option', { sessionId, configId: 'attempts', value: 'many' }), /attempts: "many" is not a number of attempts/);
    assert.equal(server.requests.length, requests, 'no model was asked');
  });

  it("has the attempts of an agent with a reviewer judged by that reviewer (the mode's own coagent)", async () => {
    const systems: string[] = [];
    scriptAttempts(server, '{"ranking": [{"attempt": 2, "reason": "Reviewed: fine."}, {"attempt": 1, "reason": "Reviewed: bare."}]}', undefined, systems);
    const { client } = start(() => ({ optionId: 'apply-none' }));
    await client.initialize();
    const { sessionId } = await client.newSession(repo);
    await client.agent.request('session/set_mode', { sessionId, modeId: 'pair' });
    const answer = await client.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'Make greet.js say hello' }], _meta: { 'crow/attempts': 2 } });
    assert.equal(answer.stopReason, 'end_turn');
    assert.equal(systems.length, 1);
    assert.ok(systems[0]!.includes(REVIEWER_SAYS) && !systems[0]!.includes(JUDGE_SAYS), systems[0]);
    assert.match(client.said(sessionId), /Attempts, best first, ranked by the judge, the agent's reviewer \(reviewer\)/);
  });

  it('answers cancelled when the client cancels while it asks which attempt to apply: nothing applied, no worktree left', async () => {
    let sessionId = '';
    const { client } = start(() => {
      void agent!.client.cancel(sessionId);
      return new Promise<PermissionReply>(() => undefined);
    });
    await client.initialize();
    ({ sessionId } = await client.newSession(repo));
    const answer = await client.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'Make greet.js say hello' }], _meta: { 'crow/attempts': 2 } });
    assert.equal(answer.stopReason, 'cancelled');
    assert.match(client.said(sessionId), /Cancelled: nothing applied\./);
    assert.equal(readFileSync(join(repo, 'greet.js'), 'utf8'), ORIGINAL);
    assert.equal(git(repo, 'worktree', 'list', '--porcelain').split('\n').filter((line) => line.startsWith('worktree ')).length, 1);
  });

  it('runs attempts from acpx, a client we did not write: the option set with acpx set, the best applied with --approve-all', async function () {
    const acpx = join(__dirname, '../../node_modules/.bin/acpx');
    // Not a devDependency (see acp-binary.test.ts): CI installs it; locally npm install --no-save acpx@0.19.1.
    if (!existsSync(acpx)) skipBecause(this, 'no acpx (npm install --no-save acpx@0.19.1)');
    const env = isolatedEnv(home, { ANTHROPIC_API_KEY: 'sk-ant-test', ANTHROPIC_BASE_URL: server.anthropicBaseUrl });
    const base = ['--agent', `${process.execPath} ${CROW} acp`, '--cwd', repo, '--ttl', '1'];
    // Asynchronously: the fake model answers from this process.
    const run = (...args: string[]): Promise<{ status: number | null; out: string }> =>
      new Promise((done) => {
        const child = spawn(acpx, [...base, ...args], { cwd: repo, env });
        let out = '';
        child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
        child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()));
        child.on('close', (status) => done({ status, out }));
      });
    const created = await run('sessions', 'new');
    assert.equal(created.status, 0, created.out);
    const set = await run('set', 'attempts', '3');
    assert.equal(set.status, 0, set.out);
    const prompt = await run('--approve-all', 'prompt', 'Make greet.js say hello');
    assert.equal(prompt.status, 0, prompt.out);
    assert.match(prompt.out, /Attempts, best first, ranked by the judge/);
    assert.match(prompt.out, /\[completed\] Attempt 3: finished, 1 file changed/);
    assert.equal(readFileSync(join(repo, 'greet.js'), 'utf8'), WRITES[3], 'the first allow option, the best attempt, applied');
    await run('sessions', 'close');
  });

  it("counts what the attempts spent in the session's budget: the next prompt stops at the session's cost limit", async () => {
    mkdirSync(userConfigDir(home), { recursive: true });
    writeFileSync(join(userConfigDir(home), 'config.toml'), '[providers.anthropic.models."claude-sonnet-4-6"]\ninput_per_mtok = 3\noutput_per_mtok = 15\n\n[limits]\nmax_cost_per_session = 0.5\n');
    // Each attempt's first call reads 100,000 tokens: $0.30 each, $0.61 with the judge, past the session's $0.50.
    server.respondWith('anthropic', (body): ScriptedReply | undefined => {
      const who = attemptOf(body);
      if (who === 'judge') return { blocks: [{ type: 'text', text: '{"ranking": [{"attempt": 1, "reason": "r"}, {"attempt": 2, "reason": "r"}]}' }] };
      if (who === undefined) return { blocks: [{ type: 'text', text: 'A plain answer.' }] };
      return { blocks: [{ type: 'tool_call', name: 'write_file', arguments: { path: 'greet.js', content: WRITES[who]! } }], usage: { input: 100_000, output: 10 } };
    });
    const { client } = start(() => ({ optionId: 'apply-none' }));
    await client.initialize();
    const { sessionId } = await client.newSession(repo);
    await client.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'Make greet.js say hello' }], _meta: { 'crow/attempts': 2 } });
    assert.match(client.said(sessionId), /\| 1 \| 1 \| stopped by a limit \|/, "each attempt got a share of what the session may spend");
    const asked = server.requests.length;
    const next = await client.prompt(sessionId, 'And now a plain question');
    assert.equal(next.stopReason, 'max_tokens');
    assert.equal(server.requests.length, asked, 'no model call past the limit');
    assert.match(client.said(sessionId), /this session cost \$0\.61, reaching its limit of \$0\.50/);
  });

  it('says in the answer why attempts cannot run in a folder that is not the top of a git work tree', async () => {
    const plain = join(home, 'plain');
    mkdirSync(plain);
    const { client } = start(() => 'reject_once');
    await client.initialize();
    const { sessionId } = await client.newSession(plain);
    const answer = await client.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'x' }], _meta: { 'crow/attempts': 2 } });
    assert.equal(answer.stopReason, 'end_turn');
    assert.match(client.said(sessionId), /Attempts cannot run here: .* is not in a git repository: attempts run in git worktrees\. Run git init and commit once/);
    assert.equal(server.requests.length, 0);
  });
});
