/**
 * Where no sandbox can exist (Windows, macOS), every command is asked: the
 * gate's sandbox-less path, decided from the platform in one place
 * (platformWithoutSandbox) and given to the gate by the session host.
 */
import assert from 'node:assert/strict';
import { z } from 'zod';
import { sessionParts } from '../../../src/host/session-parts';
import { defineTool } from '../../../src/tools/define-tool';
import { PermissionGate, type PermissionAnswer, type PermissionRequest } from '../../../src/tools/permissions';
import { platformWithoutSandbox } from '../../../src/tools/sandbox-probe';
import { DEFAULT_POLICY, type PermissionPolicy } from '../../../src/vocabulary/permission-types';
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

/** An MCP-like execute tool: no command line, so not a command the sandbox would run. */
const remoteTool = defineTool({
  name: 'remote',
  description: 'Calls a server (test double).',
  kind: 'execute',
  permission: 'execute',
  parameters: z.object({}),
  approval: () => ({ title: 'Call remote' }),
  async execute() {
    return { output: 'called' };
  },
});

const policy = (rules: Partial<PermissionPolicy['rules']>, allowCommands: string[] = []): PermissionPolicy => ({
  rules: { ...DEFAULT_POLICY.rules, ...rules },
  allowCommands,
});

function scriptedAsk(answers: PermissionAnswer[]) {
  const asked: PermissionRequest[] = [];
  const ask = async (request: PermissionRequest): Promise<PermissionAnswer> => {
    asked.push(request);
    const answer = answers.shift();
    if (!answer) throw new Error('asked more often than scripted');
    return answer;
  };
  return { asked, ask };
}

describe('commands where no sandbox exists', () => {
  const ws = tempWorkspace();
  after(() => ws.remove());
  const noSandbox = platformWithoutSandbox('win32')!;
  const call = (gate: PermissionGate, command: string) => runTool.run(JSON.stringify({ command }), toolContext(ws.workspace, undefined, { permissions: gate }));

  it('knows from the platform alone where a sandbox can exist: Linux only', () => {
    assert.match(platformWithoutSandbox('win32')!, /Linux only \(this is win32\)/);
    assert.match(platformWithoutSandbox('darwin')!, /Linux only \(this is darwin\)/);
    assert.equal(platformWithoutSandbox('linux'), undefined);
  });

  it('asks for every command, whatever the policy, the allow-list, --allow, a hook or an earlier "always" says', async () => {
    const { ask, asked } = scriptedAsk(['allow_always', 'allow_once', 'allow_once', 'allow_once']);
    const gate = new PermissionGate({ policy: policy({ execute: 'allow' }, ['npm test']), ask, forced: { execute: 'allow' }, noSandbox });
    assert.equal((await call(gate, 'npm test')).status, 'success');
    assert.equal((await call(gate, 'npm test')).status, 'success', 'asked again: the "always" was only this once');
    assert.equal((await call(gate, 'ls')).status, 'success');
    const hooked = await gate.authorize({ ...asked[0]!, hook: 'allow' }, new AbortController().signal);
    assert.equal(hooked.allowed, true);
    assert.equal(asked.length, 4, 'a hook\'s "allow" is asked about too');
    assert.deepEqual(gate.standingRules(), [], 'no standing "always" was kept');
    assert.match(asked[0]!.alwaysScope, /asked every time: no sandbox contains commands here \(the sandbox uses bubblewrap, which runs on Linux only \(this is win32\)\)/);
  });

  it('denies, saying why, where nobody can be asked', async () => {
    const gate = new PermissionGate({ policy: policy({ execute: 'allow' }, ['npm test']), forced: { execute: 'allow' }, noSandbox });
    const result = await call(gate, 'npm test');
    assert.equal(result.status, 'error');
    assert.match(result.error!, /No sandbox contains commands on this machine .* a person is asked before every command whatever the settings, and nobody can be asked/);
  });

  it('keeps denials: the policy\'s, and a remembered "never"', async () => {
    const denied = await call(new PermissionGate({ policy: policy({ execute: 'deny' }), ask: async () => 'allow_once', noSandbox }), 'ls');
    assert.match(denied.error!, /policy denies execute/);
    const { ask, asked } = scriptedAsk(['reject_always']);
    const gate = new PermissionGate({ policy: policy({ execute: 'ask' }), ask, noSandbox });
    assert.equal((await call(gate, 'rm -rf dist')).status, 'error');
    assert.equal((await call(gate, 'rm -rf dist')).status, 'error');
    assert.equal(asked.length, 1, 'the "never" holds without asking');
  });

  it('leaves what is not an uncontained command to the policy: a sandboxed one (a container), a tool without a command line', async () => {
    const gate = new PermissionGate({ policy: policy({ execute: 'allow' }), noSandbox });
    const request = { tool: 'run', callId: 'c', agent: 'a', category: 'execute' as const, title: 'Run: ls', command: 'ls', paths: [], alwaysScope: 'x' };
    assert.deepEqual(await gate.authorize({ ...request, sandboxed: true }, new AbortController().signal), { allowed: true, how: 'policy' });
    const remote = await remoteTool.run('{}', toolContext(ws.workspace, undefined, { permissions: gate }));
    assert.equal(remote.status, 'success');
  });

  it('on Linux (no noSandbox), allow-list entries still let a command run unasked, as before', async () => {
    const gate = new PermissionGate({ policy: policy({ execute: 'ask' }, ['npm test']) });
    assert.equal((await call(gate, 'npm test')).output, 'ran npm test');
  });

  it('subagents and other agents of the session inherit it', async () => {
    const { ask, asked } = scriptedAsk(['allow_once', 'allow_once']);
    const gate = new PermissionGate({ policy: policy({ execute: 'allow' }), ask, noSandbox });
    assert.equal((await call(gate.narrow(policy({ execute: 'allow' })), 'ls')).status, 'success');
    assert.equal((await call(gate.forPolicy(policy({ execute: 'allow' })), 'ls')).status, 'success');
    assert.equal(asked.length, 2);
  });
});

