/**
 * A hostile (or merely hasty) ACP client against the real `crow acp`: it
 * deletes, closes and forks sessions while their prompts run, removes a
 * session's folder under it, deletes it from another process, loads and
 * deletes one session at once, sends params of the wrong shape or size,
 * prompts in bursts, and answers fs and terminal requests with shapes the
 * protocol does not allow. Rule: no client action takes the agent down.
 * The session acted on ends its prompt cleanly (answered `cancelled`, no
 * update after), every other session goes on, a deleted session is not
 * stored again behind the client's back, a mistake is answered with an
 * error that says what to do, and the process still exits 0 when its
 * input ends.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import * as acp from '@agentclientprotocol/sdk';
import type { ScriptedReply } from '../../testkit/fake-llm-server';
import { binarySuite } from '../support/binary-suite';
import { type AcpProcess, CROW, runCrow, startAcp, until } from '../support/crow-binary';
import { isolatedEnv } from '../support/isolated-env';

/** A reply whose text stops before `second` until the returned release is called. */
function pausedReply(first: string, second: string): { reply: ScriptedReply; release: () => void } {
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  return { reply: { blocks: [{ type: 'text', text: [`${first} `, second] }], pauses: [{ before: second, until: held }] }, release };
}

describe('crow acp against a hostile client', function () {
  this.timeout(60_000);
  const suite = binarySuite('acp-hostile');
  const agents: Pick<AcpProcess, 'child' | 'exited'>[] = [];

  // A test that failed half-way leaves its agent running: stop it without judging it.
  afterEach(async () => {
    for (const agent of agents.splice(0)) {
      agent.child.kill();
      await agent.exited;
    }
  });

  /** Ends the agent's input: it must exit by itself, with 0. */
  async function stop(agent: AcpProcess): Promise<void> {
    agents.splice(agents.indexOf(agent), 1);
    assert.equal(await agent.stop(), 0, `crow acp exits cleanly when its input ends:\n${agent.stderr()}`);
  }

  const sessions = (): string => join(suite.home, 'data', 'crow-agent', 'sessions');

  async function start(): Promise<AcpProcess> {
    const agent = startAcp(suite.root, suite.home, { ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: suite.llm.anthropicBaseUrl, CROW_SANDBOX: 'off' });
    agents.push(agent);
    await agent.client.initialize();
    return agent;
  }

  /** Starts a prompt in a new session and waits until its first words arrived, the rest held back by the fake model. */
  async function running(agent: AcpProcess, words: [string, string]): Promise<{ id: string; answer: Promise<{ stopReason: string }>; release: () => void }> {
    const { client } = agent;
    const id = (await client.newSession(suite.root)).sessionId;
    const paused = pausedReply(...words);
    suite.llm.enqueue('anthropic', paused.reply);
    const answer = client.prompt(id, `Say ${words.join(' ')}`);
    await client.until(() => client.said(id).includes(words[0]), 15_000);
    return { id, answer, release: paused.release };
  }

  it('deletes a session while its prompt runs: that prompt ends cancelled, another session runs on, nothing of the deleted one comes back', async () => {
    const agent = await start();
    const { client } = agent;
    const doomed = await running(agent, ['Doomed', 'never-said']);
    const other = await running(agent, ['Other', 'finished.']);

    await client.agent.request('session/delete', { sessionId: doomed.id });
    assert.equal((await doomed.answer).stopReason, 'cancelled');
    const shown = client.updates(doomed.id).length;
    doomed.release();
    other.release();

    assert.equal((await other.answer).stopReason, 'end_turn', agent.stderr());
    assert.equal(client.said(other.id), 'Other finished.');
    const listed = await client.agent.request('session/list', {});
    assert.deepEqual(listed.sessions.map((session) => session.sessionId), [other.id]);
    await client.agent.request('session/delete', { sessionId: other.id });
    await stop(agent);

    assert.equal(client.updates(doomed.id).length, shown, 'no update of the deleted session after its prompt was answered');
    assert.doesNotMatch(client.said(doomed.id), /never-said/);
    assert.deepEqual(readdirSync(sessions()), [], 'neither session folder was made again');
  });

  it('closes a session while its prompt runs and another waits behind it: both end cancelled, the queued one never reaches the model', async () => {
    const agent = await start();
    const { client } = agent;
    const closed = await running(agent, ['Closing', 'unsaid.']);
    const id = closed.id;
    const queued = client.prompt(id, 'And then this');
    // The SDK hands a request to its handler after those sent before it whose handlers come earlier in its chain
    // (session/close's comes before session/prompt's); an unknown method goes through the whole chain, so once
    // it is answered the prompt above has reached the session and waits there for the running one's next step.
    await assert.rejects(client.agent.request('crow/no-such-method', {}), (err: { code: number }) => err.code === -32601);

    await client.agent.request('session/close', { sessionId: id });
    closed.release();
    assert.equal((await closed.answer).stopReason, 'cancelled');
    assert.equal((await queued).stopReason, 'cancelled');
    assert.equal(suite.llm.requestsFor('anthropic').length, 1, 'the queued prompt did not run in the closed session');

    // The closed session stays stored, whole, and opens again.
    suite.llm.enqueue('anthropic', { blocks: [{ type: 'text', text: 'Back.' }] });
    await client.agent.request('session/resume', { sessionId: id, cwd: suite.root });
    assert.equal((await client.prompt(id, 'Again')).stopReason, 'end_turn', agent.stderr());
    assert.match(JSON.stringify(suite.llm.requestsFor('anthropic').at(-1)!.body), /Closing/);
    await stop(agent);
  });

  it("goes on when a running session's folder is removed under it, and does not make it again", async () => {
    const agent = await start();
    const { client } = agent;
    const gone = await running(agent, ['Going', 'on.']);
    rmSync(join(sessions(), gone.id), { recursive: true });
    gone.release();

    assert.equal((await gone.answer).stopReason, 'end_turn', agent.stderr());
    assert.equal(client.said(gone.id), 'Going on.');
    const other = await running(agent, ['Still', 'here.']);
    other.release();
    assert.equal((await other.answer).stopReason, 'end_turn');
    assert.equal(existsSync(join(sessions(), gone.id)), false, 'the removed folder was not made again');
    assert.match(agent.stderr(), new RegExp(`Session ${gone.id} was deleted while it was open`));
    await stop(agent);
  });

  it('refuses `crow sessions delete` of a session a running crow acp holds, and that prompt ends normally', async () => {
    const agent = await start();
    const held = await running(agent, ['Holding', 'firm.']);

    const refused = await runCrow(['sessions', 'delete', held.id], isolatedEnv(suite.home), suite.root);
    assert.equal(refused.code, 1, refused.stderr);
    assert.match(refused.stderr, new RegExp(`Session ${held.id} is in use by crow acp \\(pid ${agent.child.pid}`));
    // So does another crow acp, asked by its own client.
    const other = await start();
    await assert.rejects(other.client.agent.request('session/delete', { sessionId: held.id }), (err: { code: number; message: string }) => {
      assert.equal(err.code, -32600);
      assert.match(err.message, new RegExp(`Session ${held.id} is in use by crow acp \\(pid ${agent.child.pid}`));
      return true;
    });
    await stop(other);
    held.release();
    assert.equal((await held.answer).stopReason, 'end_turn', agent.stderr());
    assert.equal(existsSync(join(sessions(), held.id, 'meta.json')), true);

    // Once crow acp has closed it, the session can be deleted.
    await agent.client.agent.request('session/close', { sessionId: held.id });
    const deleted = await runCrow(['sessions', 'delete', held.id], isolatedEnv(suite.home), suite.root);
    assert.equal(deleted.code, 0, deleted.stderr);
    assert.equal(existsSync(join(sessions(), held.id)), false);
    await stop(agent);
  });

  it('forks a running session into one that answers on its own, and refuses forks of bad params without storing a copy', async () => {
    const agent = await start();
    const { client } = agent;
    const source = await running(agent, ['Source', 'continues.']);
    const bad = [
      { sessionId: source.id, cwd: suite.root, mcpServers: [{ name: 'x' }] },
      { sessionId: source.id, cwd: suite.root, mcpServers: [{ type: 'http', name: 'x', url: 5 }] },
      { sessionId: source.id, cwd: 'relative/folder' },
      { sessionId: source.id, cwd: join(suite.root, 'missing') },
      { sessionId: source.id, cwd: suite.root, _meta: { 'crow/checkpoint': 'first' } },
      { sessionId: '../../escape', cwd: suite.root },
      { sessionId: 'x'.repeat(10_000), cwd: suite.root },
    ];
    for (const params of bad) {
      await assert.rejects(client.agent.request('session/fork', params), (err: { code: number }) => [-32602, -32002].includes(err.code), JSON.stringify(params).slice(0, 200));
    }
    assert.deepEqual(readdirSync(sessions()), [source.id], 'no copy was stored for a refused fork');

    const fork = await client.agent.request<{ sessionId: string }>('session/fork', { sessionId: source.id, cwd: suite.root, mcpServers: [] });
    suite.llm.enqueue('anthropic', { blocks: [{ type: 'text', text: 'Forked answer.' }] });
    source.release();
    assert.equal((await client.prompt(fork.sessionId, 'In the fork')).stopReason, 'end_turn', agent.stderr());
    assert.equal((await source.answer).stopReason, 'end_turn');
    assert.equal(client.said(fork.sessionId), 'Forked answer.');

    // A deleted session cannot be forked.
    await client.agent.request('session/delete', { sessionId: source.id });
    await assert.rejects(client.agent.request('session/fork', { sessionId: source.id, cwd: suite.root }), (err: { code: number }) => err.code === -32002);
    await stop(agent);
  });

  it("takes a client's fs and terminal answers of the wrong shape as failed requests, never as the file's text or the command's output", async () => {
    writeFileSync(join(suite.root, 'notes.txt'), 'what the disk holds\n');
    const child = spawn(process.execPath, [CROW, 'acp'], {
      cwd: suite.root,
      env: isolatedEnv(suite.home, { ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: suite.llm.anthropicBaseUrl, CROW_SANDBOX: 'off' }),
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((done) => child.on('close', (code) => done(code)));
    agents.push({ child, exited });
    // A client that offers files and terminals, then answers with shapes the protocol does not allow.
    const client = acp
      .client({ name: 'wrong-shapes' })
      .onNotification('session/update', () => undefined)
      .onRequest('session/request_permission', () => ({ outcome: { outcome: 'selected', optionId: 'allow_once' } }))
      .onRequest('fs/read_text_file', () => ({ text: 'not the field the protocol names' }) as never)
      .onRequest('terminal/create', () => ({ terminalId: 'term-1' }))
      .onRequest('terminal/wait_for_exit', () => ({ exitCode: 0 }))
      .onRequest('terminal/output', () => ({ output: 42, truncated: 'no' }) as never)
      .onRequest('terminal/release', () => ({}))
      .onRequest('terminal/kill', () => ({}))
      .connect(acp.ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout) as unknown as ReadableStream<Uint8Array>));
    await client.agent.request('initialize', {
      protocolVersion: acp.PROTOCOL_VERSION,
      clientCapabilities: { fs: { readTextFile: true, writeTextFile: true }, terminal: true },
    });
    const { sessionId } = await client.agent.request('session/new', { cwd: suite.root, mcpServers: [] });
    suite.llm.enqueue(
      'anthropic',
      { blocks: [{ type: 'tool_call', name: 'read_file', arguments: { path: 'notes.txt' } }] },
      { blocks: [{ type: 'tool_call', name: 'bash', arguments: { command: 'echo hi' } }] },
      { blocks: [{ type: 'text', text: 'Done.' }] },
    );
    const answer = await client.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'Read, then run' }] });
    assert.equal(answer.stopReason, 'end_turn', stderr);

    // What the model was told of each call: its tool results' content, not their ids (random: "toolu_PLF5I42" once matched the 42 below).
    const results = suite.llm
      .requestsFor('anthropic')
      .slice(1)
      .map((request) => JSON.stringify((request.body.messages.at(-1) as { content: { content?: unknown }[] }).content.map((block) => block.content)));
    assert.match(results[0]!, /what the disk holds/, 'a read the client answered wrongly falls back to the disk');
    assert.doesNotMatch(results[0]!, /is empty|undefined/);
    assert.match(results[1]!, /The client's answer to terminal\/output is not one the protocol allows/);
    assert.doesNotMatch(results[1]!, /Cannot read properties|42/);
    client.close();
    child.stdin.end();
    assert.equal(await exited, 0, stderr);
    agents.splice(0);
  });

  it('logs a promise that failed with nobody waiting for it, and every session goes on', async () => {
    const plant = join(__dirname, '../fixtures/plant-rejection.cjs');
    const agent = startAcp(suite.root, suite.home, {
      ANTHROPIC_API_KEY: 'test-key',
      ANTHROPIC_BASE_URL: suite.llm.anthropicBaseUrl,
      CROW_SANDBOX: 'off',
      NODE_OPTIONS: `--require ${plant}`,
    });
    agents.push(agent);
    await agent.client.initialize();
    const first = await running(agent, ['Running', 'through it.']);

    agent.child.kill('SIGUSR2');
    await until(() => agent.stderr().includes('planted failure nobody waits for'), 'the failure in the log');
    assert.match(agent.stderr(), /error a promise failed with nobody waiting for it \(a bug: please report it with this log\); every session goes on/);
    first.release();
    assert.equal((await first.answer).stopReason, 'end_turn');
    assert.equal(agent.client.said(first.id), 'Running through it.');
    await stop(agent);
  });

  it('refuses a prompt it cannot take (too big, too many blocks, data that is not base64, empty) before storing or sending any of it', async () => {
    const agent = await start();
    const { client } = agent;
    const id = (await client.newSession(suite.root)).sessionId;
    const refusals: [string, acp.ContentBlock[], RegExp][] = [
      ['17 MB of text', [{ type: 'text', text: 'word '.repeat(3.5 * 1024 * 1024) }], /The prompt is 17\.5 MB; Crow takes prompts up to 16\.0 MB/],
      ['100,000 blocks', Array.from({ length: 100_000 }, (_, i) => ({ type: 'text' as const, text: `block ${i}` })), /100,000 content blocks; Crow takes up to 1,000/],
      ['an image that is not base64', [{ type: 'text', text: 'Look' }, { type: 'image', mimeType: 'image/png', data: 'data:image/png;base64,iVBORw0KGgo=' }], /Content block 2 \(image\) does not hold base64 data/],
      ['nothing', [], /The prompt is empty/],
      ['blank text', [{ type: 'text', text: ' \n ' }], /The prompt is empty/],
    ];
    for (const [what, prompt, message] of refusals) {
      await assert.rejects(client.prompt(id, prompt), (err: { code: number; message: string }) => err.code === -32602 && message.test(err.message), what);
    }
    assert.equal(suite.llm.requestsFor('anthropic').length, 0, 'no refused prompt reached the model');
    const [stored] = (await client.agent.request('session/list', {})).sessions;
    assert.equal(stored?.title, null, 'no refused prompt was stored as the first one');

    suite.llm.enqueue('anthropic', { blocks: [{ type: 'text', text: 'Taken.' }] });
    assert.equal((await client.prompt(id, [{ type: 'text', text: 'A fair prompt' }])).stopReason, 'end_turn');

    // Sent while another prompt runs, to be queued for it: refused the same way, and the running one goes on.
    const busy = await running(agent, ['Busy', 'still.']);
    await assert.rejects(client.prompt(busy.id, refusals[0]![1]), (err: { code: number }) => err.code === -32602);
    busy.release();
    assert.equal((await busy.answer).stopReason, 'end_turn');
    assert.equal(client.said(busy.id), 'Busy still.');
    await stop(agent);
  });

  it('takes a burst of prompts as a queue (each answered, every message read by the model, none refused as busy) and a burst of interrupts as the last one', async () => {
    const agent = await start();
    const { client } = agent;
    const id = (await client.newSession(suite.root)).sessionId;
    suite.llm.respondWith('anthropic', () => ({ blocks: [{ type: 'text', text: 'Noted.' }] }));
    assert.equal((await client.prompt(id, 'First')).stopReason, 'end_turn');

    const queued = await Promise.all(['q1', 'q2', 'q3', 'q4', 'q5'].map((text) => client.prompt(id, text)));
    assert.deepEqual(queued.map((answer) => answer.stopReason), ['end_turn', 'end_turn', 'end_turn', 'end_turn', 'end_turn']);
    const read = JSON.stringify(suite.llm.requestsFor('anthropic').map((request) => request.body.messages));
    for (const text of ['q1', 'q2', 'q3', 'q4', 'q5']) assert.match(read, new RegExp(`"${text}"`), `the model read ${text}`);

    const interrupts = ['i1', 'i2', 'i3', 'i4'].map((text) =>
      client.agent.request('session/prompt', { sessionId: id, prompt: [{ type: 'text', text }], _meta: { 'crow/whileBusy': 'interrupt' } }),
    );
    assert.deepEqual((await Promise.all(interrupts)).map((answer) => answer.stopReason).at(-1), 'end_turn');
    assert.match(JSON.stringify(suite.llm.requestsFor('anthropic').at(-1)!.body.messages.at(-1)), /i4/);
    await stop(agent);
  });

  it("names a client's mistake in a few words, not by echoing a huge value back and into its log", async () => {
    const agent = await start();
    const { client } = agent;
    const id = (await client.newSession(suite.root)).sessionId;
    const huge = 'x'.repeat(2 * 1024 * 1024);
    const mistakes: [string, Promise<unknown>, RegExp][] = [
      ['whileBusy', client.agent.request('session/prompt', { sessionId: id, prompt: [{ type: 'text', text: 'Hi' }], _meta: { 'crow/whileBusy': huge } }), /must be "queue", "interrupt" or "refuse", not "x{20,}… \(2,097,154 characters\)/],
      ['mode', client.agent.request('session/set_mode', { sessionId: id, modeId: huge }), /Unknown mode "x+… \(2,097,154 characters\)/],
      ['thinking level', client.agent.request('session/set_config_option', { sessionId: id, configId: 'thought_level', value: huge }), /./],
      ['session id', client.agent.request('session/set_mode', { sessionId: huge, modeId: 'build' }), /Unknown session "x+… \(2,097,154 characters\)/],
      ['cwd', client.agent.request('session/new', { cwd: huge, mcpServers: [] }), /cwd "x+… \(2,097,154 characters\) is not an existing folder/],
      ['checkpoint', client.agent.request('session/fork', { sessionId: id, cwd: suite.root, _meta: { 'crow/checkpoint': huge } }), /must be a checkpoint number .*, not "x+… \(2,097,154 characters\)/],
    ];
    for (const [what, answer, message] of mistakes) {
      await assert.rejects(answer, (err: { message: string }) => err.message.length < 400 && message.test(err.message), what);
    }
    assert.ok(agent.stderr().length < 100_000, `the log holds ${agent.stderr().length} characters`);
    await stop(agent);
  });

  it('answers two loads and a delete of one stored session sent together: one session opened, then removed, nothing left behind', async () => {
    const first = await start();
    const id = (await first.client.newSession(suite.root)).sessionId;
    suite.llm.respondWith('anthropic', () => ({ blocks: [{ type: 'text', text: 'Stored.' }] }));
    assert.equal((await first.client.prompt(id, 'Keep this')).stopReason, 'end_turn');
    await stop(first);

    const agent = await start();
    const { client } = agent;
    const load = () => client.agent.request('session/load', { sessionId: id, cwd: suite.root, mcpServers: [] });
    const [one, two, deleted] = await Promise.allSettled([load(), load(), client.agent.request('session/delete', { sessionId: id })]);
    assert.deepEqual([one.status, two.status, deleted.status], ['fulfilled', 'fulfilled', 'fulfilled'], JSON.stringify([one, two, deleted]));
    assert.equal(existsSync(join(sessions(), id)), false);
    await assert.rejects(client.prompt(id, 'Still there?'), (err: { code: number }) => err.code === -32002);
    await stop(agent);
    assert.deepEqual(readdirSync(sessions()), []);
  });
});
