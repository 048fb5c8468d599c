/**
 * A stored session can always continue, on any provider: a session with
 * tool calls, thinking and an image, begun on each wire (Anthropic,
 * OpenAI's Chat Completions and Responses API, DeepSeek, Gemini, a local
 * vLLM) through the real
 * binary and continued (`crow run --continue --provider ...`) on each
 * other, against fakes that refuse what each real server refuses.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FakeLlmServer, type ScriptedReply } from '../../testkit/fake-llm-server';
import type { ChatServerName } from '../../testkit/chat-servers';
import { runCrow } from '../support/crow-binary';
import { isolatedEnv } from '../support/isolated-env';

interface MatrixWire {
  /** The provider's name in config.toml, as --provider takes it. */
  name: string;
  api: 'anthropic' | 'openai' | 'openai-responses';
  chatServer?: ChatServerName;
  /** [providers.NAME] and its model's table, given the fake's base URL. */
  table(server: FakeLlmServer): string;
}

const chatTable = (name: string, flavor: string, model: string, vision: boolean) => (server: FakeLlmServer) =>
  `[providers.${name}]\ntype = "openai"\nflavor = "${flavor}"\nbase_url = "${server.openaiBaseUrl}"\napi_key_env = "KEY"\ndefault_model = "${model}"\n` +
  `[providers.${name}.models."${model}"]\nvision = ${vision}\n`;

const WIRES: MatrixWire[] = [
  {
    name: 'anthropic',
    api: 'anthropic',
    table: (server) => `[providers.anthropic]\nbase_url = "${server.anthropicBaseUrl}"\napi_key_env = "KEY"\ndefault_model = "claude-sonnet-4-6"\n`,
  },
  { name: 'openai', api: 'openai', chatServer: 'openai', table: chatTable('openai', 'openai', 'gpt-5.4', true) },
  {
    name: 'responses',
    api: 'openai-responses',
    table: (server) =>
      `[providers.responses]\ntype = "openai-responses"\nbase_url = "${server.openaiBaseUrl}"\napi_key_env = "KEY"\ndefault_model = "gpt-5.4"\n` +
      `[providers.responses.models."gpt-5.4"]\nvision = true\n`,
  },
  { name: 'deepseek', api: 'openai', chatServer: 'deepseek', table: chatTable('deepseek', 'deepseek', 'deepseek-v4-pro', false) },
  { name: 'gemini', api: 'openai', chatServer: 'gemini', table: chatTable('gemini', 'gemini', 'gemini-3-pro-preview', true) },
  { name: 'local', api: 'openai', chatServer: 'vllm', table: chatTable('local', 'vllm', 'qwen3', false) },
];

/** The bytes of a PNG's header for a 4×4 image: what read_file needs to return it as an image. */
function tinyPng(): Buffer {
  const header = Buffer.alloc(33);
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]).copy(header, 0);
  header.writeUInt32BE(13, 8);
  header.write('IHDR', 12, 'ascii');
  header.writeUInt32BE(4, 16);
  header.writeUInt32BE(4, 20);
  header.writeUInt8(8, 24);
  header.writeUInt8(2, 25);
  return header;
}

const call = (name: string, args: unknown, thinking?: string): ScriptedReply => ({
  blocks: [...(thinking ? [{ type: 'thinking' as const, text: thinking }] : []), { type: 'tool_call', name, arguments: args }],
});
const say = (text: string): ScriptedReply => ({ blocks: [{ type: 'text', text }] });

/** The first prompt: looks at the image (thinking first), writes a file, answers. */
const BEGUN: ScriptedReply[] = [
  call('read_file', { path: 'pic.png' }, 'Look at the picture first.'),
  call('write_file', { path: 'seen.txt', content: 'a 4x4 picture\n' }, 'Now write it down.'),
  say('I wrote what I saw to seen.txt.'),
];
/** The second prompt, on the other provider: one more call, then the answer. */
const CONTINUED: ScriptedReply[] = [call('write_file', { path: 'more.txt', content: 'more\n' }), say('Added more.txt.')];

describe('a session continues on any provider (the binary)', function () {
  this.timeout(60_000);
  let base: string;
  let home: string;
  let root: string;
  const servers = new Map<string, FakeLlmServer>();

  before(async () => {
    for (const wire of WIRES) servers.set(wire.name, await FakeLlmServer.start(wire.chatServer ? { chatServer: wire.chatServer } : {}));
  });
  after(async () => {
    await Promise.all([...servers.values()].map((server) => server.close()));
  });
  beforeEach(() => {
    for (const server of servers.values()) server.reset();
    base = realpathSync(mkdtempSync(join(tmpdir(), 'crow-matrix-')));
    home = join(base, 'home');
    root = join(base, 'ws');
    mkdirSync(join(home, 'config', 'crow-agent'), { recursive: true });
    mkdirSync(root);
    writeFileSync(join(root, 'pic.png'), tinyPng());
    const tables = WIRES.map((wire) => wire.table(servers.get(wire.name)!)).join('');
    writeFileSync(join(home, 'config', 'crow-agent', 'config.toml'), `thinking_budget = 2048\n${tables}`);
  });
  afterEach(() => rmSync(base, { recursive: true, force: true }));

  const crow = (args: string[]) => runCrow(['run', ...args, '--allow', 'all', '--no-undo'], isolatedEnv(home, { KEY: 'k' }), root);

  for (const from of WIRES) {
    for (const to of WIRES) {
      if (from === to) continue;
      it(`begun on ${from.name}, continued on ${to.name}`, async () => {
        const first = servers.get(from.name)!;
        const second = servers.get(to.name)!;
        first.enqueue(from.api, ...BEGUN);
        const begun = await crow(['--provider', from.name, 'What is in pic.png? Write it to seen.txt.']);
        assert.equal(begun.code, 0, begun.stderr);
        assert.equal(readFileSync(join(root, 'seen.txt'), 'utf8'), 'a 4x4 picture\n');

        second.enqueue(to.api, ...CONTINUED);
        const continued = await crow(['--continue', '--provider', to.name, 'Add more.txt too.']);
        assert.equal(continued.code, 0, continued.stderr);
        assert.equal(readFileSync(join(root, 'more.txt'), 'utf8'), 'more\n');
        assert.deepEqual([...first.takeRefusals(), ...second.takeRefusals()], []);
        const sent = JSON.stringify(second.requestsFor(to.api)[0]!.body);
        assert.match(sent, /seen\.txt/, 'the history went over to the other provider');
      });
    }
  }
});