describe('the session host on a platform without a sandbox', () => {
  const ws = tempWorkspace();
  after(() => ws.remove());
  const platform = Object.getOwnPropertyDescriptor(process, 'platform')!;
  afterEach(() => Object.defineProperty(process, 'platform', platform));

  const partsOn = (name: NodeJS.Platform, sandboxed: boolean) => {
    Object.defineProperty(process, 'platform', { ...platform, value: name });
    const workspace = { root: ws.workspace.root, sandboxed };
    const catalog = { permissionPolicy: () => policy({ execute: 'allow' }, ['npm test']) };
    const options = { workspace, env: { HOME: ws.workspace.root }, forced: {} };
    return sessionParts(options as never, catalog as never);
  };

  for (const name of ['win32', 'darwin'] as const) {
    it(`gives the gate its reason on ${name}: a command the settings allow is still asked`, async () => {
      const gate = (partsOn(name, false)).dependencies.permissions;
      const result = await runTool.run(JSON.stringify({ command: 'npm test' }), toolContext(ws.workspace, undefined, { permissions: gate }));
      assert.match(result.error!, new RegExp(`No sandbox contains commands on this machine .*this is ${name}`));
    });
  }

  it('leaves Linux, and a workspace whose commands run contained elsewhere, to the settings', async () => {
    for (const [name, sandboxed] of [['linux', false], ['win32', true]] as const) {
      const gate = (partsOn(name, sandboxed)).dependencies.permissions;
      const result = await runTool.run(JSON.stringify({ command: 'npm test' }), toolContext(ws.workspace, undefined, { permissions: gate }));
      assert.equal(result.output, 'ran npm test', name);
    }
  });
});
