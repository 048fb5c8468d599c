/**
 * Reviewed agents on every wire, through the real binary, against the
 * strict fake: the Anthropic API, OpenAI's, and each OpenAI-compatible local
 * server. The builder ends without task_complete, so its summary turn (the
 * tool-less call with tool calls in its history that the real Anthropic API
 * refused) runs, then the reviewer checks and approves.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FakeLlmServer, type ScriptedReply } from '../../testkit/fake-llm-server';
import { runCrow } from '../support/crow-binary';
import { isolatedEnv } from '../support/isolated-env';
import { ANTHROPIC_WIRE, capRead, DEEPSEEK_WIRE, GEMINI_WIRE, LOCAL_SERVERS, localWire, OPENAI_WIRE, RESPONSES_WIRE, type Wire } from '../support/wires';

const BROKEN = 'exports.add = (a, b) => a - b;\n';
const FIXED = 'exports.add = (a, b) => a + b;\n';
const TEST = "const assert = require('assert');\nassert.equal(require('./calc').add(2, 3), 5);\nconsole.log('ok');\n";
const MAX_OUTPUT_TOKENS = 4096;

const call = (name: string, args: unknown): ScriptedReply => ({ blocks: [{ type: 'tool_call', name, arguments: args }] });
const say = (text: string): ScriptedReply => ({ blocks: [{ type: 'text', text }] });

/** The builder fixes and checks, then stops in text; its summary; the reviewer reruns the check and approves. */
const REVIEWED_RUN: ScriptedReply[] = [
  call('write_file', { path: 'calc.js', content: FIXED }),
  call('bash', { command: 'node test.js' }),
  say('I fixed add() and the test passes.'),
  say('Changed add() in calc.js to return a + b; node test.js prints ok.'),
  call('bash', { command: 'node test.js' }),
  call('task_complete', { summary: 'Verified: node test.js passes.' }),
];

const WIRES: Wire[] = [ANTHROPIC_WIRE, OPENAI_WIRE, RESPONSES_WIRE, DEEPSEEK_WIRE, GEMINI_WIRE, ...LOCAL_SERVERS.map(localWire)];

describe('reviewed agents on every wire, against the strict fake', function () {
  this.timeout(60_000);
  let home: string;
  let workspace: string;

  beforeEach(() => {
    home = mkdtempSync(join(tmpdir(), 'crow-wire-home-'));
    workspace = mkdtempSync(join(tmpdir(), 'crow-wire-ws-'));
    writeFileSync(join(workspace, 'calc.js'), BROKEN);
    writeFileSync(join(workspace, 'test.js'), TEST);
  });
  afterEach(() => {
    rmSync(home, { recursive: true, force: true });
    rmSync(workspace, { recursive: true, force: true });
  });

  for (const wire of WIRES) {
    for (const agent of ['pair', 'build-verified']) {
      it(`${agent} on ${wire.name}: the reviewer approves and no request is refused`, async () => {
        // Local servers run with the window a coding agent needs, set on both sides.
        const server = await FakeLlmServer.start({ chatServer: wire.chatServer, ...(wire.chatServer ? { contextWindow: 32_000 } : {}) });
        try {
          server.enqueue(wire.api, ...REVIEWED_RUN);
          mkdirSync(join(home, 'config', 'crow-agent'), { recursive: true });
          const window = wire.chatServer && wire.chatServer !== 'openai' ? 32_000 : undefined;
          writeFileSync(join(home, 'config', 'crow-agent', 'config.toml'), `max_output_tokens = ${MAX_OUTPUT_TOKENS}\n${wire.config(server, window)}`);

          const run = await runCrow(['run', 'Fix add() in calc.js', '--agent', agent, '--allow', 'all', '--no-undo'], isolatedEnv(home, wire.env(server)), workspace);

          assert.deepEqual(server.takeRefusals(), []);
          assert.equal(run.code, 0, run.stderr);
          assert.match(run.stderr, /approved/);
          assert.equal(readFileSync(join(workspace, 'calc.js'), 'utf8'), FIXED);
          const requests = server.requestsFor(wire.api);
          assert.equal(requests.length, REVIEWED_RUN.length, 'every scripted reply was asked for');
          for (const request of requests) assert.equal(capRead(wire, request.body), MAX_OUTPUT_TOKENS, `${wire.name} reads the output cap`);

          const summary = requests[3]!.body;
          assert.match(JSON.stringify(summary.messages ?? summary.input), /write_file/, 'the summary request holds the tool calls');
          if (wire.api === 'anthropic') {
            assert.deepEqual(summary.tool_choice, { type: 'none' });
            assert.deepEqual(summary.tools, requests[2]!.body.tools, 'the same tools, so the cached prefix holds');
          } else if (wire.chatServer === 'ollama') {
            assert.equal(summary.tools, undefined, 'Ollama ignores tool_choice, so the tool-less turn sends no tools');
          } else {
            assert.equal(summary.tool_choice, 'none');
          }
        } finally {
          await server.close();
        }
      });
    }
  }
});
