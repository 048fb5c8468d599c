/**
 * Keeping inside the context window, through the real binary against the
 * strict fake: compaction of a history that holds tool calls, on both
 * wires; and a server whose window is smaller than Crow was told, in each
 * way servers say so (Anthropic, OpenAI, llama.cpp, vLLM and LM Studio
 * refuse; Ollama silently drops the oldest messages): Crow compacts and
 * retries once instead of failing the turn.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FakeLlmServer, type ScriptedReply } from '../../testkit/fake-llm-server';
import { runCrow } from '../support/crow-binary';
import { isolatedEnv } from '../support/isolated-env';
import { ANTHROPIC_WIRE, fakeTokens, LOCAL_SERVERS, localWire, OPENAI_WIRE, RESPONSES_WIRE, type Wire } from '../support/wires';

const call = (name: string, args: unknown): ScriptedReply => ({ blocks: [{ type: 'tool_call', name, arguments: args }] });
const say = (text: string): ScriptedReply => ({ blocks: [{ type: 'text', text }] });

describe('staying inside the context window, against the strict fake', function () {
  this.timeout(60_000);
  let home: string;
  let workspace: string;

  beforeEach(() => {
    home = mkdtempSync(join(tmpdir(), 'crow-window-home-'));
    workspace = mkdtempSync(join(tmpdir(), 'crow-window-ws-'));
  });
  afterEach(() => {
    rmSync(home, { recursive: true, force: true });
    rmSync(workspace, { recursive: true, force: true });
  });

  async function crow(wire: Wire, server: FakeLlmServer, window: number, prompt: string, more: string[] = [], top = '') {
    mkdirSync(join(home, 'config', 'crow-agent'), { recursive: true });
    writeFileSync(join(home, 'config', 'crow-agent', 'config.toml'), `${top}${wire.config(server, window)}`);
    return runCrow(['run', prompt, '--no-undo', ...more], isolatedEnv(home, wire.env(server)), workspace);
  }

  for (const wire of [ANTHROPIC_WIRE, OPENAI_WIRE]) {
    it(`compacts a history holding tool calls on the ${wire.name} wire, asking the agent itself with its tools`, async () => {
      const server = await FakeLlmServer.start(wire.chatServer ? { chatServer: wire.chatServer } : {});
      try {
        writeFileSync(join(workspace, 'notes.txt'), `${'A line of notes about the project.\n'.repeat(60)}`);
        server.enqueue(wire.api, call('read_file', { path: 'notes.txt' }), say('The notes describe the project.'));
        const first = await crow(wire, server, 100_000, 'Read notes.txt and tell me what it holds.');
        assert.equal(first.code, 0, first.stderr);

        // Told a window the conversation so far nearly fills, Crow compacts before its next call.
        const window = Math.round(fakeTokens(wire, server.requestsFor(wire.api)[1]!.body) * 1.1);
        server.enqueue(wire.api, say('Summary: the user asked what notes.txt holds; it was read; it describes the project.'), say('It still describes the project.'));
        const second = await crow(wire, server, window, `And now? ${'context '.repeat(300)}`, ['--continue']);
        assert.equal(second.code, 0, second.stderr);
        assert.match(second.stderr, /compacted to fit the context window/);

        const [summary, answer] = server.requestsFor(wire.api).slice(2).map((request) => request.body);
        const sent = JSON.stringify(summary.messages);
        if (wire.api === 'anthropic') {
          assert.deepEqual(summary.tool_choice, { type: 'none' });
          assert.match(sent, /"type":"tool_use".*"type":"tool_result"/, 'the tool calls are sent as they are');
        } else {
          assert.equal(summary.tool_choice, 'none');
          assert.match(sent, /"tool_calls".*"role":"tool"/, 'the tool calls are sent as they are');
        }
        assert.ok(summary.tools.length > 0, 'with the agent tools');
        assert.match(sent, /this session is being compacted/);
        assert.match(JSON.stringify(answer.messages), /Summary: the user asked what notes\.txt holds/);
        assert.doesNotMatch(JSON.stringify(answer.messages), /A line of notes about the project/, 'the old tool output is not resent');
      } finally {
        await server.close();
      }
    });
  }

  it('with compaction = "off", nothing is compacted unasked: a refused prompt says to send /compact, which makes it fit', async () => {
    const wire = ANTHROPIC_WIRE;
    const off = 'compaction = "off"\n';
    const server = await FakeLlmServer.start({ contextWindow: 1_000_000 });
    try {
      writeFileSync(join(workspace, 'data.txt'), 'A row of recorded data for the report.\n'.repeat(400));
      server.enqueue(wire.api, call('read_file', { path: 'data.txt' }), say('The data holds 400 rows.'));
      assert.equal((await crow(wire, server, 1_000_000, 'Read data.txt and count its rows.', [], off)).code, 0);
      const full = fakeTokens(wire, server.requestsFor(wire.api)[1]!.body);

      // Told a window the conversation nearly fills, Crow sends it as it is; the server refuses it.
      server.setContextWindow(full + 100);
      const refused = await crow(wire, server, full + 200, `What kind of rows are they? ${'context '.repeat(150)}`, ['--continue'], off);
      assert.equal(refused.code, 1);
      assert.doesNotMatch(refused.stderr, /compacted/);
      assert.match(refused.stderr, /Compaction is off \(compaction = "off"\): send \/compact to summarise the conversation, or start a new session/);
      assert.deepEqual(server.takeRefusals().map((refusal) => refusal.rule), ['anthropic/context-window']);

      server.enqueue(wire.api, say('Summary: data.txt was read; it holds 400 rows of report data.'), say('They are rows of report data.'));
      const compacted = await crow(wire, server, full + 200, '/compact', ['--continue'], off);
      assert.equal(compacted.code, 0, compacted.stderr);
      assert.match(compacted.stdout, /Compacted the conversation of build/);
      // The whole conversation no longer fits either: the summary is asked again of its trimmed view.
      assert.deepEqual(server.takeRefusals().map((refusal) => refusal.rule), ['anthropic/context-window']);
      assert.match(JSON.stringify(server.requestsFor(wire.api).at(-1)!.body.messages), /Output trimmed to save context/);
      const again = await crow(wire, server, full + 200, 'What kind of rows are they?', ['--continue'], off);
      assert.equal(again.code, 0, again.stderr);
      assert.equal(again.stdout.trim(), 'They are rows of report data.');
      assert.doesNotMatch(JSON.stringify(server.requestsFor(wire.api).at(-1)!.body.messages), /A row of recorded data/);
    } finally {
      await server.close();
    }
  });

  for (const wire of [ANTHROPIC_WIRE, OPENAI_WIRE, RESPONSES_WIRE, ...LOCAL_SERVERS.map(localWire)]) {
    const silent = wire.chatServer === 'ollama';
    it(`on ${wire.name}, a window smaller than Crow was told ${silent ? 'drops messages silently' : 'refuses the prompt'}: Crow compacts and retries once`, async () => {
      const server = await FakeLlmServer.start({ chatServer: wire.chatServer, contextWindow: 1_000_000 });
      try {
        writeFileSync(join(workspace, 'data.txt'), 'A row of recorded data for the report.\n'.repeat(400));
        server.enqueue(wire.api, call('read_file', { path: 'data.txt' }), say('The data holds 400 rows.'));
        const first = await crow(wire, server, 1_000_000, 'Read data.txt and count its rows.');
        assert.equal(first.code, 0, first.stderr);

        // The server restarts with a window the next prompt no longer fits; Crow still believes in a large one.
        server.setContextWindow(fakeTokens(wire, server.requestsFor(wire.api)[1]!.body) + 100);
        server.respondWith(wire.api, (body) => {
          const sent = JSON.stringify(body.messages ?? body.input);
          if (/this session is being compacted/.test(sent)) return say('Summary: data.txt was read; it holds 400 rows.');
          // Only a server that drops messages answers a prompt still holding the whole output.
          return say(/A row of recorded data/.test(sent) ? 'Answer from a prompt without its start.' : 'They are rows of report data.');
        });
        const second = await crow(wire, server, 1_000_000, `What kind of rows are they? ${'context '.repeat(150)}`, ['--continue']);

        assert.equal(second.code, 0, second.stderr);
        // An answer to a cut prompt had already streamed when the usage told what was read; what follows says why another comes.
        assert.match(second.stdout.trim(), silent ? /^Answer from a prompt without its start\.\nThey are rows of report data\.$/ : /^They are rows of report data\.$/);
        // OpenAI's Responses API names no numbers in its refusal.
        assert.match(second.stderr, wire.api === 'openai-responses' ? /could not fit the prompt in its context window/ : /could not fit the prompt in its \d+-token context window/);
        const refused = server.takeRefusals().map((refusal) => refusal.rule);
        assert.deepEqual(refused, silent ? [] : [`${wire.chatServer ?? wire.api}/context-window`], 'one refusal, then no more');
        const last = server.requestsFor(wire.api).at(-1)!.body;
        assert.doesNotMatch(JSON.stringify(last.messages ?? last.input), /A row of recorded data/, 'the retried prompt is compacted');
        assert.doesNotMatch(JSON.stringify(last.messages ?? last.input), /without its start/, 'and the answer to the cut prompt is not in the history');
      } finally {
        await server.close();
      }
    });
  }
});
