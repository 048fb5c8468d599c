import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { exportMarkdown } from '../../src/session/session-export';
import { trustFolder } from '../support/trust';
import { ACPAgent } from '../../src/agents/acp-agent';
import { SubagentRunner } from '../../src/agents/subagent-runner';
import { AgentRegistry } from '../../src/config/agent-registry';
import { PromptRegistry } from '../../src/config/prompts';
import { resolveSettings } from '../../src/config/provider-config';
import { BaseAgent } from '../../src/engine/base-agent';
import type { AgentEvent } from '../../src/engine/events';
import { ScriptedProvider, type ScriptStep } from '../../src/llm/scripted';
import { ACPSession } from '../../src/session/acp-session';
import { SessionStore } from '../../src/session/session-store';
import { FakeLlmServer } from '../../testkit/fake-llm-server';
import { NodeWorkspace } from '../../src/tools/node-workspace';
import { PermissionGate, type AskFn, type PermissionRequest } from '../../src/tools/permissions';
import { DEFAULT_POLICY, type PermissionPolicy } from '../../src/vocabulary/permission-types';
import { builtinTools } from '../../src/tools/registry';
import { buildTraceTrees } from '../../src/telemetry/trace-tree';

const SUBAGENTS: Record<string, string> = {
  'scout.md': '---\ndescription: Looks around.\nrole: subagent\ntools: [read_file, task_complete]\n---\n',
  'writer.md': '---\ndescription: Writes files.\nrole: subagent\ntools: [write_file, bash, task_complete]\npermissions: { write: allow, execute: deny }\n---\n',
  'greedy.md': '---\ndescription: Wants to write without asking.\nrole: subagent\ntools: [write_file, task_complete]\npermissions: { write: allow }\n---\n',
  'gated.md': '---\ndescription: Needs approval.\nrole: subagent\ntools: [bash, task_complete]\nrequires_approval: [execute]\napproval_timeout: 1\n---\n',
  'careful.md': '---\ndescription: Reflects.\nrole: subagent\ntools: [task_complete]\nenable_reflection: true\nmax_retries: 1\nreflection_criteria: The answer names the capital of France.\n---\n',
  'nested.md': '---\ndescription: Delegates again.\nrole: subagent\ntools: [task, task_complete]\n---\n',
};

