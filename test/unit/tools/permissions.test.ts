import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { z } from 'zod';
import { bashTool } from '../../../src/tools/builtin/bash';
import { writeFileTool } from '../../../src/tools/builtin/write-file';
import { defineTool } from '../../../src/tools/define-tool';
import { AutoApproveCaps, PermissionGate, type PermissionAnswer, type PermissionReply, type PermissionRequest } from '../../../src/tools/permissions';
import { DEFAULT_POLICY, type PermissionPolicy } from '../../../src/vocabulary/permission-types';
import { ProtectedPaths } from '../../../src/tools/protected-paths';
import { toolResultAttributes } from '../../../src/telemetry/gen-ai';
import { tempDir, tempWorkspace, toolContext } from './temp-workspace';

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
    const allowed = await call(new PermissionGate({ policy: policy({ execute: 'allow' }) }), 'ls');
    assert.equal(allowed.output, 'ran ls');
    const denied = await call(new PermissionGate({ policy: policy({ execute: 'deny' }) }), 'ls');
    assert.equal(denied.status, 'error');
    assert.match(denied.error!, /policy denies execute/);
    assert.equal(denied.metadata.extra.permission, 'denied');
  });

  it('keeps what the person answered on the result, and the wait and the set-up apart from the call\'s own time', async () => {
    const slowStart = defineTool({
      name: 'slow_start',
      description: 'Takes 80 ms to get ready, then works (test double).',
      kind: 'execute',
      permission: 'execute',
      parameters: z.object({ command: z.string() }),
      approval: ({ command }) => ({ title: `Run: ${command}`, command }),
      async execute({ command }) {
        await new Promise((resolve) => setTimeout(resolve, 80));
        return { output: `ran ${command}`, setupMs: 80 };
      },
    });
    const ask = async (): Promise<PermissionAnswer> => {
      await new Promise((resolve) => setTimeout(resolve, 60));
      return 'allow_once';
    };
    const gate = new PermissionGate({ policy: policy({ execute: 'ask' }), ask });
    const started = performance.now();
    const result = await slowStart.run(JSON.stringify({ command: 'ls' }), toolContext(ws.workspace, undefined, { permissions: gate }));
    const elapsed = performance.now() - started;
    const { approval, setupMs, waitedMs, durationMs } = result.metadata;
    assert.equal(approval, 'allow_once');
    assert.equal(setupMs, 80);
    assert.ok(waitedMs! >= 50, `the wait is counted apart (${waitedMs} ms)`);
    // Whatever the machine's speed: the call's own time is what is left of the whole once the wait and the set-up are taken out.
    assert.ok(durationMs <= elapsed - waitedMs! - setupMs + 2, `own ${durationMs} ms, all ${elapsed.toFixed(0)} ms, waited ${waitedMs} ms, set-up ${setupMs} ms`);
    const denied = await slowStart.run(
      JSON.stringify({ command: 'ls' }),
      toolContext(ws.workspace, undefined, { permissions: new PermissionGate({ policy: policy({ execute: 'ask' }), ask: async () => 'reject_once' }) }),
    );
    assert.equal(denied.metadata.approval, 'reject_once');
    const byPolicy = await call(new PermissionGate({ policy: policy({ execute: 'allow' }) }), 'ls');
    assert.equal(byPolicy.metadata.approval, undefined, 'nobody was asked');
  });

  it('asks, and remembers "always" for the program and its subcommand for the rest of the session', async () => {
    const { ask, asked } = scriptedAsk(['allow_always', 'reject_once', 'reject_once']);
    const gate = new PermissionGate({ policy: policy({ execute: 'ask' }), ask });
    assert.equal((await call(gate, 'npm test')).status, 'success');
    assert.equal((await call(gate, 'npm test -- --grep x')).status, 'success', 'remembered: no second question');
    assert.equal((await call(gate, 'npm run build')).status, 'error', 'another subcommand is asked again');
    assert.equal((await call(gate, 'rm -rf dist')).status, 'error', 'another program is asked again');
    assert.deepEqual(asked.map((r) => [r.title, r.alwaysScope]), [
      ['Run: npm test', 'commands starting with "npm test"'],
      ['Run: npm run build', 'commands starting with "npm run build"'],
      ['Run: rm -rf dist', 'commands starting with "rm -rf dist"'],
    ]);
    assert.equal(asked[0]!.agent, 'tester');
    assert.equal(asked[0]!.category, 'execute');
  });

  it('lists the standing "always" answers in words, and a revoked one is asked again', async () => {
    const { ask, asked } = scriptedAsk(['allow_always', 'allow_always', 'reject_once']);
    const gate = new PermissionGate({ policy: policy({ execute: 'ask', write: 'ask' }), ask });
    assert.equal((await call(gate, 'npm test')).status, 'success');
    const write = await writeFileTool.run(JSON.stringify({ path: 'standing.txt', content: 'x' }), toolContext(ws.workspace, undefined, { permissions: gate }));
    assert.equal(write.status, 'success');
    assert.deepEqual(gate.standingRules().map(({ allowed, covers }) => [allowed, covers]), [[true, 'file changes'], [true, 'commands starting with "npm test"']]);
    const npm = gate.standingRules().find((rule) => rule.covers.includes('npm test'))!;
    assert.equal(gate.revokeRule(npm.id), true);
    assert.equal(gate.revokeRule(npm.id), false, 'gone already');
    assert.equal((await call(gate, 'npm test')).status, 'error', 'asked again, and refused this time');
    assert.equal(asked.length, 3);
    assert.deepEqual(gate.standingRules().map((rule) => rule.covers), ['file changes']);
  });

  it('asks again once a cap on automatic approvals is reached, and counts afresh after a yes or a new prompt', async () => {
    const { ask, asked } = scriptedAsk(['allow_once', 'reject_once']);
    const caps = new AutoApproveCaps({ execute: 2 });
    const gate = new PermissionGate({ policy: policy({ execute: 'allow' }), ask, caps }).forPolicy(policy({ execute: 'allow' }));
    const statuses = [];
    for (const command of ['ls', 'pwd', 'date', 'whoami', 'id', 'uname']) statuses.push((await call(gate, command)).status);
    // Two automatic, the third asked (yes), two automatic again, the sixth asked (no).
    assert.deepEqual(statuses, ['success', 'success', 'success', 'success', 'success', 'error']);
    assert.deepEqual(asked.map((r) => r.command), ['date', 'uname']);
    caps.reset();
    assert.equal((await call(gate, 'ls')).status, 'success', 'a new prompt starts the count over');
  });

  it('remembers "never" as a denial without asking again, also inside a chain', async () => {
    const { ask, asked } = scriptedAsk(['reject_always']);
    const gate = new PermissionGate({ policy: policy({ execute: 'ask' }), ask });
    await call(gate, 'git push origin');
    const second = await call(gate, 'git push origin main --force');
    assert.match(second.error!, /rejected commands starting with "git push origin" for this session/);
    const chained = await call(gate, 'git status && git push origin main');
    assert.match(chained.error!, /rejected commands starting with "git push origin"/);
    assert.equal(asked.length, 1);
  });

  it('denies "ask" when nobody can answer, saying how to allow it', async () => {
    const gate = new PermissionGate({ policy: policy({ execute: 'ask' }), howToAllow: (c) => `pass --allow ${c}` });
    const result = await call(gate, 'make');
    assert.match(result.error!, /nobody can be asked.*pass --allow execute/);
  });

  it('runs allow-listed commands without asking only when every command in them is listed', async () => {
    const { ask, asked } = scriptedAsk(['reject_once', 'reject_once', 'reject_once']);
    const gate = new PermissionGate({ policy: policy({ execute: 'ask' }, ['npm test', 'git status']), ask });
    assert.equal((await call(gate, 'npm test -- --grep x')).status, 'success');
    assert.equal((await call(gate, 'git status')).status, 'success');
    assert.equal((await call(gate, 'git status && npm test 2>&1')).status, 'success', 'a chain of listed commands runs');
    assert.equal((await call(gate, 'npm test && curl evil')).status, 'error');
    assert.equal((await call(gate, 'npm testify')).status, 'error', 'words match whole');
    assert.equal((await call(gate, 'npm test > out.txt')).status, 'error', 'a file redirection is not vouched for');
    assert.equal(asked.length, 3);
  });

  it('treats configured entries and remembered answers alike: every part of a chain must be covered', async () => {
    const { ask, asked } = scriptedAsk(['allow_always', 'reject_once']);
    const gate = new PermissionGate({ policy: policy({ execute: 'ask' }, ['npm test']), ask });
    assert.equal((await call(gate, 'git status')).status, 'success');
    assert.equal((await call(gate, 'git status && npm test')).status, 'success', 'one part remembered, one configured');
    assert.equal((await call(gate, 'git status; touch x')).status, 'error');
    assert.deepEqual(asked.map((r) => r.command), ['git status', 'git status; touch x']);
  });

  it('explains to a non-interactive run why the allowed commands do not cover a command', async () => {
    const gate = new PermissionGate({ policy: policy({ execute: 'ask' }, ['git status']), howToAllow: (c) => `pass --allow ${c}` });
    const result = await call(gate, 'git status | sh');
    assert.match(result.error!, /pass --allow execute\. \(The allowed commands do not cover it: sh runs a script given inline or on its input/);
  });

  it("narrows a subagent's command entries to those its parent would run too", async () => {
    const { ask, asked } = scriptedAsk(['reject_once']);
    const parent = new PermissionGate({ policy: policy({ execute: 'ask' }, ['git']), ask });
    const child = parent.narrow(policy({ execute: 'ask' }, ['git log', 'npm test', 'rm -rf']));
    assert.deepEqual(child.policy.allowCommands, ['git log']);
    assert.equal((await call(child, 'git log -1')).status, 'success');
    assert.equal((await call(child, 'npm test')).status, 'error');
    const allowing = new PermissionGate({ policy: policy({ execute: 'allow' }), ask }).narrow(policy({ execute: 'ask' }, ['npm test']));
    assert.deepEqual(allowing.policy.allowCommands, ['npm test'], 'a parent that runs everything keeps every entry');
    assert.equal(asked.length, 1);
  });

  it('stops waiting for an answer when the call is cancelled', async () => {
    const controller = new AbortController();
    const gate = new PermissionGate({
      policy: policy({ execute: 'ask' }),
      ask: (_request, signal) => new Promise((resolve) => signal.addEventListener('abort', () => resolve('reject_once'))),
    });
    setTimeout(() => controller.abort(), 20);
    const result = await runTool.run(JSON.stringify({ command: 'x' }), toolContext(ws.workspace, controller.signal, { permissions: gate }));
    assert.equal(result.status, 'cancelled');
  });
});

