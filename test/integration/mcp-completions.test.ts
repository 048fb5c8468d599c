/**
 * completion/complete: what a server suggests for a prompt's arguments,
 * asked only of a server that declares completions, capped and made safe
 * to show; `crow run` on a terminal asks for a missing argument offering
 * them, and off a terminal names the argument and the first suggestions.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { completionsOf, MAX_COMPLETION_CHARS, MAX_COMPLETION_VALUES } from '../../src/mcp/mcp-completions';
import { McpServers } from '../../src/mcp/mcp-servers';
import type { McpServerConfig } from '../../src/mcp/server-config';
import { FakeLlmServer } from '../../testkit/fake-llm-server';
import { CROW, runCrow } from '../support/crow-binary';
import { isolatedEnv } from '../support/isolated-env';
import { ASK_FIXTURE_ARGS, say } from '../support/mcp-ask-harness';
import { TSX_FIXTURE } from '../support/mcp-fixture';
import { HAVE_TMUX, Terminal } from '../support/terminal';
import { trustFolder } from '../support/trust';

const server = (name: string, args: string[], env: Record<string, string> = {}): McpServerConfig => ({
  name,
  transport: { type: 'stdio', command: process.execPath, args, env },
  permission: 'execute',
  source: 'config.toml',
});

describe('MCP completions (completion/complete)', function () {
  this.timeout(60_000);
  let scratch: string;
  let log: string;

  beforeEach(() => {
    scratch = realpathSync(mkdtempSync(join(tmpdir(), 'crow-mcp-complete-')));
    log = join(scratch, 'fixture.log');
  });
  afterEach(() => rmSync(scratch, { recursive: true, force: true }));

  it("asks a server that declares completions, with the earlier arguments, and shows its values safely; asks none of a server without", async () => {
    const spans: { name: string; attributes: Record<string, unknown> }[] = [];
    const span = (name: string, attributes: Record<string, unknown>) => ({
      set: (more: Record<string, unknown>) => Object.assign(attributes, more),
      end: () => void spans.push({ name, attributes }),
    });
    const servers = new McpServers([server('fx', TSX_FIXTURE, { MCP_FIXTURE_LOG: log }), server('ask', ASK_FIXTURE_ARGS)], {
      cwd: scratch,
      report: (problem) => assert.fail(problem.message),
      span: span as never,
    });
    try {
      const review = { type: 'ref/prompt' as const, name: 'review' };
      assert.deepEqual(await servers.complete('fx', { ref: review, argument: 'language', value: 'p' }), { values: ['python', 'perl', 'php'], total: 3, hasMore: false });
      assert.deepEqual((await servers.complete('fx', { ref: review, argument: 'language', value: 'r' })).values, ['rust\\u001b[2J'], 'the escape is shown as text');
      assert.deepEqual((await servers.complete('fx', { ref: review, argument: 'style', value: '', arguments: { language: 'python' } })).values, ['pep8', 'black']);
      assert.deepEqual((await servers.complete('fx', { ref: review, argument: 'style', value: '' })).values, ['plain']);
      assert.match(readFileSync(log, 'utf8'), /complete language "p"/);
      assert.deepEqual(await servers.complete('ask', { ref: review, argument: 'language', value: 'p' }), { values: [], hasMore: false });
      assert.deepEqual(await servers.complete('nobody', { ref: review, argument: 'language', value: '' }), { values: [], hasMore: false });
      const first = spans.find((recorded) => recorded.name === 'mcp completion/complete fx')!;
      assert.deepEqual(first.attributes, { 'crow.mcp.server': 'fx', 'crow.mcp.ref': 'review', 'crow.mcp.argument': 'language', 'crow.mcp.values': 3, 'crow.mcp.has_more': false });
    } finally {
      await servers.close();
    }
  });

  it("caps a server's answer at the specification's 100 values, clips each, and drops what is not text", () => {
    const flood = completionsOf({ values: [...Array.from({ length: 150 }, (_, i) => `v${i}`), 7, null, 'v1', 'x'.repeat(10_000)], total: -3 });
    assert.equal(flood.values.length, MAX_COMPLETION_VALUES);
    assert.equal(flood.hasMore, true);
    assert.equal(flood.total, undefined, 'a total that is no count is dropped');
    assert.ok(flood.values.every((value) => value.length <= MAX_COMPLETION_CHARS));
    const clipped = completionsOf({ values: ['y'.repeat(10_000), 'a\nb\u202e'] });
    assert.equal(clipped.values[0]!.length, MAX_COMPLETION_CHARS);
    assert.equal(clipped.values[1], 'a\\nb\\u202e');
    assert.deepEqual(completionsOf({ values: ['a'], total: 40 }), { values: ['a'], total: 40, hasMore: true });
  });

  describe('crow run', () => {
    let llm: FakeLlmServer;
    let home: string;
    before(async () => (llm = await FakeLlmServer.start()));
    after(() => llm.close());
    let terminal: Terminal | undefined;
    beforeEach(() => {
      llm.reset();
      home = realpathSync(mkdtempSync(join(tmpdir(), 'crow-mcp-complete-home-')));
      mkdirSync(join(scratch, '.crow'));
      writeFileSync(join(scratch, '.crow/config.toml'), `[mcp_servers.fx]\ncommand = ${JSON.stringify(process.execPath)}\nargs = ${JSON.stringify(TSX_FIXTURE)}\n`);
      trustFolder(scratch, env());
    });
    afterEach(() => {
      terminal?.close();
      terminal = undefined;
      rmSync(home, { recursive: true, force: true });
    });
    const env = (): NodeJS.ProcessEnv => isolatedEnv(home, { ANTHROPIC_API_KEY: 'k', ANTHROPIC_BASE_URL: llm.anthropicBaseUrl, LANG: 'C.UTF-8' });

    (HAVE_TMUX ? it : it.skip)('asks on a terminal for each missing argument, offering the completions narrowed by the earlier ones', async () => {
      llm.enqueue('anthropic', say('Reviewed.'));
      terminal = Terminal.start([process.execPath, CROW, 'run', '--no-undo', '/mcp__fx__review'], { cwd: scratch, env: env() });
      const language = await terminal.waitFor(/\(a number, or type the language; empty to cancel\)/);
      assert.match(language, /\? \/mcp__fx__review needs language \(the language to review\)\n\s+MCP server "fx" suggests:\n\s+1\) python\n\s+2\) perl\n\s+3\) php\n\s+4\) rust\\u001b\[2J\n\s+5\) typescript/);
      terminal.typeLine('1');
      const style = await terminal.waitFor(/needs style/);
      assert.match(style, /1\) pep8\n\s+2\) black/, 'the server narrowed the styles by the language given');
      terminal.typeLine('black');
      assert.equal(await terminal.waitForExit(), 0, terminal.screen());
      assert.match(JSON.stringify(llm.requestsFor('anthropic')[0]!.body.messages.at(-1)), /Review the python code in black style\./);
    });

    it('off a terminal names the missing argument and the first suggestions, and sends nothing', async () => {
      const result = await runCrow(['run', '--no-undo', '/mcp__fx__review'], env(), scratch);
      assert.notEqual(result.code, 0);
      assert.match(result.stderr, /\/mcp__fx__review: missing language \(the server suggests: python, perl, php, rust\\u001b\[2J, typescript\); it takes language=… \(required\) style=… \(required\)/);
      assert.ok(!result.stderr.includes('\u001b[2J'));
      assert.equal(llm.requestsFor('anthropic').length, 0);
    });
  });
});
