/**
 * The editor set-up shown in docs/editors.md, as a person would copy it: each
 * example is parsed out of the page, checked against its editor's documented
 * format, and the command it names is started with its env, from the npm
 * package packed and installed offline, against the fake model server.
 *
 * Formats: Zed, docs/src/ai/external-agents.md ("Add More Agents") in
 * zed-industries/zed: `agent_servers.NAME` = { type: "custom", command, args,
 * env }. JetBrains, https://www.jetbrains.com/help/ai-assistant/acp.html:
 * ~/.jetbrains/acp.json, `agent_servers.NAME` = { command, args, env }.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join, resolve } from 'node:path';
import { Readable, Writable } from 'node:stream';
import * as acp from '@agentclientprotocol/sdk';
import * as z from 'zod';
import { version } from '../../package.json';
import { FakeLlmServer } from '../../testkit/fake-llm-server';
import { TestClient } from '../support/acp-client';
import { installOffline, offlineNpmEnv, packCrow } from '../support/npm-package';

const PAGE = resolve(__dirname, '../../docs/editors.md');

/** The JSON block after `<!-- editor-example: NAME -->` in docs/editors.md. */
function example(name: string): unknown {
  const page = readFileSync(PAGE, 'utf8');
  const found = new RegExp(`<!-- editor-example: ${name} -->\\s*\`\`\`json\\n([\\s\\S]*?)\\n\`\`\``).exec(page);
  assert.ok(found, `docs/editors.md has an example marked ${name}`);
  return JSON.parse(found[1]!);
}

const Command = { command: z.string().min(1), args: z.array(z.string()), env: z.record(z.string(), z.string()) };
const formats = {
  zed: z.strictObject({ agent_servers: z.record(z.string(), z.strictObject({ type: z.literal('custom'), ...Command })) }),
  jetbrains: z.strictObject({ agent_servers: z.record(z.string(), z.strictObject(Command)) }),
};

describe('the editor set-up in docs/editors.md', function () {
  this.timeout(120_000);
  let server: FakeLlmServer;
  let project: string;
  let home: string;

  before(async () => {
    // Where the package is installed is where `npx crow-agent` finds it offline (a person's npx fetches it instead).
    project = mkdtempSync(join(tmpdir(), 'crow-editor-project-'));
    home = mkdtempSync(join(tmpdir(), 'crow-editor-home-'));
    const install = installOffline(packCrow().tarball, project, home);
    assert.equal(install.code, 0, install.output);
    server = await FakeLlmServer.start();
  });
  after(async () => {
    await server?.close();
    for (const folder of [project, home]) if (folder) rmSync(folder, { recursive: true, force: true });
  });

  for (const editor of ['zed', 'jetbrains'] as const) {
    it(`${editor}: the example is in the editor's format, and its command answers initialize and a prompt`, async () => {
      const parsed = formats[editor].safeParse(example(editor));
      assert.ok(parsed.success, `the ${editor} example follows ${editor}'s format: ${parsed.error?.message}`);
      const [[name, entry]] = Object.entries(parsed.data.agent_servers) as [[string, z.infer<(typeof formats)['jetbrains']>['agent_servers'][string]]];
      assert.equal(name, 'Crow Agent');
      // The editor's environment: `crow` on PATH as `npm install -g crow-agent` puts it, the fake model in place of the provider's.
      const env = offlineNpmEnv(home, {
        ...entry.env,
        ANTHROPIC_BASE_URL: server.anthropicBaseUrl,
        OPENAI_BASE_URL: server.openaiBaseUrl,
      });
      env.PATH = [join(project, 'node_modules', '.bin'), env.PATH].join(delimiter);
      const api = entry.env.CROW_PROVIDER === 'openai' ? 'openai' : 'anthropic';
      server.reset();
      server.enqueue(api, { blocks: [{ type: 'text', text: `Hello from ${editor}.` }] });
      const child = spawn(entry.command, entry.args, { cwd: project, env });
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      const client = new TestClient(acp.ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout) as unknown as ReadableStream<Uint8Array>));
      try {
        const init = await client.initialize();
        assert.deepEqual(init.agentInfo, { name: 'crow-agent', title: 'Crow Agent', version });
        const { sessionId } = await client.newSession(project);
        assert.equal((await client.prompt(sessionId, 'Say hello')).stopReason, 'end_turn');
        assert.match(client.said(sessionId), new RegExp(`Hello from ${editor}\\.`));
        assert.equal(server.requestsFor(api).length, 1, `the prompt went to the ${api} API the example names`);
      } finally {
        client.close();
        child.stdin.end();
        const code = await new Promise<number | null>((done) => child.on('close', done));
        assert.equal(code, 0, stderr);
      }
    });
  }
});
