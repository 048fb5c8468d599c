import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { FakeLlmServer } from '../../testkit/fake-llm-server';
import { runCrow } from '../support/crow-binary';
import { isolatedEnv } from '../support/isolated-env';

/** The YAML frontmatter of a markdown note. */
function frontmatter(file: string): Record<string, unknown> {
  const text = readFileSync(file, 'utf8');
  const match = /^---\n([\s\S]*?)\n---\n/.exec(text);
  assert.ok(match, `${file} starts with frontmatter`);
  return parse(match[1]!) as Record<string, unknown>;
}

describe('crow sessions export: seed 002 metadata in frontmatter and metadata.json', () => {
  let server: FakeLlmServer;
  let home: string;
  let workspace: string;
  let env: NodeJS.ProcessEnv;

  before(async () => (server = await FakeLlmServer.start()));
  after(() => server.close());
  beforeEach(() => {
    server.reset();
    home = mkdtempSync(join(tmpdir(), 'crow-export-home-'));
    workspace = mkdtempSync(join(tmpdir(), 'crow-export-ws-'));
    writeFileSync(join(workspace, 'notes.txt'), 'alpha\nbeta\n');
    mkdirSync(join(home, 'config', 'crow-agent'), { recursive: true });
    // Prices of a dollar per million input tokens and two per million output tokens.
    writeFileSync(
      join(home, 'config', 'crow-agent', 'config.toml'),
      '[providers.anthropic.models."claude-test"]\ninput_per_mtok = 1.0\noutput_per_mtok = 2.0\n',
    );
    env = isolatedEnv(home, { ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: server.anthropicBaseUrl });
  });
  afterEach(() => {
    rmSync(home, { recursive: true, force: true });
    rmSync(workspace, { recursive: true, force: true });
  });

  it('a run that started a subagent exports status, model, tokens, cost, times and subagent_of, in the notes and in metadata.json', async () => {
    server.enqueue(
      'anthropic',
      { blocks: [{ type: 'tool_call', name: 'task', arguments: { agent: 'explorer', task: 'Say what notes.txt holds.' } }], usage: { input: 1000, output: 100 } },
      {
        blocks: [
          { type: 'text', text: 'notes.txt holds alpha and beta.' },
          { type: 'tool_call', name: 'task_complete', arguments: { summary: 'notes.txt holds two lines.' } },
        ],
        usage: { input: 300, output: 30 },
      },
      { blocks: [{ type: 'text', text: 'It holds alpha and beta.' }], usage: { input: 2000, output: 200 } },
    );
    const run = await runCrow(['run', 'What is in notes.txt?', '--cwd', workspace, '--provider', 'anthropic', '--model', 'claude-test'], env, workspace);
    assert.equal(run.code, 0, run.stderr);

    const list = JSON.parse((await runCrow(['sessions', 'list', '--all', '--json'], env, workspace)).stdout) as { id: string; parent?: unknown }[];
    const parent = list.find((s) => s.parent === undefined)!;
    const child = list.find((s) => s.parent !== undefined)!;
    assert.ok(parent && child, 'the run and its subagent are stored');

    const out = join(home, 'exports');
    const exported = await runCrow(['sessions', 'export', parent.id.slice(0, 8), '--out', out], env, workspace);
    assert.equal(exported.code, 0, exported.stderr);
    const folder = exported.stdout.replace('Exported to ', '').trim();
    const files = readdirSync(folder);
    assert.ok(files.includes('metadata.json') && files.includes('session.md'), files.join(', '));

    const session = frontmatter(join(folder, 'session.md'));
    assert.equal(session.session_id, parent.id);
    assert.equal(session.status, 'needs_input', 'build hands back to the person: its run status');
    assert.equal(session.model, 'claude-test');
    assert.equal(session.primary_agent, 'builder');
    // The prompt counts the subagent's tokens with the builder's own.
    assert.equal(session.tokens, 1000 + 100 + 300 + 30 + 2000 + 200);
    assert.equal(session.input_tokens, 3300);
    assert.equal(session.output_tokens, 330);
    assert.equal(session.cost_usd, (3300 * 1 + 330 * 2) / 1e6);
    assert.match(String(session.started_at), /^\d{4}-\d\d-\d\dT/);
    assert.ok(Date.parse(String(session.completed_at)) >= Date.parse(String(session.started_at)));
    assert.equal(session.subagent_of, undefined);

    const builder = frontmatter(join(folder, 'builder.md'));
    assert.equal(builder.model, 'claude-test');
    assert.equal(builder.tokens, 1000 + 100 + 2000 + 200, "a transcript counts its own agent's calls");

    const childNote = files.find((f) => /^subagent-explorer-[0-9a-f-]+\.md$/.test(f))!;
    assert.ok(childNote, files.join(', '));
    const sub = frontmatter(join(folder, childNote));
    assert.equal(sub.subagent_of, parent.id);
    assert.equal(sub.agent_name, 'explorer');
    assert.equal(sub.status, 'completed');
    assert.equal(sub.model, 'claude-test');
    assert.equal(sub.tokens, 330);
    assert.equal(sub.cost_usd, (300 * 1 + 30 * 2) / 1e6);
    assert.match(String(sub.spawned_at), /^\d{4}-/);
    assert.match(String(sub.completed_at), /^\d{4}-/);

    const metadata = JSON.parse(readFileSync(join(folder, 'metadata.json'), 'utf8'));
    assert.equal(metadata.session_id, parent.id);
    assert.equal(metadata.status, 'needs_input');
    assert.equal(metadata.tokens, 3630);
    assert.deepEqual(metadata.agents.map((a: { role: string; agent_name: string }) => [a.role, a.agent_name]), [['primary', 'builder']]);
    assert.equal(metadata.subagents.length, 1);
    assert.equal(metadata.subagents[0].session_id, child.id);
    assert.equal(metadata.subagents[0].subagent_of, parent.id);
    assert.equal(metadata.subagents[0].parent_agent, 'builder');
    assert.equal(metadata.subagents[0].tokens, 330);

    // The subagent's own export finds its figures in its parent's trace; --format metadata prints them alone.
    const alone = await runCrow(['sessions', 'export', child.id, '--format', 'metadata'], env, workspace);
    assert.equal(alone.code, 0, alone.stderr);
    const childMeta = JSON.parse(alone.stdout);
    assert.equal(childMeta.subagent_of, parent.id);
    assert.equal(childMeta.tokens, 330);
    assert.equal(childMeta.status, 'completed');

    const json = JSON.parse((await runCrow(['sessions', 'export', parent.id, '--format', 'json'], env, workspace)).stdout);
    assert.deepEqual(json.metadata, metadata, 'the JSON export carries the same metadata');

    const bad = await runCrow(['sessions', 'export', parent.id, '--format', 'yaml'], env, workspace);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--format must be md, json or metadata/);
  });
});
