import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AcpLogger } from '../../src/adapters/acp/acp-log';
import { createAcpServer } from '../../src/adapters/acp/acp-server';
import { policyFromConfig } from '../../src/config/permission-config';
import { ScriptedProvider } from '../../src/llm/scripted';
import { SessionStore } from '../../src/session/session-store';
import type { SandboxSetup } from '../../src/tools/sandbox-setup';
import { TestCatalog, testCommands } from '../support/acp-catalog';
import { memoryStreams, TestClient, type TestClientOptions } from '../support/acp-client';
import { describeSandboxed, hostFolderOutsideTmp } from '../support/sandbox';

const quiet: AcpLogger = { log: () => undefined, close: async () => undefined };
const CORP_KEY = 'corp-acp-SandboxLeakCheck-0123456789';

describeSandboxed('ACP: commands in the client\'s terminals run in the same sandbox', () => {
  let root: string;
  let data: string;
  let outside: string;
  const clients: TestClient[] = [];

  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'crow-acp-sbx-'));
    data = mkdtempSync(join(tmpdir(), 'crow-acp-sbx-data-'));
    outside = hostFolderOutsideTmp();
    process.env.CORP_LLM_KEY = CORP_KEY;
  });
  afterEach(() => {
    for (const client of clients.splice(0)) client.close();
    delete process.env.CORP_LLM_KEY;
    for (const dir of [root, data, outside]) rmSync(dir, { recursive: true, force: true });
  });

  async function connect(catalog: TestCatalog, options: TestClientOptions): Promise<TestClient> {
    const streams = memoryStreams();
    const store = new SessionStore({ dataHome: data });
    createAcpServer({
      sessions: () => ({ catalogFor: () => catalog, commandsFor: () => testCommands(), store }),
      missingKeys: () => [],
      logger: quiet,
      version: 'test',
    }).connect(streams.agent);
    const client = new TestClient(streams.client, options);
    clients.push(client);
    await client.initialize();
    return client;
  }

  it('scrubs the key variables from the client terminal and keeps writes inside the workspace, unasked', async () => {
    writeFileSync(join(root, 'notes.txt'), 'notes\n');
    const command = `echo made > made.txt; echo out > ${outside}/x 2>&1 || echo refused; echo "key:$CORP_LLM_KEY"`;
    const provider = new ScriptedProvider([{ toolCalls: [{ id: 't1', name: 'bash', arguments: { command } }] }, { text: 'Done.' }]);
    const sandbox: SandboxSetup = {
      options: { mode: 'required', protectedPaths: [], network: false, hiddenVariables: ['CORP_LLM_KEY'] },
      active: true,
    };
    const client = await connect(new TestCatalog({ providers: { m: provider }, policy: policyFromConfig(undefined, true), sandbox }), {
      capabilities: { terminal: true },
    });
    const { sessionId } = await client.newSession(root);
    await client.prompt(sessionId, 'Try it');

    assert.equal(client.permissionRequests.length, 0, 'a sandboxed command runs without asking');
    const [terminal] = [...client.terminals.values()];
    assert.match(terminal!.command, /^env -u .*CORP_LLM_KEY.* \S*bwrap .* bash -c /, terminal!.command);
    assert.match(terminal!.output, /refused/);
    assert.match(terminal!.output, /^key:$/m);
    assert.ok(!terminal!.output.includes(CORP_KEY));
    assert.equal(readFileSync(join(root, 'made.txt'), 'utf8'), 'made\n');
    assert.deepEqual(readdirSync(outside), []);
  });
});