describe('permission gate on protected paths', () => {
  const ws = tempWorkspace({ '.git/config': '[core]\n', 'src/a.ts': 'a\n' });
  const config = tempDir('crow-config-');
  after(() => {
    ws.remove();
    config.remove();
  });
  beforeEach(() => fs.writeFileSync(path.join(ws.root, '.git/config'), '[core]\n'));
  const protectedPaths = new ProtectedPaths({ root: ws.root, configHome: config.dir });
  const allowAll = policy({ write: 'allow', execute: 'allow' });
  const write = (gate: PermissionGate, file: string) =>
    writeFileTool.run(JSON.stringify({ path: file, content: 'changed\n' }), toolContext(ws.workspace, undefined, { permissions: gate }));
  const bash = (gate: PermissionGate, command: string, cwd?: string) =>
    bashTool.run(JSON.stringify({ command, ...(cwd ? { cwd } : {}) }), toolContext(ws.workspace, undefined, { permissions: gate }));

  it('asks for writes to .git, .crow and .vscode even when writes are allowed, and again after "always"', async () => {
    const { ask, asked } = scriptedAsk(['allow_always', 'allow_once', 'reject_once', 'reject_once']);
    const gate = new PermissionGate({ policy: allowAll, ask, protectedPaths }).forcing({ write: 'allow' });
    assert.equal((await write(gate, '.git/config')).status, 'success');
    assert.equal((await write(gate, './src/../.git/config')).status, 'success', 'asked again despite "always"');
    assert.equal((await write(gate, 'sub/.crow/config.toml')).status, 'error', 'a nested .crow is protected too');
    assert.equal((await write(gate, '.VSCode/tasks.json')).status, 'error', 'names compare without case');
    assert.equal((await write(gate, 'src/a.ts')).status, 'success', 'other files follow the policy');
    assert.deepEqual(asked.map((r) => r.protectedPaths), [['.git/config'], ['./src/../.git/config'], ['sub/.crow/config.toml'], ['.VSCode/tasks.json']]);
    assert.match(asked[0]!.alwaysScope, /all file changes, except changes to \.git\/config \(protected: asked every time\)/);
  });

  it('denies protected writes when nobody can be asked, saying why, and leaves the file alone', async () => {
    const gate = new PermissionGate({ policy: allowAll, protectedPaths });
    const result = await write(gate, '.git/config');
    assert.equal(result.status, 'error');
    assert.match(result.error!, /\.git\/config, a protected path .* asked every time whatever the settings, and nobody can be asked/);
    assert.equal(fs.readFileSync(path.join(ws.root, '.git/config'), 'utf8'), '[core]\n');
  });

  it("still asks for a protected path when a pre_tool_use hook allowed the call", async () => {
    const { ask, asked } = scriptedAsk(['reject_once']);
    const gate = new PermissionGate({ policy: allowAll, ask, protectedPaths });
    const hooked = toolContext(ws.workspace, undefined, { permissions: gate, hookDecision: { rule: 'allow' } });
    const result = await writeFileTool.run(JSON.stringify({ path: '.git/config', content: 'changed\n' }), hooked);
    assert.equal(result.status, 'error');
    assert.deepEqual(asked.map((request) => request.protectedPaths), [['.git/config']]);
    assert.equal(fs.readFileSync(path.join(ws.root, '.git/config'), 'utf8'), '[core]\n');
  });

  it("protects the user's Crow config folder and paths reaching .git through a symlink", async () => {
    fs.symlinkSync(path.join(ws.root, '.git'), path.join(ws.root, 'innocent'));
    const gate = new PermissionGate({ policy: allowAll, protectedPaths });
    assert.match((await write(gate, 'innocent/config')).error!, /protected path/);
    assert.match((await bash(gate, `echo x > ${path.join(config.dir, 'config.toml')}`)).error!, /protected path/);
    assert.ok(!fs.existsSync(path.join(config.dir, 'config.toml')));
  });

  it("asks for commands whose redirections or writers target protected paths, whatever the policy", async () => {
    const gate = new PermissionGate({ policy: allowAll, protectedPaths });
    for (const command of [
      'echo "[core] fsmonitor = x" >> .git/config',
      'git config core.fsmonitor "touch pwned"',
      'cp /dev/null .crow/config.toml',
      'echo x | tee -a .vscode/settings.json',
      'cd .git && echo x > config',
      'mv .git/hooks hooks.old',
      'sed -i s/a/b/ .git/config',
    ]) {
      const result = await bash(gate, command);
      assert.match(result.error ?? '', /protected path/, command);
    }
    assert.match((await bash(gate, 'echo x > config', '.git')).error!, /protected path/, 'relative to the working folder');
    assert.equal((await bash(gate, 'echo ok > out.txt')).status, 'success', 'other writes follow the policy');
    assert.equal(fs.readFileSync(path.join(ws.root, '.git/config'), 'utf8'), '[core]\n');
  });
});

