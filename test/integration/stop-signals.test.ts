import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import * as acp from '@agentclientprotocol/sdk';
import { FakeLlmServer } from '../../testkit/fake-llm-server';
import { TestClient } from '../support/acp-client';
import { startCrow, until, type CrowProcess } from '../support/crow-binary';
import { isolatedEnv } from '../support/isolated-env';
import { groupRunning } from '../support/process-groups';

/** What editors and terminals send to stop an agent: it must stop the commands it runs too. */
describe('SIGTERM and SIGHUP stop crow and every command it runs', function () {
  this.timeout(60_000);
  let llm: FakeLlmServer;
  let home: string;
  let workspace: string;
  let env: NodeJS.ProcessEnv;
  const started: { crow: CrowProcess; pgid?: number }[] = [];

  before(async () => {
    llm = await FakeLlmServer.start();
  });
  after(() => llm.close());
  beforeEach(() => {
    llm.reset();
    home = mkdtempSync(join(tmpdir(), 'crow-sig-home-'));
    workspace = mkdtempSync(join(tmpdir(), 'crow-sig-ws-'));
    // Without the sandbox: these follow the command's own process group (sandboxed stops: sandbox-cli.test.ts).
    env = isolatedEnv(home, { ANTHROPIC_API_KEY: 'k', ANTHROPIC_BASE_URL: llm.anthropicBaseUrl, CROW_SANDBOX: 'off' });
  });
  afterEach(async () => {
    for (const { crow, pgid } of started.splice(0)) {
      crow.child.kill('SIGKILL');
      await crow.exited;
      if (pgid !== undefined && groupRunning(pgid)) process.kill(-pgid, 'SIGKILL');
    }
    rmSync(home, { recursive: true, force: true });
    rmSync(workspace, { recursive: true, force: true });
  });

  /** The model runs `sleep 30` through bash; the shell leaves its pid, which leads its process group, in a file. */
  function scriptSleep(): string {
    const pidFile = join(workspace, 'command.pid');
    llm.enqueue(
      'anthropic',
      { blocks: [{ type: 'tool_call', name: 'bash', arguments: { command: `echo $$ > ${pidFile}; sleep 30` } }] },
      { blocks: [{ type: 'text', text: 'Stopped.' }] },
    );
    return pidFile;
  }

  async function commandGroup(pidFile: string, crow: CrowProcess): Promise<number> {
    await until(() => existsSync(pidFile) && readFileSync(pidFile, 'utf8').endsWith('\n'), `the command to start; stderr:\n${crow.stderr()}`);
    const pgid = Number(readFileSync(pidFile, 'utf8'));
    assert.ok(groupRunning(pgid), 'sleep runs');
    return pgid;
  }

  for (const [signal, code] of [['SIGTERM', 143], ['SIGHUP', 129]] as const) {
    it(`crow run: ${signal} ends the command's process group and exits ${code}`, async () => {
      const pidFile = scriptSleep();
      const crow = startCrow(['run', 'Wait a while', '--allow', 'execute', '--provider', 'anthropic'], env, workspace);
      const entry: { crow: CrowProcess; pgid?: number } = { crow };
      started.push(entry);
      entry.pgid = await commandGroup(pidFile, crow);

      crow.child.kill(signal);
      const { code: exitCode } = await crow.exited;
      assert.equal(exitCode, code, crow.stderr());
      assert.match(crow.stderr(), new RegExp(`Cancelling: ${signal} received`));
      assert.match(crow.stderr(), new RegExp(`⊘ cancelled by ${signal}`), 'the command was stopped by the signal');
      assert.match(crow.stderr(), new RegExp(`⚠ Stopped by ${signal} while builder was working`));
      assert.doesNotMatch(crow.stderr(), /by the user/, 'nobody cancelled it');
      assert.equal(groupRunning(entry.pgid), false, 'no sleep remains');
    });

    it(`crow acp: ${signal} cancels the prompt, ends the command's process group and exits ${code}`, async () => {
      const pidFile = scriptSleep();
      const crow = startCrow(['acp'], env, workspace);
      const entry: { crow: CrowProcess; pgid?: number } = { crow };
      started.push(entry);
      const stream = acp.ndJsonStream(Writable.toWeb(crow.child.stdin), Readable.toWeb(crow.child.stdout) as unknown as ReadableStream<Uint8Array>);
      const client = new TestClient(stream, { permission: () => 'allow_once' });
      try {
        await client.initialize();
        const { sessionId } = await client.newSession(workspace);
        const prompt = client.prompt(sessionId, 'Wait a while').catch((err: unknown) => err);
        entry.pgid = await commandGroup(pidFile, crow);

        crow.child.kill(signal);
        const { code: exitCode } = await crow.exited;
        assert.equal(exitCode, code, crow.stderr());
        assert.equal(groupRunning(entry.pgid), false, 'no sleep remains');
        assert.match(crow.stderr(), new RegExp(`${signal} received: cancelling every prompt and stopping`));
        await prompt;
      } finally {
        client.close();
      }
    });
  }
});
