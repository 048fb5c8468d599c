/**
 * MCP sampling through the built binary: a server's sampling/createMessage
 * is shown to the person with the model it will use, runs on the session's
 * model only once approved (its maxTokens capped), is counted in the
 * prompt's budget and is a span with its model call below it; denied, or
 * refused where nobody can approve, the server gets the spec's error.
 */
import assert from 'node:assert/strict';
import { CROW, runCrow } from '../support/crow-binary';
import { acpxExec, askHarness, call, say } from '../support/mcp-ask-harness';
import { HAVE_TMUX, Terminal } from '../support/terminal';

const sample = (params: unknown) => call('mcp__ask__sample', { params: JSON.stringify(params) });
const SUMMARISE = {
  systemPrompt: 'You summarise.\u001b[2J',
  maxTokens: 100_000,
  messages: [{ role: 'user', content: { type: 'text', text: 'Summarise the release notes.' } }],
};

describe('MCP sampling through crow', function () {
  this.timeout(60_000);
  const h = askHarness();
  const requests = () => h.llm.requestsFor('anthropic').map((request) => request.body);
  const run = (...args: string[]): Terminal => {
    h.terminal = Terminal.start([process.execPath, CROW, 'run', '--no-undo', '--allow', 'execute', ...args], { cwd: h.workspace, env: h.env() });
    return h.terminal;
  };

  describe('crow run', () => {
    beforeEach(() => h.configure());

    (HAVE_TMUX ? it : it.skip)('shows the request with the model it will use, runs it once approved, capped, and the server gets the answer', async () => {
      h.llm.enqueue('anthropic', sample(SUMMARISE), say('Three fixes.'), say('Summarised.'));
      const terminal = run('Summarise');
      const asked = await terminal.waitFor(/\[y\] yes · \[n\] no/);
      assert.match(asked, /\? MCP server "ask" asks for your approval: run a model request on anthropic \S+, at most 4096 output tokens/);
      assert.match(asked, /System: You summarise\.\\u001b\[2J\n\s+User: Summarise the release notes\./, 'the request is shown, its escapes as text');
      terminal.typeLine('y');
      assert.equal(await terminal.waitForExit(), 0, terminal.screen());
      const [, sampled, after] = requests();
      assert.equal(sampled.max_tokens, 4096, 'maxTokens capped');
      assert.match(JSON.stringify(sampled.system), /You summarise\./);
      assert.deepEqual(sampled.tools ?? [], [], 'the server\'s request runs without tools');
      assert.match(JSON.stringify(after.messages.at(-1)), /sampled: \{\\"model\\":\\"claude-[^"\\]+\\",\\"stopReason\\":\\"endTurn\\",\\"role\\":\\"assistant\\",\\"content\\":\{\\"type\\":\\"text\\",\\"text\\":\\"Three fixes\.\\"\}\}/);
      const spans = h.spans();
      const span = spans.findLast((s) => s.name === 'sampling ask');
      assert.equal(span?.status, 'ok');
      assert.equal(span.parentSpanId, spans.find((s) => s.name === 'execute_tool mcp__ask__sample')?.spanId, 'below the tool call that asked');
      assert.ok(spans.some((s) => s.kind === 'llm_call' && s.parentSpanId === span.spanId), 'its model call is a span below it');
    });

    (HAVE_TMUX ? it : it.skip)('counts its tokens in the prompt\'s budget', async () => {
      h.llm.enqueue('anthropic', sample(SUMMARISE), { ...say('Three fixes.'), usage: { input: 6_000, output: 10 } }, say('Never asked.'));
      const terminal = run('--max-tokens', '5000', 'Summarise');
      await terminal.waitFor(/\[y\] yes · \[n\] no/);
      terminal.typeLine('y');
      await terminal.waitForExit();
      assert.match(terminal.screen(), /Stopped: this prompt used [\d,]+ tokens, reaching its limit of 5,000/);
      assert.equal(requests().length, 2, 'the agents stopped at the limit the sampling reached');
    });

    (HAVE_TMUX ? it : it.skip)('denied, nothing runs and the server gets the spec\'s "user rejected" error', async () => {
      h.llm.enqueue('anthropic', sample(SUMMARISE), say('Denied.'));
      const terminal = run('Summarise');
      await terminal.waitFor(/\[y\] yes · \[n\] no/);
      terminal.typeLine('n');
      assert.equal(await terminal.waitForExit(), 0, terminal.screen());
      assert.equal(requests().length, 2, 'no model request ran for the server');
      assert.match(h.toModel(1), /refused: MCP error -1: Crow refused the model request: the person denied it\./);
    });

    it('refuses on a pipe, and says which server asked and why', async () => {
      h.llm.enqueue('anthropic', sample(SUMMARISE), say('Refused.'));
      const result = await runCrow(['run', '--no-undo', '--allow', 'execute', 'Summarise'], h.env(), h.workspace);
      assert.equal(result.code, 0, result.stderr);
      assert.match(result.stderr, /MCP server "ask" asked to run a model request; Crow refused: crow run is not on a terminal/);
      assert.match(h.toModel(1), /refused: MCP error -1: Crow refused the model request/);
    });

    it('refuses a request it will not run (one offering the model tools) with the reason', async () => {
      const withTools = { ...SUMMARISE, tools: [{ name: 'x', inputSchema: { type: 'object' } }] };
      h.llm.enqueue('anthropic', sample(withTools), say('Refused.'));
      const result = await runCrow(['run', '--no-undo', '--allow', 'execute', 'Summarise'], h.env(), h.workspace);
      assert.equal(result.code, 0, result.stderr);
      assert.match(h.toModel(1), /refused: MCP error -32602: MCP server \\"ask\\" asked for a model request Crow will not run: it offers the model tools/);
    });
  });

  describe('crow acp', () => {
    it('runs server-everything\'s sampling request once the client approves, naming server and model', async () => {
      h.llm.enqueue('anthropic', call('mcp__everything__trigger-sampling-request', { prompt: 'Say hi', maxTokens: 50 }), say('Hi there.'), say('Done.'));
      const { client, sessionId, close } = await h.acpSession({ everything: true, capabilities: {} });
      try {
        await client.prompt(sessionId, 'Sample');
        const approval = client.permissionRequests.find((request) => /sampling/.test(request.toolCall.toolCallId));
        assert.match(approval?.toolCall.title ?? '', /^MCP server "everything": run a model request on anthropic \S+, at most 50 output tokens$/);
        assert.match(JSON.stringify(approval?.toolCall.content), /System: You are a helpful test server\.\\nUser: Resource trigger-sampling-request context: Say hi/);
        assert.equal(requests()[1]!.max_tokens, 50);
        assert.match(h.toModel(2), /LLM sampling result:.*Hi there\./);
      } finally {
        await close();
      }
    });
  });

  describe('acpx, a client we did not write', () => {
    it('approves through its permission request (--approve-all), and the request runs on the session\'s model', async function () {
      h.llm.enqueue('anthropic', sample(SUMMARISE), say('Three fixes.'), say('Summarised.'));
      const run = await acpxExec(h, 'Summarise');
      if (!run) return this.skip();
      assert.equal(run.code, 0, run.stdout.slice(-2000));
      assert.match(run.stdout, /"session\/request_permission".*"title":"MCP server \\"ask\\": run a model request on anthropic [^"]+, at most 4096 output tokens"/);
      assert.equal(requests()[1]!.max_tokens, 4096);
      assert.match(h.toModel(2), /sampled: .*Three fixes\./);
    });
  });
});
