import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import * as acp from '@agentclientprotocol/sdk';
import { FakeLlmServer } from '../../testkit/fake-llm-server';
import { TestClient } from '../support/acp-client';
import { runCrow, startCrow, until, type CrowProcess } from '../support/crow-binary';
import { isolatedEnv } from '../support/isolated-env';

/** Two processes on one stored session: the second must not write into it. */
describe('one writer per session', function () {
  this.timeout(60_000);
  let llm: FakeLlmServer;
  let home: string;
  let workspace: string;
  let env: NodeJS.ProcessEnv;
  const running: CrowProcess[] = [];

  before(async () => {
    llm = await FakeLlmServer.start();
  });
  after(() => llm.close());
  beforeEach(() => {
    llm.reset();
    home = mkdtempSync(join(tmpdir(), 'crow-lock-home-'));
    workspace = mkdtempSync(join(tmpdir(), 'crow-lock-ws-'));
    env = isolatedEnv(home, { ANTHROPIC_API_KEY: 'k', ANTHROPIC_BASE_URL: llm.anthropicBaseUrl });
  });
  afterEach(async () => {
    for (const crow of running.splice(0)) {
      crow.child.kill('SIGKILL');
      await crow.exited;
    }
    rmSync(home, { recursive: true, force: true });
    rmSync(workspace, { recursive: true, force: true });
  });

  const sessionsFolder = () => join(home, 'data', 'crow-agent', 'sessions');
  const run = (prompt: string, ...flags: string[]) => runCrow(['run', prompt, '--provider', 'anthropic', ...flags], env, workspace);

  /** `crow run --continue PROMPT` whose model call never ends; resolves once the model was called. */
  async function holding(prompt: string): Promise<CrowProcess> {
    llm.enqueue('anthropic', { blocks: [{ type: 'text', text: 'Thinking at length...' }], fault: { kind: 'stall_after', events: 4 } });
    const calls = llm.requestsFor('anthropic').length;
    const crow = startCrow(['run', prompt, '--continue', '--provider', 'anthropic'], env, workspace);
    running.push(crow);
    await until(() => llm.requestsFor('anthropic').length > calls, `${prompt} to reach the model; stderr:\n${crow.stderr()}`);
    return crow;
  }

  /** The user prompts stored in the session, in order, from every history file. */
  function storedPrompts(id: string): string[] {
    const folder = join(sessionsFolder(), id);
    return readdirSync(folder)
      .filter((name) => name.endsWith('.jsonl') && name !== 'trace.jsonl')
      .flatMap((name) => readFileSync(join(folder, name), 'utf8').trim().split('\n'))
      .map((line) => JSON.parse(line) as { kind: string; content?: { text?: string }[] })
      .filter((entry) => entry.kind === 'user')
      .map((entry) => entry.content?.map((block) => block.text ?? '').join('') ?? '');
  }

  async function firstSession(): Promise<string> {
    llm.enqueue('anthropic', { blocks: [{ type: 'text', text: 'One.' }] });
    const first = await run('First');
    assert.equal(first.code, 0, first.stderr);
    const [id] = readdirSync(sessionsFolder());
    return id!;
  }

  it('refuses a second crow run --continue while the first runs, naming it; nothing of the second is stored', async () => {
    const id = await firstSession();
    const second = await holding('Second');
    const calls = llm.requestsFor('anthropic').length;

    const third = await run('Third', '--continue');
    assert.equal(third.code, 1, third.stderr);
    assert.match(third.stderr, new RegExp(`^crow: Session ${id} is in use by crow run \\(pid ${second.child.pid}, since [^)]+\\); only one process may write to a session at a time\\. Wait for it to finish \\(or stop it\\), or start a new session\\.`));
    assert.equal(llm.requestsFor('anthropic').length, calls, 'the refused run never called the model');

    second.child.kill('SIGINT');
    assert.equal((await second.exited).code, 130, second.stderr());
    assert.deepEqual(storedPrompts(id), ['First', 'Second'], 'no entry of the refused run, none interleaved');
    const undo = join(home, 'data', 'crow-agent', 'undo');
    const undoLog = readdirSync(undo).map((name) => readFileSync(join(undo, name), 'utf8')).join('');
    assert.doesNotMatch(undoLog, /Third/, 'the refused run recorded no undo point');
    assert.equal(existsSync(join(sessionsFolder(), id, 'writer.json')), false, 'the lock is gone with its process');
  });

  it('refuses ACP session/load and session/resume of a session another process writes to', async () => {
    const id = await firstSession();
    const holder = await holding('Second');
    const acpProcess = startCrow(['acp'], env, workspace);
    running.push(acpProcess);
    const stream = acp.ndJsonStream(Writable.toWeb(acpProcess.child.stdin), Readable.toWeb(acpProcess.child.stdout) as unknown as ReadableStream<Uint8Array>);
    const client = new TestClient(stream);
    try {
      await client.initialize();
      for (const method of ['session/load', 'session/resume'] as const) {
        const refused = await client.agent.request(method, { sessionId: id, cwd: workspace, mcpServers: [] }).then(
          () => undefined,
          (err: unknown) => err as acp.RequestError,
        );
        assert.ok(refused, `${method} is refused`);
        assert.equal(refused.code, -32600);
        assert.match(refused.message, new RegExp(`^Session ${id} is in use by crow run \\(pid ${holder.child.pid}, `));
      }
    } finally {
      client.close();
      acpProcess.child.stdin.end();
    }
  });

  it('recovers the lock of a crow run killed with kill -9', async () => {
    const id = await firstSession();
    const killed = await holding('Second');
    assert.ok(existsSync(join(sessionsFolder(), id, 'writer.json')));
    killed.child.kill('SIGKILL');
    await killed.exited;

    llm.enqueue('anthropic', { blocks: [{ type: 'text', text: 'Three.' }] });
    const third = await run('Third', '--continue');
    assert.equal(third.code, 0, third.stderr);
    assert.equal(third.stdout.trim(), 'Three.');
    assert.deepEqual(storedPrompts(id), ['First', 'Second', 'Third']);
    assert.equal(existsSync(join(sessionsFolder(), id, 'writer.json')), false);
  });
});