describe('permission gate: Modify (a person edits the arguments, then allows)', () => {
  const ws = tempWorkspace({ '.git/config': '[core]\n', 'src/a.ts': 'a\n' });
  const config = tempDir('crow-config-');
  after(() => {
    ws.remove();
    config.remove();
  });
  const protectedPaths = new ProtectedPaths({ root: ws.root, configHome: config.dir });
  /** An asker that answers each request with the next reply, recording what it was asked. */
  const replies = (...answers: PermissionReply[]) => {
    const asked: PermissionRequest[] = [];
    return { asked, ask: async (request: PermissionRequest) => (asked.push(request), answers.shift() ?? 'reject_once') };
  };
  const write = (gate: PermissionGate, file: string) =>
    writeFileTool.run(JSON.stringify({ path: file, content: 'model\n' }), toolContext(ws.workspace, undefined, { permissions: gate }));

  it('offers the arguments and their check; an edit that fits runs in place of the model\'s, which is told', async () => {
    const { ask, asked } = replies({ modified: { path: 'src/b.ts', content: 'person\n' } });
    const result = await write(new PermissionGate({ policy: DEFAULT_POLICY, ask, protectedPaths }), 'src/new.ts');
    assert.equal(result.status, 'success', result.error);
    assert.deepEqual(asked[0]!.editable!.arguments, { path: 'src/new.ts', content: 'model\n' });
    assert.match(asked[0]!.editable!.check({ path: 3 }) ?? '', /^path: /);
    assert.equal(asked[0]!.editable!.check({ path: 'x', content: 'y' }), undefined);
    assert.equal(fs.readFileSync(path.join(ws.root, 'src/b.ts'), 'utf8'), 'person\n');
    assert.ok(!fs.existsSync(path.join(ws.root, 'src/new.ts')));
    assert.match(result.output, /\n\[The user edited this call's arguments before allowing it\. It ran with: \{"path":"src\/b\.ts","content":"person\\n"\}\]$/);
    assert.deepEqual(result.metadata.extra.editedArguments, { path: 'src/b.ts', content: 'person\n' });
    assert.equal(toolResultAttributes(result)['crow.tool.edited_arguments'], '{"path":"src/b.ts","content":"person\\n"}', 'the trace keeps both');
  });

  it("tells the model of a whole file's edited content without repeating all of it", async () => {
    const long = `${'x'.repeat(2_500)}\n`;
    const { ask } = replies({ modified: { path: 'src/long.ts', content: long } });
    const result = await write(new PermissionGate({ policy: DEFAULT_POLICY, ask, protectedPaths }), 'src/long.ts');
    assert.equal(fs.readFileSync(path.join(ws.root, 'src/long.ts'), 'utf8'), long, 'written whole');
    assert.match(result.output, /It ran with: \{"path":"src\/long\.ts","content":"x{2000}\[… 501 more characters the user wrote, not repeated here\]"\}\]$/);
  });

  it('takes arguments sent back unchanged (keys in any order) as a plain yes: no edit is told', async () => {
    const { ask } = replies({ modified: { content: 'model\n', path: 'src/same.ts' } });
    const result = await write(new PermissionGate({ policy: DEFAULT_POLICY, ask, protectedPaths }), 'src/same.ts');
    assert.equal(result.status, 'success');
    assert.equal(result.metadata.approval, 'allow_once');
    assert.doesNotMatch(result.output, /edited/);
    assert.equal(result.metadata.extra.editedArguments, undefined);
  });

  it('refuses an edit that does not fit, whatever the door sent', async () => {
    const { ask } = replies({ modified: { path: 42 } });
    const result = await write(new PermissionGate({ policy: DEFAULT_POLICY, ask, protectedPaths }), 'src/c.ts');
    assert.equal(result.status, 'error');
    assert.match(result.error ?? '', /edited arguments were not accepted \(path: /);
    assert.ok(!fs.existsSync(path.join(ws.root, 'src/c.ts')));
  });

  it('asks again, without another edit, when the edit reaches a protected path the call did not', async () => {
    const { ask, asked } = replies({ modified: { path: '.git/config', content: 'x\n' } }, 'reject_once');
    const result = await write(new PermissionGate({ policy: DEFAULT_POLICY, ask, protectedPaths }), 'src/d.ts');
    assert.equal(result.status, 'error');
    assert.equal(asked.length, 2);
    assert.deepEqual(asked[1]!.protectedPaths, ['.git/config']);
    assert.equal(asked[1]!.editable, undefined, 'no second edit is offered');
    assert.equal(fs.readFileSync(path.join(ws.root, '.git/config'), 'utf8'), '[core]\n');
  });

  it("keeps the policy's denials and remembered nevers for the edited call", async () => {
    const { ask } = replies('reject_always', { modified: { command: 'rm -rf build' } });
    const gate = new PermissionGate({ policy: DEFAULT_POLICY, ask, protectedPaths });
    const ctx = toolContext(ws.workspace, undefined, { permissions: gate });
    assert.equal((await runTool.run(JSON.stringify({ command: 'rm -rf build' }), ctx)).status, 'error');
    const edited = await runTool.run(JSON.stringify({ command: 'ls' }), ctx);
    assert.equal(edited.status, 'error');
    assert.match(edited.error ?? '', /rejected commands starting with "rm -rf build" for this session \(the call as the user edited it\)\.$/);
  });
});