describe('subagents: the task tool', () => {
  let server: FakeLlmServer;
  let root: string;
  let data: string;

  before(async () => (server = await FakeLlmServer.start()));
  after(() => server.close());
  beforeEach(() => {
    server.reset();
    root = mkdtempSync(join(tmpdir(), 'crow-sub-'));
    data = mkdtempSync(join(tmpdir(), 'crow-sub-data-'));
    const write = (path: string, text: string) => {
      mkdirSync(dirname(join(root, path)), { recursive: true });
      writeFileSync(join(root, path), text);
    };
    write('.crow/config.toml', `provider = "local"\n[providers.local]\ntype = "openai"\nbase_url = "${server.openaiBaseUrl}"\ndefault_model = "sub-model"\n`);
    for (const [file, text] of Object.entries(SUBAGENTS)) write(`.crow/agents/base/${file}`, text);
    write('notes.txt', 'The notes.\n');
  });
  afterEach(() => {
    rmSync(root, { recursive: true, force: true });
    rmSync(data, { recursive: true, force: true });
  });

  /** A parent (scripted) with every tool (or `parentTools`), in a session whose subagents come from the definitions above. */
  function setup(
    parentSteps: ScriptStep[],
    options: { policy?: PermissionPolicy; ask?: AskFn; concurrency?: Record<string, number>; maxDepth?: number; parentTools?: string[] } = {},
  ) {
    const env = { XDG_CONFIG_HOME: join(data, 'config') };
    const settings = resolveSettings(root, {}, env, { trusted: true });
    const { registry, errors } = AgentRegistry.load(root, env, { trusted: true });
    assert.deepEqual(errors, []);
    const workspace = new NodeWorkspace(root);
    const prompts = new PromptRegistry();
    const tools = builtinTools();
    const store = new SessionStore({ dataHome: data });
    const parentProvider = new ScriptedProvider(parentSteps);
    const parentTools = options.parentTools ? tools.filter((t) => options.parentTools!.includes(t.name)) : tools;
    const primary = new BaseAgent({ name: 'lead', provider: parentProvider, tools: parentTools, systemPrompt: 'lead', workspace });
    const agent = new ACPAgent({ name: 'crew', description: 'd', primary, flow: { kind: 'hitl' }, prompts });
    const session = new ACPSession({ cwd: root, agentName: 'crew', permissions: new PermissionGate({ policy: options.policy ?? DEFAULT_POLICY, ask: options.ask }) });
    session.subagents = new SubagentRunner({ registry, settings, workspace, prompts, env, tools, store, ...(options.concurrency ? { concurrency: options.concurrency } : {}), ...(options.maxDepth ? { maxDepth: options.maxDepth } : {}) });
    store.attach(session);
    return { agent, session, parentProvider, store };
  }

  async function run(agent: ACPAgent, session: ACPSession, prompt = 'Go.') {
    const events: (AgentEvent & { at: number })[] = [];
    const stream = agent.run(session, prompt, { signal: new AbortController().signal });
    for await (const event of stream) events.push({ ...event, at: Date.now() });
    return { events, result: await stream.result };
  }

  const taskCall = (agent: string, task: string) => ({ name: 'task', arguments: { agent, task } });
  const toolResults = (provider: ScriptedProvider, call: number) => {
    const last = provider.requests[call]!.messages.at(-1)!;
    return last.role === 'tool_results' ? last.results : [];
  };

  it('runs a subagent with a fresh context and returns its markdown report, stored and traced as a child', async () => {
    server.enqueue(
      'openai',
      { blocks: [{ type: 'tool_call', name: 'read_file', arguments: { path: 'notes.txt' } }] },
      { blocks: [{ type: 'text', text: 'notes.txt holds one line: "The notes."' }, { type: 'tool_call', name: 'task_complete', arguments: { summary: 'Read notes.txt: one line.' } }] },
    );
    const { agent, session, parentProvider, store } = setup([
      { toolCalls: [taskCall('scout', 'Read notes.txt and report what it says.')], usage: { input: 1000, output: 100 } },
      { text: 'The scout read it.', usage: { input: 2000, output: 20 } },
    ]);
    session.sessionFor('primary', 'lead').addUserMessage('An earlier, private conversation.');

    const { events } = await run(agent, session);

    const first = JSON.stringify(server.requestsFor('openai')[0]!.body.messages);
    assert.match(first, /Read notes\.txt and report what it says\./);
    assert.doesNotMatch(first, /private conversation/, 'no parent history');
    const [result] = toolResults(parentProvider, 1);
    assert.match(result!.content, /^## Summary\nRead notes\.txt: one line\.\n\n## Report\nnotes\.txt holds one line/);
    assert.deepEqual(events.filter((e) => e.type.startsWith('subagent_')).map((e) => e.type), [
      'subagent_start',
      'subagent_usage',
      'subagent_progress',
      'subagent_usage',
      'subagent_progress',
      'subagent_end',
    ]);
    const usage = events.filter((e) => e.type === 'subagent_usage');
    assert.ok(usage.every((e) => e.subagent === 'scout' && e.usage.output > 0), "the parent's prompt is told what the scout's calls cost");

    const children = store.list().filter((m) => m.parent);
    assert.equal(children.length, 1);
    assert.equal(children[0]!.parent!.agent, 'lead');
    assert.ok(store.histories(children[0]!.id).size > 0, 'the transcript is stored');
    const [tree] = buildTraceTrees(session.trace.spans);
    const taskSpan = tree!.children.find((c) => c.span.kind === 'agent_turn')!.children.find((c) => c.span.kind === 'tool')!;
    assert.equal(taskSpan.children[0]!.span.kind, 'subagent', 'the subagent hangs below the task call');
    // The prompt's span counts every token the prompt cost: the lead's own and the scout's.
    const scoutTokens = usage.reduce((sum, e) => sum + e.usage.input + e.usage.cacheRead + e.usage.cacheWrite, 0);
    const scoutOut = usage.reduce((sum, e) => sum + e.usage.output, 0);
    assert.ok(scoutTokens > 0);
    assert.equal(tree!.span.kind, 'prompt');
    assert.equal(tree!.span.attributes['gen_ai.usage.input_tokens'], 1000 + 2000 + scoutTokens);
    assert.equal(tree!.span.attributes['gen_ai.usage.output_tokens'], 100 + 20 + scoutOut);
    assert.equal(tree!.span.attributes['crow.subagents.input_tokens'], scoutTokens);
    assert.equal(taskSpan.children[0]!.span.attributes['gen_ai.usage.input_tokens'], scoutTokens, "the subagent's own span has the same figure");

    // The markdown export links the child's transcript from the task call, and back (seed 002).
    const exported = await exportMarkdown(store, session.id, join(data, 'export'));
    const child = `subagent-scout-${children[0]!.id.slice(0, 8)}`;
    assert.match(readFileSync(join(exported, 'lead.md'), 'utf8'), new RegExp(`### → task[\\s\\S]*Subagent transcript: \\[\\[${child}\\]\\]`));
    assert.match(readFileSync(join(exported, `${child}.md`), 'utf8'), /^parent: "\[\[lead\]\]"$/m);
    assert.match(readFileSync(join(exported, 'session.md'), 'utf8'), new RegExp(`## Subagents\\n- \\[\\[${child}\\]\\]`));
    assert.match(readFileSync(join(exported, `${child}-scout.md`), 'utf8'), new RegExp(`^parent: "\\[\\[${child}\\]\\]"$`, 'm'));
  });

  it('refuses a subagent that asks for more than its parent may grant, naming the permission', async () => {
    const { agent, session, parentProvider } = setup([{ toolCalls: [taskCall('greedy', 'Write x.txt.')] }, { text: 'ok' }]);
    await run(agent, session);
    const [result] = toolResults(parentProvider, 1);
    assert.ok(result!.isError);
    assert.match(result!.content, /asks for more than lead may grant: write: allow \(its parent has write: ask\)/);
    assert.equal(server.requestsFor('openai').length, 0, 'it never started');
  });

  it("enforces the narrowed permissions at every call: the child's own deny holds even where the parent allows", async () => {
    server.enqueue(
      'openai',
      { blocks: [{ type: 'tool_call', name: 'bash', arguments: { command: 'touch made-by-bash' } }] },
      { blocks: [{ type: 'tool_call', name: 'write_file', arguments: { path: 'made.txt', content: 'x' } }] },
      { blocks: [{ type: 'tool_call', name: 'task_complete', arguments: { summary: 'Wrote made.txt; bash was denied.' } }] },
    );
    const allowAll: PermissionPolicy = { rules: { read: 'allow', write: 'allow', execute: 'allow', network: 'allow' }, allowCommands: [] };
    const { agent, session } = setup([{ toolCalls: [taskCall('writer', 'Make files.')] }, { text: 'ok' }], { policy: allowAll });
    await run(agent, session);
    assert.ok(existsSync(join(root, 'made.txt')));
    assert.ok(!existsSync(join(root, 'made-by-bash')));
    assert.match(JSON.stringify(server.requestsFor('openai')[1]!.body.messages), /policy denies execute/);
  });

  it('refuses a subagent whose tools go beyond its parent\'s, naming what is missing; a parent with them can spawn it', async () => {
    const allowAll: PermissionPolicy = { rules: { read: 'allow', write: 'allow', execute: 'allow', network: 'allow' }, allowCommands: [] };
    const readOnly = setup([{ toolCalls: [taskCall('writer', 'Make files.')] }, { text: 'ok' }], { policy: allowAll, parentTools: ['read_file', 'grep', 'task'] });
    await run(readOnly.agent, readOnly.session);
    const [refused] = toolResults(readOnly.parentProvider, 1);
    assert.ok(refused!.isError);
    assert.match(refused!.content, /writer needs write_file, bash, which lead does not have\. A subagent never has tools its parent lacks/);
    assert.equal(server.requestsFor('openai').length, 0, 'it never started');

    server.enqueue(
      'openai',
      { blocks: [{ type: 'tool_call', name: 'write_file', arguments: { path: 'made.txt', content: 'x' } }] },
      { blocks: [{ type: 'tool_call', name: 'task_complete', arguments: { summary: 'Wrote made.txt.' } }] },
    );
    const able = setup([{ toolCalls: [taskCall('writer', 'Make files.')] }, { text: 'ok' }], { policy: allowAll, parentTools: ['write_file', 'bash', 'task'] });
    await run(able.agent, able.session);
    assert.ok(existsSync(join(root, 'made.txt')), 'task_complete needs no granting: every agent may end its task');
    const offered = server.requestsFor('openai')[0]!.body.tools.map((tool: { function: { name: string } }) => tool.function.name).sort();
    assert.deepEqual(offered, ['bash', 'task_complete', 'write_file']);
  });

  it('stops at the depth limit with a clear error', async () => {
    server.enqueue('openai', { blocks: [{ type: 'tool_call', name: 'task', arguments: { agent: 'scout', task: 'deeper' } }] }, {
      blocks: [{ type: 'tool_call', name: 'task_complete', arguments: { summary: 'Could not go deeper.' } }],
    });
    const { agent, session } = setup([{ toolCalls: [taskCall('nested', 'Delegate to a scout.')] }, { text: 'ok' }]);
    await run(agent, session);
    const childSaw = JSON.stringify(server.requestsFor('openai')[1]!.body.messages);
    assert.match(childSaw, /depth limit reached: scout would run at level 3, and at most 2 levels/);
  });

  for (const [limit, overlap] of [[1, false], [2, true]] as const) {
    it(`queues subagents per provider: limit ${limit} ${overlap ? 'overlaps them' : 'serialises them'}`, async () => {
      const slow = { blocks: [{ type: 'text' as const, text: ['a', 'b', 'c', 'd', 'e', 'f'] }, { type: 'tool_call' as const, name: 'task_complete', arguments: { summary: 'done' } }], latencyMs: 40 };
      server.enqueue('openai', slow, slow);
      const { agent, session } = setup([{ toolCalls: [taskCall('scout', 'One.'), taskCall('scout', 'Two.')] }, { text: 'ok' }], { concurrency: { local: limit } });
      const { events } = await run(agent, session);
      const [firstRequest, secondRequest] = server.requestsFor('openai').map((r) => r.receivedAt);
      const firstEnd = events.find((e) => e.type === 'subagent_end')!.at;
      // The first reply takes at least 7 × 40 ms on the server's side: a second request before that overlapped it.
      if (overlap) assert.ok(secondRequest! < firstEnd, 'the second started before the first ended');
      else assert.ok(secondRequest! - firstRequest! >= 250, 'the second waited for the first reply to finish');
      assert.ok(firstRequest! <= secondRequest!);
    });
  }

  it("one subagent's failure does not stop the others", async () => {
    server.enqueue(
      'openai',
      { kind: 'http_error', status: 400, message: 'bad request for this one' },
      { blocks: [{ type: 'tool_call', name: 'task_complete', arguments: { summary: 'Second one fine.' } }] },
    );
    const { agent, session, parentProvider } = setup([{ toolCalls: [taskCall('scout', 'Fails.'), taskCall('scout', 'Works.')] }, { text: 'ok' }], { concurrency: { local: 1 } });
    await run(agent, session);
    const results = toolResults(parentProvider, 1);
    assert.equal(results.length, 2);
    assert.ok(results[0]!.isError);
    assert.match(results[0]!.content, /bad request for this one/);
    assert.ok(!results[1]!.isError);
    assert.match(results[1]!.content, /Second one fine\./);
  });

  it('aborts a gated subagent when its approval times out, and records the decision', async () => {
    const never: AskFn = () => new Promise(() => undefined);
    const { agent, session, parentProvider } = setup([{ toolCalls: [taskCall('gated', 'Run the build.')] }, { text: 'ok' }], { ask: never });
    await run(agent, session);
    const [result] = toolResults(parentProvider, 1);
    assert.match(result!.content, /gated was not started: approval timed out/);
    assert.equal(server.requestsFor('openai').length, 0);
    const taskSpan = session.trace.spans.find((s) => s.kind === 'tool')!;
    assert.equal(taskSpan.attributes['crow.subagent.approval'], 'timeout');
  });

  it("lets the person edit a gated subagent's task before it starts (Modify): the subagent gets their task, the parent is told", async () => {
    server.enqueue('openai', { blocks: [{ type: 'tool_call', name: 'task_complete', arguments: { summary: 'Listed the files.' } }] });
    const asked: PermissionRequest[] = [];
    const edit: AskFn = async (request) => (asked.push(request), { modified: { task: 'Only list the files; run nothing.' } });
    const { agent, session, parentProvider } = setup([{ toolCalls: [taskCall('gated', 'Run the build.')] }, { text: 'ok' }], { ask: edit });
    await run(agent, session);
    assert.deepEqual(asked[0]!.editable!.arguments, { task: 'Run the build.' });
    assert.match(asked[0]!.editable!.check({ task: ' ' }) ?? '', /task: the task cannot be empty/);
    const first = JSON.stringify(server.requestsFor('openai')[0]!.body.messages);
    assert.match(first, /Only list the files; run nothing\./);
    assert.doesNotMatch(first, /Run the build/);
    const [result] = toolResults(parentProvider, 1);
    assert.match(result!.content, /\[The user edited the task before allowing gated to start\. It ran with: "Only list the files; run nothing\."\]/);
    const taskSpan = session.trace.spans.find((s) => s.kind === 'tool')!;
    assert.equal(taskSpan.attributes['crow.subagent.approval'], 'allowed with an edited task');
  });

  it('reflects and retries with the critique, returning the better attempt', async () => {
    server.enqueue(
      'openai',
      { blocks: [{ type: 'text', text: 'It is Lyon.' }, { type: 'tool_call', name: 'task_complete', arguments: { summary: 'Lyon.' } }] },
      { blocks: [{ type: 'text', text: '{"verdict": "fail", "score": 2, "critique": "Lyon is not the capital."}' }] },
      { blocks: [{ type: 'text', text: 'It is Paris.' }, { type: 'tool_call', name: 'task_complete', arguments: { summary: 'Paris.' } }] },
      { blocks: [{ type: 'text', text: '{"verdict": "pass", "score": 9, "critique": ""}' }] },
    );
    const { agent, session, parentProvider } = setup([{ toolCalls: [taskCall('careful', 'What is the capital of France?')] }, { text: 'ok' }]);
    await run(agent, session);
    const [result] = toolResults(parentProvider, 1);
    assert.match(result!.content, /## Summary\nParis\./);
    const retry = JSON.stringify(server.requestsFor('openai')[2]!.body.messages);
    assert.match(retry, /Lyon is not the capital/);
    assert.match(JSON.stringify(server.requestsFor('openai')[1]!.body.messages), /The answer names the capital of France/);
    const outcome = session.sessionFor('primary', 'lead').entries.find((e) => e.kind === 'tool_result');
    assert.ok(outcome?.kind === 'tool_result');
    assert.deepEqual(outcome.metadata.extra.reflection, {
      attempts: [
        { verdict: 'fail', score: 2, critique: 'Lyon is not the capital.' },
        { verdict: 'pass', score: 9, critique: '' },
      ],
      chosen: 2,
    });
  });

  it('runs a subagent that is itself a composition with its own reviewer (TASK-SMART)', async () => {
    server.enqueue(
      'openai',
      { blocks: [{ type: 'tool_call', name: 'write_file', arguments: { path: 'sub.txt', content: 'from the worker\n' } }] },
      { blocks: [{ type: 'tool_call', name: 'task_complete', arguments: { summary: 'Wrote sub.txt.' } }] },
      { blocks: [{ type: 'tool_call', name: 'read_file', arguments: { path: 'sub.txt' } }] },
      { blocks: [{ type: 'text', text: 'Checked: sub.txt is right.' }, { type: 'tool_call', name: 'task_complete', arguments: { summary: 'Reviewed and approved sub.txt.' } }] },
    );
    const allowAsked: AskFn = async () => 'allow_once';
    const { agent, session, parentProvider } = setup([{ toolCalls: [taskCall('task-pair', 'Write sub.txt.')] }, { text: 'ok' }], { ask: allowAsked });
    const { events } = await run(agent, session);
    assert.equal(readFileSync(join(root, 'sub.txt'), 'utf8'), 'from the worker\n');
    assert.ok(events.some((e) => e.type === 'subagent_progress' && /reviewer reviews/.test(e.text)), 'the review shows as progress');
    const [result] = toolResults(parentProvider, 1);
    assert.match(result!.content, /## Summary\nReviewed and approved sub\.txt\./);
  });

  it('runs another ACP agent as a subagent: a second crow acp process, its permission request judged by our policy', async () => {
    const crow = join(__dirname, '../../dist/crow.js');
    writeFileSync(
      join(root, '.crow/agents/base/remote.md'),
      `---\ndescription: Another crow over ACP.\nrole: subagent\nacp_command: ${process.execPath} ${crow} acp\npermissions: { write: allow }\n---\n`,
    );
    server.enqueue(
      'openai',
      { blocks: [{ type: 'tool_call', name: 'write_file', arguments: { path: 'remote.txt', content: 'written over ACP\n' } }] },
      { blocks: [{ type: 'text', text: 'Wrote remote.txt over there.' }] },
    );
    // The second crow reads this folder's .crow/ as its user would: trusted.
    trustFolder(root, { XDG_CONFIG_HOME: join(data, 'config') });
    const allowAll: PermissionPolicy = { rules: { read: 'allow', write: 'allow', execute: 'allow', network: 'allow' }, allowCommands: [] };
    const { agent, session, parentProvider } = setup([{ toolCalls: [taskCall('remote', 'Write remote.txt.')] }, { text: 'ok' }], { policy: allowAll });
    const { events } = await run(agent, session);
    assert.equal(readFileSync(join(root, 'remote.txt'), 'utf8'), 'written over ACP\n');
    const [result] = toolResults(parentProvider, 1);
    assert.match(result!.content, /## Summary\nWrote remote\.txt over there\./);
    assert.ok(events.some((e) => e.type === 'subagent_start' && e.sessionId.startsWith('external: ')));
  });
});
