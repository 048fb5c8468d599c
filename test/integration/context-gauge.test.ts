/**
 * The context gauge cross-checks the server's count of each prompt against
 * Crow's own estimate of the request it sent, through the real binary
 * against the strict fake: a server that reports far fewer tokens than it
 * was sent (a proxy reporting 10, an Ollama counting only what it had not
 * cached) is not believed, the person is told once, and the conversation is
 * still compacted in time; a server that counts its prompt cache apart
 * (Anthropic) or within (OpenAI) is believed.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chatPromptTokens } from '../../testkit/chat-servers';
import { FakeLlmServer, type FakeServerOptions, type ScriptedReply, type ScriptedUsage } from '../../testkit/fake-llm-server';
import { runCrow, startAcp } from '../support/crow-binary';
import { isolatedEnv } from '../support/isolated-env';
import { ANTHROPIC_WIRE, fakeTokens, localWire, OPENAI_WIRE, type Wire } from '../support/wires';

const NOTICE = /The server reports ([\d,]+) input tokens for a request of about ([\d,]+); Crow uses its own count so the conversation is compacted in time\./g;
const call = (name: string, args: unknown, usage?: ScriptedUsage): ScriptedReply => ({ blocks: [{ type: 'tool_call', name, arguments: args }], ...(usage ? { usage } : {}) });
const say = (text: string, usage?: ScriptedUsage): ScriptedReply => ({ blocks: [{ type: 'text', text }], ...(usage ? { usage } : {}) });
const count = (text: string): number => Number(text.replace(/,/g, ''));

describe('the context gauge against a server that misreports what it read', function () {
  this.timeout(120_000);
  let home: string;
  let workspace: string;
  let server: FakeLlmServer | undefined;

  beforeEach(() => {
    home = mkdtempSync(join(tmpdir(), 'crow-gauge-home-'));
    workspace = mkdtempSync(join(tmpdir(), 'crow-gauge-ws-'));
    writeFileSync(join(workspace, 'notes.txt'), 'A line of notes about the project.\n'.repeat(120));
  });
  afterEach(async () => {
    await server?.close();
    server = undefined;
    rmSync(home, { recursive: true, force: true });
    rmSync(workspace, { recursive: true, force: true });
  });

  async function start(wire: Wire, options: FakeServerOptions, window: number): Promise<FakeLlmServer> {
    server = await FakeLlmServer.start({ ...(wire.chatServer ? { chatServer: wire.chatServer } : {}), ...options });
    configure(wire, server, window);
    return server;
  }
  /** Tells Crow its model's context window is `window` tokens. */
  function configure(wire: Wire, fake: FakeLlmServer, window: number): void {
    mkdirSync(join(home, 'config', 'crow-agent'), { recursive: true });
    writeFileSync(join(home, 'config', 'crow-agent', 'config.toml'), wire.config(fake, window));
  }
  const crow = (wire: Wire, fake: FakeLlmServer, prompt: string, more: string[] = []) =>
    runCrow(['run', prompt, '--no-undo', ...more], isolatedEnv(home, wire.env(fake)), workspace);
  /** The used tokens of the last context line: `◔ builder's context: N of W tokens`. */
  const gauge = (stderr: string): number => count([...stderr.matchAll(/context: ([\d,]+) of [\d,]+ tokens/g)].at(-1)![1]!);

  for (const wire of [ANTHROPIC_WIRE, OPENAI_WIRE]) {
    it(`on the ${wire.name} wire, a server reporting 10 input tokens is not believed: the gauge shows Crow's count, says why once, and the window fills`, async () => {
      const fake = await start(wire, {}, 100_000);
      fake.enqueue(wire.api, call('read_file', { path: 'notes.txt' }, { input: 10 }), say('The notes describe the project.', { input: 10 }));
      const first = await crow(wire, fake, 'Read notes.txt and say what it holds.');
      assert.equal(first.code, 0, first.stderr);
      const told = [...first.stderr.matchAll(NOTICE)];
      assert.equal(told.length, 1, `said once for the two calls of the prompt:\n${first.stderr}`);
      assert.equal(told[0]![1], '10');
      const sent = fakeTokens(wire, fake.requestsFor(wire.api)[1]!.body);
      const estimate = count(told[0]![2]!);
      assert.ok(estimate > sent / 2 && estimate < sent * 2, `about the size of the request (${estimate} for the fake's ${sent})`);
      assert.ok(gauge(first.stderr) > sent / 2, `the gauge reads Crow's count, not 10: ${first.stderr}`);
      assert.match(first.stderr, /20 in · /, 'the usage line keeps what the server reported (what it bills)');

      // Told a window the conversation nearly fills, Crow compacts before its next call, as its own count says.
      configure(wire, fake, Math.round(sent * 1.1));
      fake.enqueue(wire.api, say('Summary: notes.txt was read; it describes the project.', { input: 10 }), say('Still the project.', { input: 10 }));
      const second = await crow(wire, fake, `And now? ${'context '.repeat(300)}`, ['--continue']);
      assert.equal(second.code, 0, second.stderr);
      assert.match(second.stderr, /compacted to fit the context window/);
      assert.doesNotMatch(JSON.stringify(fake.requestsFor(wire.api).at(-1)!.body.messages), /A line of notes about the project/);
    });
  }

  it('believes a server that counts its prompt cache apart (Anthropic) or within (OpenAI): no notice, the gauge is its count', async () => {
    const anthropic = await start(ANTHROPIC_WIRE, { promptCache: true }, 100_000);
    anthropic.enqueue('anthropic', call('read_file', { path: 'notes.txt' }), say('The notes describe the project.'));
    const cached = await crow(ANTHROPIC_WIRE, anthropic, 'Read notes.txt and say what it holds.');
    assert.equal(cached.code, 0, cached.stderr);
    assert.doesNotMatch(cached.stderr, NOTICE);
    assert.match(cached.stderr, /[\d,]+ cache read/, `the second call read its prefix from the cache:\n${cached.stderr}`);
    const read = fakeTokens(ANTHROPIC_WIRE, anthropic.requestsFor('anthropic')[1]!.body);
    assert.ok(Math.abs(gauge(cached.stderr) - read) < read * 0.05, `input, cache reads and writes together: ${gauge(cached.stderr)} for ${read}`);
    await anthropic.close();

    // OpenAI's prompt_tokens holds the cached tokens; the server read all but 100 from its cache.
    const openai = await start(OPENAI_WIRE, {}, 100_000);
    openai.respondWith('openai', (body) => {
      const usage = { input: 100, cacheRead: chatPromptTokens(body) - 100 };
      return (body.messages as { role: string }[]).at(-1)!.role === 'tool' ? { ...say('The notes describe the project.'), usage } : { ...call('read_file', { path: 'notes.txt' }), usage };
    });
    const within = await crow(OPENAI_WIRE, openai, 'Read notes.txt and say what it holds.');
    assert.equal(within.code, 0, within.stderr);
    assert.doesNotMatch(within.stderr, NOTICE);
    const prompt = chatPromptTokens(openai.requestsFor('openai')[1]!.body);
    assert.ok(Math.abs(gauge(within.stderr) - prompt) < prompt * 0.05, `prompt_tokens whole: ${gauge(within.stderr)} for ${prompt}`);
  });

  it('goes on with an Ollama that counts only what it had not cached: every prompt answered, the conversation compacted as it fills', async () => {
    const wire = localWire('ollama');
    const fake = await start(wire, { contextWindow: 1_000_000, promptCount: 'uncached' }, 9_000);
    fake.respondWith('openai', (body) => {
      if (/this session is being compacted/.test(JSON.stringify(body.messages))) return say('Summary: notes.txt was read again and again.');
      return (body.messages as { role: string }[]).at(-1)!.role === 'tool' ? say('It describes the project.') : call('read_file', { path: 'notes.txt' });
    });
    const runs = [];
    for (let n = 0; n < 5; n++) {
      const run = await crow(wire, fake, `Read notes.txt once more (${n}).`, n > 0 ? ['--continue'] : []);
      assert.equal(run.code, 0, `prompt ${n}: ${run.stderr}`);
      assert.equal(run.stdout.trim(), 'It describes the project.');
      runs.push(run.stderr);
    }
    // The server counted its first call whole, then only what followed what it kept: each run says so once.
    assert.deepEqual(runs.map((stderr) => [...stderr.matchAll(NOTICE)].length), [1, 1, 1, 1, 1]);
    assert.doesNotMatch(runs.join('\n'), /dropped the start of the conversation/);
    assert.match(runs.join('\n'), /compacted to fit the context window/);
    assert.ok(runs.slice(1).every((stderr) => gauge(stderr) > 4_000), `the gauge goes by Crow's count: ${runs.map(gauge).join(', ')}`);
    assert.deepEqual(fake.takeRefusals(), []);
  });

  it('over ACP, usage_update carries Crow\'s count and the notice is shown', async () => {
    const wire = ANTHROPIC_WIRE;
    const fake = await start(wire, {}, 50_000);
    fake.enqueue(wire.api, say('Hello.', { input: 10 }));
    const acp = startAcp(workspace, home, wire.env(fake));
    try {
      await acp.client.initialize();
      const { sessionId } = await acp.client.newSession(workspace);
      assert.equal((await acp.client.prompt(sessionId, 'Hi')).stopReason, 'end_turn');
      const [usage] = acp.client.updates(sessionId, 'usage_update');
      const sent = fakeTokens(wire, fake.requestsFor(wire.api)[0]!.body);
      assert.ok(usage!.used > sent / 2, `used ${usage!.used}, for a request the fake counts at ${sent}`);
      assert.equal(usage!.size, 50_000);
      assert.match(JSON.stringify(acp.client.notifications), /The server reports 10 input tokens for a request of about/);
    } finally {
      assert.equal(await acp.stop(), 0, acp.stderr());
    }
  });
});
