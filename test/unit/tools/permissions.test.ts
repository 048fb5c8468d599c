import assert from 'node:assert/strict';
import { z } from 'zod';
import { defineTool } from '../../../src/tools/define-tool';
import {
  AutoApproveCaps,
  commandAllowed,
  DEFAULT_POLICY,
  PermissionGate,
  type PermissionAnswer,
  type PermissionPolicy,
  type PermissionRequest,
} from '../../../src/tools/permissions';
import { tempWorkspace, toolContext } from './temp-workspace';

const runTool = defineTool({
  name: 'run',
  description: 'Runs a command (test double).',
  kind: 'execute',
  permission: 'execute',
  parameters: z.object({ command: z.string() }),
  approval: ({ command }) => ({ title: `Run: ${command}`, command }),
  async execute({ command }) {
    return { output: `ran ${command}` };
  },
});

function scriptedAsk(answers: PermissionAnswer[]) {
  const asked: PermissionRequest[] = [];
  return {
    asked,
    ask: async (request: PermissionRequest) => {
      asked.push(request);
      const answer = answers.shift();
      if (!answer) throw new Error('asked more often than scripted');
      return answer;
    },
  };
}

const policy = (rules: Partial<PermissionPolicy['rules']>, allowCommands: string[] = []): PermissionPolicy => ({
  rules: { ...DEFAULT_POLICY.rules, ...rules },
  allowCommands,
});

describe('permission gate', () => {
  const ws = tempWorkspace();
  after(() => ws.remove());
  const call = (gate: PermissionGate, command: string) =>
    runTool.run(JSON.stringify({ command }), toolContext(ws.workspace, undefined, { permissions: gate }));

  it('allows and denies by category without asking', async () => {
    const allowed = await call(new PermissionGate(policy({ execute: 'allow' })), 'ls');
    assert.equal(allowed.output, 'ran ls');
    const denied = await call(new PermissionGate(policy({ execute: 'deny' })), 'ls');
    assert.equal(denied.status, 'error');
    assert.match(denied.error!, /policy denies execute/);
    assert.equal(denied.metadata.extra.permission, 'denied');
  });

  it('asks, and remembers "always" for the program for the rest of the session', async () => {
    const { ask, asked } = scriptedAsk(['allow_always', 'reject_once']);
    const gate = new PermissionGate(policy({ execute: 'ask' }), ask);
    assert.equal((await call(gate, 'npm test')).status, 'success');
    assert.equal((await call(gate, 'npm run build')).status, 'success', 'remembered: no second question');
    assert.equal((await call(gate, 'rm -rf dist')).status, 'error', 'another program is asked again');
    assert.deepEqual(asked.map((r) => [r.title, r.alwaysScope]), [
      ['Run: npm test', 'commands starting with "npm"'],
      ['Run: rm -rf dist', 'commands starting with "rm"'],
    ]);
    assert.equal(asked[0]!.agent, 'tester');
    assert.equal(asked[0]!.category, 'execute');
  });

  it('asks again once a cap on automatic approvals is reached, and counts afresh after a yes or a new prompt', async () => {
    const { ask, asked } = scriptedAsk(['allow_once', 'reject_once']);
    const caps = new AutoApproveCaps({ execute: 2 });
    const gate = new PermissionGate(policy({ execute: 'allow' }), ask, undefined, {}, new Map(), caps).forPolicy(policy({ execute: 'allow' }));
    const statuses = [];
    for (const command of ['ls', 'pwd', 'date', 'whoami', 'id', 'uname']) statuses.push((await call(gate, command)).status);
    // Two automatic, the third asked (yes), two automatic again, the sixth asked (no).
    assert.deepEqual(statuses, ['success', 'success', 'success', 'success', 'success', 'error']);
    assert.deepEqual(asked.map((r) => r.command), ['date', 'uname']);
    caps.reset();
    assert.equal((await call(gate, 'ls')).status, 'success', 'a new prompt starts the count over');
  });

  it('remembers "never" as a denial without asking again', async () => {
    const { ask, asked } = scriptedAsk(['reject_always']);
    const gate = new PermissionGate(policy({ execute: 'ask' }), ask);
    await call(gate, 'curl x');
    const second = await call(gate, 'curl y');
    assert.match(second.error!, /rejected commands starting with "curl" for this session/);
    assert.equal(asked.length, 1);
  });

  it('denies "ask" when nobody can answer, saying how to allow it', async () => {
    const gate = new PermissionGate(policy({ execute: 'ask' }), undefined, (c) => `pass --allow ${c}`);
    const result = await call(gate, 'make');
    assert.match(result.error!, /nobody can be asked.*pass --allow execute/);
  });

  it('runs allow-listed simple commands without asking, never chained ones', async () => {
    const { ask, asked } = scriptedAsk(['reject_once']);
    const gate = new PermissionGate(policy({ execute: 'ask' }, ['npm test', 'git status']), ask);
    assert.equal((await call(gate, 'npm test -- --grep x')).status, 'success');
    assert.equal((await call(gate, 'git status')).status, 'success');
    assert.equal((await call(gate, 'npm test && curl evil')).status, 'error');
    assert.equal(asked.length, 1);
  });

  it('matches command prefixes on word boundaries only', () => {
    assert.ok(commandAllowed('npm test', ['npm test']));
    assert.ok(!commandAllowed('npm testify', ['npm test']));
    assert.ok(!commandAllowed('npm test; rm -rf /', ['npm test']));
    assert.ok(!commandAllowed('npm test | tee x', ['npm test']));
    assert.ok(!commandAllowed('npm test $(whoami)', ['npm test']));
    assert.ok(!commandAllowed('npm test > out', ['npm test']));
    assert.ok(!commandAllowed('anything', ['', '  ']));
  });

  it('stops waiting for an answer when the call is cancelled', async () => {
    const controller = new AbortController();
    const gate = new PermissionGate(policy({ execute: 'ask' }), (_request, signal) => {
      return new Promise((resolve) => signal.addEventListener('abort', () => resolve('reject_once')));
    });
    setTimeout(() => controller.abort(), 20);
    const result = await runTool.run(
      JSON.stringify({ command: 'x' }),
      toolContext(ws.workspace, controller.signal, { permissions: gate }),
    );
    assert.equal(result.status, 'cancelled');
  });
});
