/**
 * The built-in agents and slash commands as the build parsed them, and the
 * built-in tools' JSON Schemas as it derived them
 * (dist/builtin-definitions.json), through the real binary in a copy of the
 * package: every built-in agent shows, a built-in command expands, and the
 * model is offered the same tools and told the same about bad arguments,
 * exactly as when everything is derived at start; a built-in file changed
 * after the build is read as it is now, not as the build saw it.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { FakeLlmServer } from '../../testkit/fake-llm-server';
import { isolatedEnv } from '../support/isolated-env';

const PACKAGE = resolve(__dirname, '../..');

describe('built-in agents and commands parsed at build time', function () {
  this.timeout(90_000);
  let base: string;
  let llm: FakeLlmServer;

  before(async () => (llm = await FakeLlmServer.start()));
  after(() => llm.close());

  beforeEach(() => (base = mkdtempSync(join(tmpdir(), 'crow-builtin-'))));
  afterEach(() => rmSync(base, { recursive: true, force: true }));

  /** A copy of the built package (bundles, agents, prompts, commands) at `name`, with or without the snapshot. */
  function packageCopy(name: string, snapshot: boolean): string {
    const root = join(base, name);
    mkdirSync(join(root, 'dist'), { recursive: true });
    for (const file of readdirSync(join(PACKAGE, 'dist'))) {
      if (file.endsWith('.js') || (snapshot && file === 'builtin-definitions.json')) cpSync(join(PACKAGE, 'dist', file), join(root, 'dist', file));
    }
    for (const folder of ['agents', 'prompts', 'commands']) cpSync(join(PACKAGE, folder), join(root, folder), { recursive: true });
    cpSync(join(PACKAGE, 'package.json'), join(root, 'package.json'));
    symlinkSync(join(PACKAGE, 'node_modules'), join(root, 'node_modules'));
    return root;
  }

  /** That copy's crow binary. */
  const crow = async (root: string, ...args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> => {
    const env = isolatedEnv(join(base, 'home'), { ANTHROPIC_API_KEY: 'builtin-key', ANTHROPIC_BASE_URL: llm.anthropicBaseUrl });
    const run = spawn(process.execPath, [join(root, 'dist', 'crow.js'), ...args], { cwd: base, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    run.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    run.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise<number | null>((done) => run.on('close', done));
    return { code, stdout, stderr };
  };
  /** What the model is sent for `/explain the store` in that copy (the command picks its agent and expands its template), tools included. */
  const explained = async (root: string): Promise<string> => {
    llm.enqueue('anthropic', { blocks: [{ type: 'text', text: 'Explained.' }] });
    const run = await crow(root, 'run', '/explain the store', '--no-undo', '--provider', 'anthropic', '--model', 'claude-test');
    assert.equal(run.code, 0, run.stderr);
    const request = llm.requestsFor('anthropic').at(-1)!.body;
    return JSON.stringify({ system: request.system, messages: request.messages, tools: request.tools }).split(root).join('<package>');
  };
  const agentsOf = (root: string): string[] =>
    readdirSync(join(root, 'agents', 'base')).concat(readdirSync(join(root, 'agents', 'acp'))).map((file) => file.replace(/\.md$/, ''));

  it('shows every built-in agent, and expands a built-in command, as parsing its file does', async () => {
    assert.ok(existsSync(join(PACKAGE, 'dist', 'builtin-definitions.json')), 'npm run build writes the snapshot');
    const withSnapshot = packageCopy('with', true);
    const without = packageCopy('without', false);
    const shown = async (root: string): Promise<string> => {
      const outputs: string[] = [(await crow(root, 'agents', 'list')).stdout];
      for (const name of agentsOf(root)) outputs.push((await crow(root, 'agents', 'show', name)).stdout);
      return outputs.join('\n').split(root).join('<package>');
    };
    const expected = await shown(without);
    assert.match(expected, /base agent: +builder[\s\S]*file: +<package>\/agents\/base\/builder\.md/);
    assert.equal(await shown(withSnapshot), expected);
    const validated = await crow(withSnapshot, 'agents', 'validate');
    assert.equal(validated.code, 0, validated.stderr);

    const sent = await explained(without);
    assert.match(sent, /Explain the store\./);
    assert.equal(await explained(withSnapshot), sent);
  });

  it('offers the built-in tools with the schemas derived from their parameters, and checks arguments against those parameters', async () => {
    /** The tools a run offers, and what the model is told of a read_file call without a path and a grep call with a wrong type. */
    const offeredAndChecked = async (root: string): Promise<{ tools: unknown; results: string }> => {
      llm.enqueue(
        'anthropic',
        {
          blocks: [
            { type: 'tool_call', name: 'read_file', arguments: { offset: 2 } },
            { type: 'tool_call', name: 'grep', arguments: { pattern: 'x', max_results: 'many' } },
          ],
        },
        { blocks: [{ type: 'text', text: 'Noted.' }] },
      );
      const run = await crow(root, 'run', 'Look around', '--no-undo', '--provider', 'anthropic', '--model', 'claude-test');
      assert.equal(run.code, 0, run.stderr);
      const [first, second] = llm.requestsFor('anthropic').slice(-2).map((request) => request.body);
      const results = (second.messages.at(-1).content as { type: string; content: string }[]).filter((block) => block.type === 'tool_result');
      return { tools: first.tools, results: results.map((block) => block.content).join('\n') };
    };
    const derived = await offeredAndChecked(packageCopy('derived', false));
    const stored = await offeredAndChecked(packageCopy('stored', true));
    assert.deepEqual(stored.tools, derived.tools);
    const bash = (stored.tools as { name: string; input_schema: { properties: Record<string, unknown>; required: string[] } }[]).find((tool) => tool.name === 'bash');
    assert.deepEqual(bash?.input_schema.required, ['command']);
    assert.equal(stored.results, derived.results);
    assert.match(stored.results, /Invalid arguments for read_file: path: Invalid input: expected string, received undefined/);
    assert.match(stored.results, /Invalid arguments for grep: max_results: Invalid input: expected number, received string/);
  });

  it("compiles a user's own system prompt at run time, with the helper the built-in ones have", async () => {
    const root = packageCopy('override', true);
    const prompts = join(base, 'home', 'config', 'crow-agent', 'prompts');
    mkdirSync(prompts, { recursive: true });
    writeFileSync(join(prompts, 'system.hbs'), 'You are {{agentName}}.{{#if (eq agentName "builder")}} Build with care.{{/if}}\n');
    llm.enqueue('anthropic', { blocks: [{ type: 'text', text: 'Done.' }] });
    const run = await crow(root, 'run', 'hi', '--no-undo', '--provider', 'anthropic', '--model', 'claude-test');
    assert.equal(run.code, 0, run.stderr);
    assert.match(JSON.stringify(llm.requestsFor('anthropic').at(-1)!.body.system), /You are builder\. Build with care\./);
  });

  it('reads a built-in agent or command changed after the build as it is now', async () => {
    const root = packageCopy('edited', true);
    const file = join(root, 'agents', 'base', 'builder.md');
    writeFileSync(file, readFileSync(file, 'utf8').replace(/^description: .*$/m, 'description: Edited after the build.'));
    const shown = await crow(root, 'agents', 'show', 'builder');
    assert.equal(shown.code, 0, shown.stderr);
    assert.match(shown.stdout, /description: +Edited after the build\./);

    const command = join(root, 'commands', 'explain.md');
    writeFileSync(command, readFileSync(command, 'utf8').replace(/^Explain /m, 'Describe in plain words '));
    assert.match(await explained(root), /Describe in plain words the store\./);
  });
});
