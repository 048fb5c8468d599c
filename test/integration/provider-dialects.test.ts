/**
 * The dialects people's servers really speak, through the real binary's
 * two doors, each against a fake that refuses what the real server refuses:
 * Anthropic-compatible servers that leave usage out, DeepSeek's thinking
 * mode, servers that give two calls one id or ids in their own shapes, a
 * thinking budget past the model's output cap, a gateway's HTML error page,
 * a deprecated model, and a model failure in `crow acp`.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FakeLlmServer, type FakeServerOptions, type ScriptedReply } from '../../testkit/fake-llm-server';
import type { AnthropicUsageReport } from '../../testkit/fake-anthropic-wire';
import { runCrow, startAcp } from '../support/crow-binary';
import { isolatedEnv } from '../support/isolated-env';

const write = (path: string, content: string, id?: string): ScriptedReply => ({
  blocks: [{ type: 'tool_call', ...(id !== undefined ? { id } : {}), name: 'write_file', arguments: { path, content } }],
});
const say = (text: string): ScriptedReply => ({ blocks: [{ type: 'text', text }] });

describe('provider dialects, through the binary', function () {
  this.timeout(60_000);
  let base: string;
  let home: string;
  let root: string;
  const servers: FakeLlmServer[] = [];

  beforeEach(() => {
    base = realpathSync(mkdtempSync(join(tmpdir(), 'crow-dialects-')));
    home = join(base, 'home');
    root = join(base, 'ws');
    mkdirSync(join(home, 'config', 'crow-agent'), { recursive: true });
    mkdirSync(root);
  });
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((server) => server.close()));
    rmSync(base, { recursive: true, force: true });
  });

  async function server(options: FakeServerOptions = {}): Promise<FakeLlmServer> {
    const started = await FakeLlmServer.start(options);
    servers.push(started);
    return started;
  }
  const config = (toml: string): void => writeFileSync(join(home, 'config', 'crow-agent', 'config.toml'), toml);
  const anthropicEnv = (llm: FakeLlmServer): Record<string, string> => ({ ANTHROPIC_API_KEY: 'k', ANTHROPIC_BASE_URL: llm.anthropicBaseUrl });
  const crow = (args: string[], env: Record<string, string>) => runCrow(['run', ...args, '--allow', 'all', '--no-undo'], isolatedEnv(home, env), root);

  for (const report of ['no-delta-usage', 'none', 'input-in-delta'] as AnthropicUsageReport[]) {
    it(`an Anthropic-compatible server whose stream reports usage as "${report}": the run completes`, async () => {
      const llm = await server({ anthropicUsage: report });
      llm.enqueue('anthropic', write('notes.txt', 'kept\n'), say('Wrote notes.txt.'));
      const run = await crow(['Write notes.txt'], anthropicEnv(llm));
      assert.equal(run.code, 0, run.stderr);
      assert.doesNotMatch(run.stderr, /Cannot read properties/);
      assert.equal(readFileSync(join(root, 'notes.txt'), 'utf8'), 'kept\n');
      assert.match(run.stdout, /Wrote notes\.txt\./);
      assert.deepEqual(llm.takeRefusals(), []);
    });
  }

  it('an Anthropic-compatible server without usage, in crow acp: the prompt ends as a turn, not a failure', async () => {
    const llm = await server({ anthropicUsage: 'none' });
    llm.enqueue('anthropic', write('acp.txt', 'kept\n'), say('Done.'));
    const agent = startAcp(root, home, anthropicEnv(llm), { permission: () => 'allow_always' });
    try {
      await agent.client.initialize();
      const { sessionId } = await agent.client.newSession(root);
      assert.equal((await agent.client.prompt(sessionId, 'Write acp.txt')).stopReason, 'end_turn');
      assert.equal(readFileSync(join(root, 'acp.txt'), 'utf8'), 'kept\n');
    } finally {
      assert.equal(await agent.stop(), 0, agent.stderr());
    }
    assert.deepEqual(llm.takeRefusals(), []);
  });

  it('DeepSeek in thinking mode: each tool turn sends its reasoning_content back, and --continue works', async () => {
    const llm = await server({ chatServer: 'deepseek' });
    config(
      'provider = "deepseek"\nmodel = "deepseek-v4-pro"\n[providers.deepseek]\ntype = "openai"\nflavor = "deepseek"\n' +
        `base_url = "${llm.openaiBaseUrl}"\napi_key_env = "DEEPSEEK_API_KEY"\n`,
    );
    const env = { DEEPSEEK_API_KEY: 'k' };
    llm.enqueue(
      'openai',
      { blocks: [{ type: 'thinking', text: 'A file, then.' }, { type: 'tool_call', name: 'write_file', arguments: { path: 'a.txt', content: 'a\n' } }] },
      // A tool turn without reasoning: the field must still go back (empty).
      write('b.txt', 'b\n'),
      say('Both written.'),
    );
    const first = await crow(['Write a.txt and b.txt'], env);
    assert.equal(first.code, 0, first.stderr);
    llm.enqueue('openai', write('c.txt', 'c\n'), say('And c.'));
    const second = await crow(['--continue', 'Now c.txt'], env);
    assert.equal(second.code, 0, second.stderr);

    assert.deepEqual(llm.takeRefusals(), []);
    const last = llm.requestsFor('openai').at(-1)!.body;
    const echoed = last.messages.filter((message: any) => message.role === 'assistant' && message.tool_calls).map((message: any) => message.reasoning_content);
    assert.deepEqual(echoed, ['A file, then.', '', '']);
    assert.equal(readFileSync(join(root, 'c.txt'), 'utf8'), 'c\n');
  });

  it("Gemini's OpenAI-compatible endpoint: each signed call goes back with its thought signature, and its list-shaped errors are read", async () => {
    const llm = await server({ chatServer: 'gemini' });
    config(
      'provider = "gemini"\nmodel = "gemini-3-pro-preview"\n[providers.gemini]\ntype = "openai"\nflavor = "gemini"\n' +
        `base_url = "${llm.openaiBaseUrl}"\napi_key_env = "GEMINI_API_KEY"\n`,
    );
    const env = { GEMINI_API_KEY: 'k' };
    llm.enqueue('openai', write('g.txt', 'g\n'), write('h.txt', 'h\n'), say('Both.'));
    const first = await crow(['Write g.txt and h.txt'], env);
    assert.equal(first.code, 0, first.stderr);
    assert.deepEqual(llm.takeRefusals(), []);
    const calls = llm.requestsFor('openai').at(-1)!.body.messages.flatMap((message: any) => message.tool_calls ?? []);
    assert.equal(calls.length, 2);
    assert.ok(calls.every((call: any) => /^gts-/.test(call.extra_content?.google?.thought_signature)), JSON.stringify(calls));

    llm.enqueue('openai', { kind: 'http_error', status: 400, message: 'API key not valid. Please pass a valid API key.' });
    const refused = await crow(['--continue', 'Again'], env);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /HTTP 400: API key not valid\. Please pass a valid API key/);
    llm.takeRefusals();
  });

  it('two calls with one id both run, both results reach the model, and the session continues on Anthropic', async () => {
    const openai = await server();
    const env = { OPENAI_API_KEY: 'k', OPENAI_BASE_URL: openai.openaiBaseUrl };
    config('provider = "openai"\n[providers.openai]\nflavor = "openai"\n');
    openai.enqueue(
      'openai',
      {
        blocks: [
          { type: 'tool_call', id: 'call_dup', name: 'write_file', arguments: { path: 'one.txt', content: '1\n' } },
          { type: 'tool_call', id: 'call_dup', name: 'write_file', arguments: { path: 'two.txt', content: '2\n' } },
        ],
      },
      say('Wrote both.'),
    );
    const first = await crow(['Write one.txt and two.txt'], env);
    assert.equal(first.code, 0, first.stderr);
    assert.equal(readFileSync(join(root, 'two.txt'), 'utf8'), '2\n');
    const answered = openai.requestsFor('openai')[1]!.body.messages.filter((message: any) => message.role === 'tool');
    assert.equal(answered.length, 2, 'both results are sent');
    assert.equal(new Set(answered.map((message: any) => message.tool_call_id)).size, 2, 'each with an id of its own');
    assert.match(answered.map((message: any) => message.content).join('\n'), /one\.txt[\s\S]*two\.txt/);

    const anthropic = await server();
    anthropic.enqueue('anthropic', say('Still here.'));
    const second = await crow(['--continue', '--provider', 'anthropic', 'Anything else?'], { ...env, ...anthropicEnv(anthropic) });
    assert.equal(second.code, 0, second.stderr);
    assert.deepEqual([...openai.takeRefusals(), ...anthropic.takeRefusals()], []);
  });

  it('a session begun where call ids look like functions.bash:0 continues on Anthropic', async () => {
    const local = await server({ chatServer: 'vllm' });
    config(`provider = "local"\nmodel = "kimi-k2"\n[providers.local]\ntype = "openai"\nflavor = "vllm"\nbase_url = "${local.openaiBaseUrl}"\n`);
    local.enqueue('openai', write('k.txt', 'k\n', 'functions.write_file:0'), say('Written.'));
    const first = await crow(['Write k.txt'], {});
    assert.equal(first.code, 0, first.stderr);

    const anthropic = await server();
    anthropic.enqueue('anthropic', say('Carrying on.'));
    const second = await crow(['--continue', '--provider', 'anthropic', '--model', 'claude-sonnet-4-6', 'Go on'], anthropicEnv(anthropic));
    assert.equal(second.code, 0, second.stderr);
    assert.deepEqual([...local.takeRefusals(), ...anthropic.takeRefusals()], []);
    const sent = JSON.stringify(anthropic.requestsFor('anthropic')[0]!.body.messages);
    assert.match(sent, /"id":"functions_write_file_0"/);
    assert.match(sent, /"tool_use_id":"functions_write_file_0"/);
  });

  it("thinking_budget = 60000 on a model whose output cap is 64,000: the request fits under the cap", async () => {
    const llm = await server();
    config('model = "claude-sonnet-4-6"\nthinking_budget = 60000\n');
    llm.enqueue('anthropic', { blocks: [{ type: 'thinking', text: 'Short.' }, { type: 'text', text: 'Fine.' }] });
    const run = await crow(['Think, then answer'], anthropicEnv(llm));
    assert.equal(run.code, 0, run.stderr);
    assert.deepEqual(llm.takeRefusals(), []);
    const body = llm.requestsFor('anthropic')[0]!.body;
    assert.ok(body.max_tokens <= 64_000, `max_tokens ${body.max_tokens}`);
    assert.ok(body.thinking.budget_tokens < body.max_tokens);
  });

  it('a gateway answering 502 with an HTML page: the retry notice is one line, not the page', async () => {
    const llm = await server();
    const page = `<html><head><title>502 Bad Gateway</title></head><body><center><h1>502 Bad Gateway</h1></center><hr><center>nginx</center>${'<!-- padding -->'.repeat(200)}</body></html>`;
    llm.enqueue('anthropic', { kind: 'http_error', status: 502, html: page }, say('Recovered.'));
    const run = await crow(['Hello'], anthropicEnv(llm));
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stderr, /502 Bad Gateway/);
    assert.doesNotMatch(run.stderr, /<html|<center|padding/);
    assert.match(run.stdout, /Recovered\./);
  });

  it("the SDK's warning about a deprecated model is shown once as Crow's notice, not printed by the SDK on every request", async () => {
    const llm = await server();
    config('model = "claude-sonnet-4-5"\n');
    llm.enqueue('anthropic', write('d.txt', 'd\n'), write('e.txt', 'e\n'), say('Done.'));
    const run = await crow(['Write d.txt and e.txt'], anthropicEnv(llm));
    assert.equal(run.code, 0, run.stderr);
    assert.equal(llm.requestsFor('anthropic').length, 3);
    assert.equal(run.stderr.match(/is deprecated and will reach end-of-life/g)?.length, 1, run.stderr);
  });

  /** Runs `prompts` one after another in one crow acp session (every permission allowed); what the client saw. */
  async function acpSession(env: Record<string, string>, prompts: string[], load?: string) {
    const agent = startAcp(root, home, env, { permission: () => 'allow_always' });
    try {
      await agent.client.initialize();
      const sessionId = load ?? (await agent.client.newSession(root)).sessionId;
      if (load) await agent.client.agent.request('session/load', { sessionId: load, cwd: root, mcpServers: [] });
      const stops: string[] = [];
      for (const prompt of prompts) stops.push((await agent.client.prompt(sessionId, prompt)).stopReason);
      return { stops, thought: agent.client.thought(sessionId), said: agent.client.said(sessionId), client: agent.client, sessionId };
    } finally {
      assert.equal(await agent.stop(), 0, agent.stderr());
    }
  }

  describe('the same cases through crow acp', () => {
    it('DeepSeek in thinking mode: two prompts with tool turns in one session', async () => {
      const llm = await server({ chatServer: 'deepseek' });
      config(`provider = "deepseek"\nmodel = "deepseek-v4-pro"\n[providers.deepseek]\ntype = "openai"\nflavor = "deepseek"\nbase_url = "${llm.openaiBaseUrl}"\napi_key_env = "DEEPSEEK_API_KEY"\n`);
      llm.enqueue(
        'openai',
        { blocks: [{ type: 'thinking', text: 'A file.' }, { type: 'tool_call', name: 'write_file', arguments: { path: 'a.txt', content: 'a\n' } }] },
        say('Written.'),
        write('b.txt', 'b\n'),
        say('And b.'),
      );
      const { stops } = await acpSession({ DEEPSEEK_API_KEY: 'k' }, ['Write a.txt', 'Now b.txt']);
      assert.deepEqual(stops, ['end_turn', 'end_turn']);
      assert.deepEqual(llm.takeRefusals(), []);
      assert.equal(readFileSync(join(root, 'b.txt'), 'utf8'), 'b\n');
    });

    it('two calls with one id: both run, each reported as a call of its own', async () => {
      const llm = await server();
      llm.enqueue(
        'anthropic',
        {
          blocks: [
            { type: 'tool_call', id: 'toolu_dup', name: 'write_file', arguments: { path: 'one.txt', content: '1\n' } },
            { type: 'tool_call', id: 'toolu_dup', name: 'write_file', arguments: { path: 'two.txt', content: '2\n' } },
          ],
        },
        say('Both.'),
      );
      const { stops, client, sessionId } = await acpSession(anthropicEnv(llm), ['Write one.txt and two.txt']);
      assert.deepEqual(stops, ['end_turn']);
      assert.deepEqual(llm.takeRefusals(), [], 'the history sent back holds each id once');
      assert.equal(readFileSync(join(root, 'two.txt'), 'utf8'), '2\n');
      assert.equal(new Set(client.updates(sessionId, 'tool_call').map((update) => update.toolCallId)).size, 2);
    });

    it('a session begun where ids look like functions.write_file:0, loaded into crow acp on Anthropic', async () => {
      const local = await server({ chatServer: 'vllm' });
      config(`provider = "local"\nmodel = "kimi-k2"\n[providers.local]\ntype = "openai"\nflavor = "vllm"\nbase_url = "${local.openaiBaseUrl}"\n`);
      local.enqueue('openai', write('k.txt', 'k\n', 'functions.write_file:0'), say('Written.'));
      const first = await crow(['--json', 'Write k.txt'], {});
      assert.equal(first.code, 0, first.stderr);
      const sessionId = String(JSON.parse(first.stdout.trim().split('\n').at(-1)!).sessionId ?? '');
      assert.ok(sessionId, first.stdout.slice(-500));

      const anthropic = await server();
      anthropic.enqueue('anthropic', say('Carrying on.'));
      const { stops } = await acpSession({ ...anthropicEnv(anthropic), CROW_PROVIDER: 'anthropic', CROW_MODEL: 'claude-sonnet-4-6' }, ['Go on'], sessionId);
      assert.deepEqual(stops, ['end_turn']);
      assert.deepEqual([...local.takeRefusals(), ...anthropic.takeRefusals()], []);
      assert.match(JSON.stringify(anthropic.requestsFor('anthropic')[0]!.body.messages), /"id":"functions_write_file_0"/);
    });

    it('thinking_budget = 60000 on a 64,000-token model: max_tokens fits', async () => {
      const llm = await server();
      config('model = "claude-sonnet-4-6"\nthinking_budget = 60000\n');
      llm.enqueue('anthropic', { blocks: [{ type: 'thinking', text: 'Short.' }, { type: 'text', text: 'Fine.' }] });
      const { stops } = await acpSession(anthropicEnv(llm), ['Think, then answer']);
      assert.deepEqual(stops, ['end_turn']);
      assert.deepEqual(llm.takeRefusals(), []);
      assert.ok(llm.requestsFor('anthropic')[0]!.body.max_tokens <= 64_000);
    });

    it('a 502 HTML page and a deprecated model: one line each, no markup, the warning once', async () => {
      const llm = await server();
      config('model = "claude-sonnet-4-5"\n');
      const page = '<html><head><title>502 Bad Gateway</title></head><body><h1>502 Bad Gateway</h1><hr>nginx</body></html>';
      llm.enqueue('anthropic', { kind: 'http_error', status: 502, html: page }, write('d.txt', 'd\n'), say('Done.'));
      const { stops, thought } = await acpSession(anthropicEnv(llm), ['Write d.txt']);
      assert.deepEqual(stops, ['end_turn']);
      assert.match(thought, /502 Bad Gateway/);
      assert.doesNotMatch(thought, /<html|<h1|<hr/);
      assert.equal(thought.match(/is deprecated and will reach end-of-life/g)?.length, 1, thought);
    });
  });

  it('a model failure in crow acp is a failed request, and the partial answer stays apart from the error', async () => {
    const llm = await server();
    llm.enqueue('anthropic', {
      blocks: [{ type: 'text', text: 'looking at the code' }],
      chunkSize: 8,
      fault: { kind: 'error_after', events: 4, status: 400, message: 'The model refused the request.' },
    });
    const agent = startAcp(root, home, anthropicEnv(llm));
    try {
      await agent.client.initialize();
      const { sessionId } = await agent.client.newSession(root);
      await assert.rejects(agent.client.prompt(sessionId, 'Look at the code'), (err: { code?: number; message?: string }) => {
        assert.equal(err.code, -32603);
        assert.match(String(err.message), /The model refused the request/);
        return true;
      });
      const said = agent.client
        .updates(sessionId, 'agent_message_chunk')
        .flatMap((update) => (update.content.type === 'text' ? [update.content.text] : []))
        .join('');
      assert.match(said, /^looking/);
      assert.doesNotMatch(said, /stopped on an error|refused the request/);

      // The session goes on after the failed request.
      llm.enqueue('anthropic', say('Back.'));
      assert.equal((await agent.client.prompt(sessionId, 'Again')).stopReason, 'end_turn');
    } finally {
      assert.equal(await agent.stop(), 0, agent.stderr());
    }
  });
});
