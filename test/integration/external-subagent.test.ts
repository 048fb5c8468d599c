import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { type AddressInfo, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { WebSocket } from 'ws';
import { type BaseAgentDefinition, parseBaseAgent } from '../../src/config/agent-definitions';
import { formatProblem } from '../../src/config/config-problems';
import { runExternalSubagent } from '../../src/agents/external-subagent';
import type { AgentEvent } from '../../src/engine/events';
import { FakeLlmServer } from '../../testkit/fake-llm-server';
import { PermissionGate } from '../../src/tools/permissions';
import { tempWorkspace, toolContext } from '../unit/tools/temp-workspace';
import { type Bridge, startBridge } from '../support/acp-bridge';
import { isolatedEnv } from '../support/isolated-env';
import { assertPromptly } from '../support/promptly';

const CROW = resolve(__dirname, '../../dist/crow.js');
const NODE = process.execPath;

/** A base agent definition from frontmatter fields (JSON is YAML). */
function parse(fields: Record<string, unknown>): ReturnType<typeof parseBaseAgent> {
  const front = Object.entries(fields).map(([key, value]) => `${key}: ${JSON.stringify(value)}`);
  return parseBaseAgent({ path: '/defs/helper.md', stem: 'helper', text: `---\n${front.join('\n')}\n---\n` }, []);
}

function definition(fields: Record<string, unknown>): BaseAgentDefinition {
  const { definition, problems } = parse({ role: 'subagent', ...fields });
  assert.deepEqual(problems, []);
  return definition!;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function until(condition: () => boolean, what: string, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((done) => setTimeout(done, 20));
  }
}

describe('external ACP subagents', function () {
  this.timeout(30_000);
  let server: FakeLlmServer;
  let ws: ReturnType<typeof tempWorkspace>;
  let home: string;
  let env: NodeJS.ProcessEnv;
  let progress: string[];
  const bridges: Bridge[] = [];

  before(async () => {
    server = await FakeLlmServer.start();
  });
  after(() => server.close());
  beforeEach(() => {
    server.reset();
    ws = tempWorkspace();
    home = mkdtempSync(join(tmpdir(), 'crow-ext-home-'));
    progress = [];
    env = isolatedEnv(home, {
      ANTHROPIC_API_KEY: 'test-key-123',
      ANTHROPIC_BASE_URL: server.anthropicBaseUrl,
    });
  });
  afterEach(async () => {
    for (const bridge of bridges.splice(0)) {
      bridge.child.kill('SIGTERM');
      assert.equal(await bridge.exited, 143, `the bridge stops cleanly on SIGTERM; stderr:\n${bridge.stderr()}`);
    }
    ws.remove();
    rmSync(home, { recursive: true, force: true });
  });

  /** The ToolContext of a parent's task call: progress collected, `permissions` deciding. */
  function context(signal = new AbortController().signal, permissions?: PermissionGate) {
    const report = (event: AgentEvent): void => {
      if (event.type === 'subagent_progress') progress.push(`${event.subagent}: ${event.text}`);
    };
    return toolContext(ws.workspace, signal, { report, ...(permissions ? { permissions } : {}) });
  }

  const crowAcp = { acp_command: `"${NODE}" ${CROW} acp`, acp_env: ['ANTHROPIC_API_KEY', 'ANTHROPIC_BASE_URL'] };

  /** `command` run through sh, which leaves the agent's pid in a file first. */
  function recordingPid(command: string): { fields: Record<string, unknown>; pid: () => number } {
    const file = join(home, 'agent.pid');
    return { fields: { acp_command: 'sh', acp_args: ['-c', `echo $$ > ${file}; exec ${command}`] }, pid: () => Number(readFileSync(file, 'utf8')) };
  }

  function scriptWrite(after: string): void {
    server.enqueue(
      'anthropic',
      { blocks: [{ type: 'tool_call', name: 'write_file', arguments: { path: 'notes.md', content: '# Notes\n' } }] },
      { blocks: [{ type: 'text', text: `${after}\nDetails follow.` }] },
    );
  }

  describe('definitions', () => {
    it('split acp_command like a shell, add acp_args, keep acp_env names; acp_url stands alone', () => {
      const local = definition({ acp_command: `agent --name 'my agent' "a \\"b\\""`, acp_args: ['--x y'], acp_env: ['API_KEY'] });
      assert.deepEqual(local.external, { command: ['agent', '--name', 'my agent', 'a "b"', '--x y'], env: ['API_KEY'] });
      assert.deepEqual(definition({ acp_url: 'ws://127.0.0.1:8765' }).external, { url: 'ws://127.0.0.1:8765' });
      assert.deepEqual(definition({ acp_url: 'ws://127.0.0.1:8765', acp_token_env: 'BRIDGE_TOKEN' }).external, { url: 'ws://127.0.0.1:8765', tokenEnv: 'BRIDGE_TOKEN' });
      assert.equal(definition({}).external, undefined);
    });

    it('name each misuse', () => {
      const problems = (fields: Record<string, unknown>) => parse(fields).problems.map(formatProblem);
      assert.match(problems({ acp_command: 'crow acp' })[0]!, /field "acp_command": an external ACP agent can only be a subagent/);
      assert.match(problems({ role: 'subagent', acp_command: 'crow acp', acp_url: 'ws://h:1' })[0]!, /acp_command and acp_url exclude each other/);
      assert.match(problems({ role: 'subagent', acp_url: 'http://h:1' })[0]!, /field "acp_url": a ws:\/\/ or wss:\/\/ URL/);
      assert.match(problems({ role: 'subagent', acp_url: 'ws://h:1', acp_env: ['KEY'] })[0]!, /field "acp_env": acp_env only goes with acp_command/);
      assert.match(problems({ role: 'subagent', acp_command: 'crow acp | tee log' })[0]!, /"\|" would need a shell/);
      assert.match(problems({ role: 'subagent', acp_command: 'crow "acp' })[0]!, /never closed/);
      assert.match(problems({ role: 'subagent', acp_command: 'crow', acp_env: ['KEY=sk-123'] })[0]!, /field "acp_env\[0\]": a variable name/);
      assert.match(problems({ role: 'subagent', acp_command: 'crow acp', acp_token_env: 'T' })[0]!, /field "acp_token_env": acp_token_env only goes with acp_url/);
      assert.match(problems({ role: 'subagent', acp_token_env: 'T' })[0]!, /field "acp_token_env": acp_token_env only goes with acp_url/);
      assert.match(problems({ role: 'subagent', acp_url: 'ws://h:1', acp_token_env: 'sk-ant-abc123' })[0]!, /field "acp_token_env": this looks like an API key itself/);
      assert.match(problems({ role: 'subagent', acp_url: 'ws://h:1', acp_token_env: 'my token' })[0]!, /field "acp_token_env": must be the name of an environment variable/);
    });
  });

  it('runs a second crow acp over stdio: the work is done, its steps reported, its final message returned', async () => {
    scriptWrite('Wrote notes.md.');
    const agent = recordingPid(crowAcp.acp_command);
    const outcome = await runExternalSubagent(definition({ ...crowAcp, ...agent.fields }), 'Write notes.md', context(), { cwd: ws.root, env });
    assert.deepEqual(outcome, { status: 'completed', text: 'Wrote notes.md.\nDetails follow.', summary: 'Wrote notes.md.' });
    assert.equal(readFileSync(join(ws.root, 'notes.md'), 'utf8'), '# Notes\n');
    assert.deepEqual(progress, ['helper: Writing notes.md']);
    assert.match(JSON.stringify(server.requestsFor('anthropic')[0]!.body), /Write notes\.md/, 'the task is the prompt');
    assert.equal(alive(agent.pid()), false, 'the agent process is gone');
  });

  it('answers its permission requests with our policy: denied, the file is not written', async () => {
    scriptWrite('I could not write notes.md.');
    const deny = new PermissionGate({ policy: { rules: { read: 'allow', write: 'deny', execute: 'deny', network: 'deny' }, allowCommands: [] } });
    const outcome = await runExternalSubagent(definition(crowAcp), 'Write notes.md', context(undefined, deny), { cwd: ws.root, env });
    assert.equal(outcome.status, 'completed');
    assert.equal(outcome.summary, 'I could not write notes.md.');
    assert.equal(existsSync(join(ws.root, 'notes.md')), false);
    assert.deepEqual(progress, ['helper: Writing notes.md', 'helper: denied (write): Writing notes.md', 'helper: failed: Not allowed: write notes.md']);
  });

  it('passes the cancel on, then leaves no process behind', async () => {
    server.enqueue('anthropic', { blocks: [{ type: 'text', text: 'Thinking about it at length...' }], fault: { kind: 'stall_after', events: 4 } });
    const agent = recordingPid(crowAcp.acp_command);
    const abort = new AbortController();
    const running = runExternalSubagent(definition({ ...crowAcp, ...agent.fields }), 'Think', context(abort.signal), { cwd: ws.root, env });
    await until(() => server.requestsFor('anthropic').length === 1, 'the agent to call the model').catch((err: unknown) => {
      abort.abort();
      throw err;
    });
    assert.ok(alive(agent.pid()));
    const cancelledAt = Date.now();
    abort.abort();
    const outcome = await running;
    assert.equal(outcome.status, 'cancelled');
    assert.equal(outcome.summary, 'helper stopped on the cancel.');
    assertPromptly(cancelledAt, 'returned from the cancel');
    assert.equal(alive(agent.pid()), false, 'the agent process is gone');
  });

  /**
   * An ACP agent on the SDK that tries to read a file from its client and
   * says what happened, with its pid and whether it got our API key; told to
   * hang, it starts a step and never ends.
   */
  const standIn = `
    const acp = require(${JSON.stringify(require.resolve('@agentclientprotocol/sdk'))});
    const { Readable, Writable } = require('node:stream');
    const say = (client, text) => client.notify('session/update', { sessionId: 's1', update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text } } });
    acp.agent({ name: 'stand-in' })
      .onRequest('initialize', () => ({ protocolVersion: acp.PROTOCOL_VERSION, agentCapabilities: {} }))
      .onRequest('session/new', () => ({ sessionId: 's1' }))
      .onRequest('session/prompt', async ({ params, client }) => {
        const read = await client.request('fs/read_text_file', { sessionId: 's1', path: '/etc/hosts' }).then(() => 'read it', (err) => err.message);
        await say(client, 'pid ' + process.pid + ', key ' + (process.env.ANTHROPIC_API_KEY ?? 'unset') + ': ' + read);
        if (params.prompt[0].text !== 'hang') return { stopReason: 'max_tokens' };
        await client.notify('session/update', { sessionId: 's1', update: { sessionUpdate: 'tool_call', toolCallId: 't1', title: 'wait forever' } });
        await new Promise(() => setInterval(() => {}, 1000));
      })
      .connect(acp.ndJsonStream(Writable.toWeb(process.stdout), Readable.toWeb(process.stdin)));`;

  it('refuses file and terminal requests, and maps other stop reasons to failures', async () => {
    const outcome = await runExternalSubagent(definition({ acp_command: NODE, acp_args: ['-e', standIn] }), 'Read', context(), { cwd: ws.root, env });
    assert.equal(outcome.status, 'failed');
    assert.match(outcome.text, /^pid \d+, key unset: .*Method not found.*fs\/read_text_file/, 'only the variables acp_env names (and PATH, HOME, ...) pass');
    assert.equal(outcome.summary, 'helper stopped early: max tokens.');
  });

  it('stops an agent that ignores the cancel', async () => {
    const abort = new AbortController();
    const running = runExternalSubagent(definition({ acp_command: NODE, acp_args: ['-e', standIn] }), 'hang', context(abort.signal), { cwd: ws.root, env });
    await until(() => progress.includes('helper: wait forever'), 'the agent to start its step').finally(() => abort.abort());
    const outcome = await running;
    assert.equal(outcome.status, 'cancelled');
    assert.match(outcome.summary, /did not stop within 2 s of the cancel/);
    const pid = Number(/^pid (\d+)/.exec(outcome.text)![1]);
    assert.equal(alive(pid), false, 'the agent process is gone');
  });

  it('fails clearly when the command cannot run or is no ACP agent', async () => {
    const missing = await runExternalSubagent(definition({ acp_command: 'no-such-agent-here --acp' }), 'Hi', context(), { cwd: ws.root, env });
    assert.equal(missing.status, 'failed');
    assert.match(missing.summary, /^helper failed: .*could not run no-such-agent-here: spawn no-such-agent-here ENOENT/);
    const notAcp = await runExternalSubagent(definition({ acp_command: `"${NODE}" -e "console.error('no ACP here'); process.exit(3)"` }), 'Hi', context(), { cwd: ws.root, env });
    assert.equal(notAcp.status, 'failed');
    assert.match(notAcp.summary, /exit code 3; its stderr ended with:\nno ACP here/);
  });

  it('fails clearly on a URL nobody serves, and can be cancelled while it connects', async () => {
    const refused = await runExternalSubagent(definition({ acp_url: 'ws://127.0.0.1:1' }), 'Hi', context(), { cwd: ws.root, env });
    assert.deepEqual([refused.status, refused.summary], ['failed', 'helper failed: connect ECONNREFUSED 127.0.0.1:1 (ws://127.0.0.1:1)']);
    const silent = createServer((socket) => socket.resume());
    await new Promise<void>((done) => silent.listen(0, '127.0.0.1', done));
    const abort = new AbortController();
    setTimeout(() => abort.abort(), 200);
    const url = `ws://127.0.0.1:${(silent.address() as AddressInfo).port}`;
    const outcome = await runExternalSubagent(definition({ acp_url: url }), 'Hi', context(abort.signal), { cwd: ws.root, env });
    await new Promise((done) => silent.close(done));
    assert.deepEqual([outcome.status, outcome.summary], ['cancelled', 'helper was cancelled.']);
  });

  it('reaches the same agent through crow acp-bridge over WebSocket', async () => {
    scriptWrite('Wrote notes.md.');
    const bridge = await startBridge(['--', NODE, CROW, 'acp'], env, ws.root);
    bridges.push(bridge);
    const reach = definition({ acp_url: bridge.bare, acp_token_env: 'BRIDGE_TOKEN' });
    const outcome = await runExternalSubagent(reach, 'Write notes.md', context(), { cwd: ws.root, env: { BRIDGE_TOKEN: bridge.token } });
    assert.equal(outcome.status, 'completed', outcome.summary);
    assert.equal(outcome.text, 'Wrote notes.md.\nDetails follow.');
    assert.equal(readFileSync(join(ws.root, 'notes.md'), 'utf8'), '# Notes\n');
    assert.deepEqual(progress, ['helper: Writing notes.md']);
    await until(() => /agent pid \d+ exited/.test(bridge.stderr()), 'the bridge to stop the agent when the socket closed');
  });

  it('fails clearly without the bridge token, or when the variable acp_token_env names is unset', async () => {
    const bridge = await startBridge(['--', NODE, CROW, 'acp'], env, ws.root);
    bridges.push(bridge);
    const without = await runExternalSubagent(definition({ acp_url: bridge.bare }), 'Hi', context(), { cwd: ws.root, env: {} });
    assert.equal(without.status, 'failed');
    assert.match(without.summary, /^helper failed: .*401.*; it asks for a token: put it in an environment variable and name that variable in acp_token_env$/);
    const unset = await runExternalSubagent(definition({ acp_url: bridge.bare, acp_token_env: 'BRIDGE_TOKEN' }), 'Hi', context(), { cwd: ws.root, env: {} });
    assert.equal(unset.summary, `helper failed: acp_token_env names BRIDGE_TOKEN, which is not set: set it to the token the server at ${bridge.bare} asks for.`);
    assert.doesNotMatch(bridge.stderr(), /agent pid/, 'no agent was started for them');
  });

  it('runs task after task on one crow acp shared through crow acp-bridge --shared', async () => {
    const bridge = await startBridge(['--shared', '--', NODE, CROW, 'acp'], env, ws.root);
    bridges.push(bridge);
    for (const n of [1, 2]) {
      server.enqueue('anthropic', { blocks: [{ type: 'text', text: `Answer ${n}.` }] });
      const outcome = await runExternalSubagent(definition({ acp_url: bridge.url }), `Question ${n}`, context(), { cwd: ws.root, env: {} });
      assert.deepEqual([outcome.status, outcome.text], ['completed', `Answer ${n}.`]);
    }
    assert.equal(bridge.stderr().match(/agent pid \d+ exited/g), null, 'the agent keeps running between connections');
  });

  it('signals the agents still running when our process exits', async () => {
    const script = [
      `const { startAgentProcess } = require(${JSON.stringify(resolve(__dirname, '../../src/agents/agent-process'))});`,
      `const agent = startAgentProcess([process.execPath, '-e', 'setInterval(() => {}, 1000)'], { cwd: process.cwd(), env: process.env, stderr: 'inherit' });`,
      'console.log(agent.pid);',
      'process.exit(0);',
    ].join('\n');
    const parent = spawn(NODE, ['--require', 'tsx/cjs', '-e', script], { cwd: resolve(__dirname, '../..'), stdio: ['ignore', 'pipe', 'ignore'] });
    let output = '';
    parent.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    await new Promise((done) => parent.on('close', done));
    const pid = Number(output.trim());
    assert.ok(pid > 0, output);
    await until(() => !alive(pid), 'the orphaned agent to go');
  });

  describe('crow acp-bridge', () => {
    /** An agent stand-in: announces its pid, then echoes each line; `stubborn` ignores the end of its input. */
    function echoAgent(stubborn = false): string[] {
      const script = [
        `console.log(JSON.stringify({ jsonrpc: '2.0', method: 'hello', params: { pid: process.pid } }));`,
        `require('node:readline').createInterface({ input: process.stdin }).on('line', (line) => console.log(line));`,
        stubborn ? 'setInterval(() => {}, 1000);' : '',
      ].join('\n');
      return ['--', NODE, '-e', script];
    }

    function connect(url: string): { socket: WebSocket; messages: string[]; closed: Promise<number> } {
      const socket = new WebSocket(url, { maxPayload: 64 * 1024 * 1024 });
      const messages: string[] = [];
      socket.on('message', (data) => messages.push(data.toString()));
      return { socket, messages, closed: new Promise((done) => socket.on('close', (code) => done(code))) };
    }

    const pidOf = (message: string): number => (JSON.parse(message) as { params: { pid: number } }).params.pid;

    it('forwards a 5 MB message both ways, line for line, and stops the agent when the socket closes', async () => {
      const bridge = await startBridge(echoAgent(), env, ws.root);
      bridges.push(bridge);
      const { socket, messages } = connect(bridge.url);
      await until(() => messages.length === 1, 'the agent to say hello');
      const pid = pidOf(messages[0]!);
      const large = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'echo', params: { text: 'x'.repeat(5 * 1024 * 1024) } });
      socket.send(large);
      socket.send('{"jsonrpc": "2.0",\n "method": "pretty"}');
      await until(() => messages.length === 3, 'the echoes');
      assert.equal(messages[1], large);
      assert.equal(messages[2], '{"jsonrpc":"2.0","method":"pretty"}', 'a message goes on as compact JSON: one message, one line');
      socket.close();
      await until(() => !alive(pid), 'the agent to be stopped');
    });

    it('stops agents that ignore the end of their input, and every agent on SIGTERM', async () => {
      const bridge = await startBridge(echoAgent(true), env, ws.root);
      bridges.push(bridge);
      const first = connect(bridge.url);
      const second = connect(bridge.url);
      await until(() => first.messages.length === 1 && second.messages.length === 1, 'both agents to say hello');
      const [one, two] = [pidOf(first.messages[0]!), pidOf(second.messages[0]!)];
      assert.notEqual(one, two, 'one agent per connection');
      first.socket.close();
      await until(() => !alive(one), 'the first agent to be stopped', 5_000);
      assert.ok(alive(two));
      bridge.child.kill('SIGTERM');
      assert.equal(await bridge.exited, 143);
      assert.equal(alive(two), false);
      assert.equal(await second.closed, 1001);
    });

    it('closes the connection with 1011 when the agent cannot be started', async () => {
      const bridge = await startBridge(['--', 'no-such-agent-here'], env, ws.root);
      bridges.push(bridge);
      assert.equal(await connect(bridge.url).closed, 1011);
      await until(() => /agent no-such-agent-here: spawn no-such-agent-here ENOENT/.test(bridge.stderr()), 'the reason in the log');
    });

    it('--shared: one agent for every connection, in turn', async () => {
      const bridge = await startBridge(['--shared', ...echoAgent()], env, ws.root);
      bridges.push(bridge);
      const first = connect(bridge.url);
      await until(() => first.messages.length === 1, 'the agent to say hello');
      const second = connect(bridge.url);
      second.socket.on('open', () => second.socket.send('{"jsonrpc":"2.0","method":"ping"}'));
      await new Promise((done) => setTimeout(done, 200));
      assert.deepEqual(second.messages, [], 'the second connection waits while the first is open');
      first.socket.close();
      await until(() => second.messages.length === 1, 'the echo');
      assert.equal(second.messages[0], '{"jsonrpc":"2.0","method":"ping"}', 'the same agent: no second hello');
      second.socket.close();
    });
  });
});
