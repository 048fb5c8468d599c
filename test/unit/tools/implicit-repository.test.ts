import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { z } from 'zod';
import { judgeCommand } from '../../../src/tools/command-rules';
import { defineTool } from '../../../src/tools/define-tool';
import { implicitRepositoriesMet } from '../../../src/tools/implicit-repository';
import { PermissionGate, type PermissionAnswer, type PermissionRequest } from '../../../src/tools/permissions';
import { ProtectedPaths } from '../../../src/tools/protected-paths';
import { DEFAULT_POLICY } from '../../../src/vocabulary/permission-types';
import { tempDir, tempWorkspace, toolContext } from './temp-workspace';

/** HEAD, objects/ and refs/ in `folder`: what git takes for a bare repository. */
function plantBare(folder: string): void {
  fs.mkdirSync(path.join(folder, 'objects'), { recursive: true });
  fs.mkdirSync(path.join(folder, 'refs'), { recursive: true });
  fs.writeFileSync(path.join(folder, 'HEAD'), 'ref: refs/heads/main\n');
  fs.writeFileSync(path.join(folder, 'config'), '[core]\n\tfsmonitor = touch pwned\n');
}

describe('repositories git finds by itself', () => {
  let root: string;
  let remove: () => void;
  const met = (line: string, cwd = '.'): string[] => implicitRepositoriesMet(judgeCommand(line), path.resolve(root, cwd)).map((folder) => path.relative(root, folder) || '.');

  beforeEach(() => ({ dir: root, remove } = tempDir('crow-implicit-')));
  afterEach(() => remove());

  it('finds a bare repository planted where git starts, above it, or where the line changes into', () => {
    plantBare(path.join(root, 'planted'));
    fs.mkdirSync(path.join(root, 'planted', 'deeper'), { recursive: true });
    fs.mkdirSync(path.join(root, 'plain'));
    assert.deepEqual(met('git status', 'planted'), ['planted']);
    assert.deepEqual(met('git log', 'planted/deeper'), ['planted'], 'discovery walks up as git does');
    assert.deepEqual(met('cd planted && git status'), ['planted']);
    assert.deepEqual(met('git -C planted status'), ['planted']);
    assert.deepEqual(met('cd plain; git -C ../planted/deeper diff'), ['planted'], '-C relative to the folder the line moved to');
    assert.deepEqual(met('git status'), [], 'the root holds no repository');
    assert.deepEqual(met('ls', 'planted'), [], 'a line that runs no git meets none');
  });

  it('takes HEAD with a commondir file for a repository too, and stops where git finds a .git first', () => {
    fs.mkdirSync(path.join(root, 'linked'));
    fs.writeFileSync(path.join(root, 'linked', 'HEAD'), 'ref: refs/heads/main\n');
    fs.writeFileSync(path.join(root, 'linked', 'commondir'), '../.git\n');
    assert.deepEqual(met('git status', 'linked'), ['linked']);
    plantBare(root);
    fs.mkdirSync(path.join(root, '.git'));
    fs.mkdirSync(path.join(root, 'src'));
    assert.deepEqual(met('git status', 'src'), [], 'git takes the root\'s .git before looking at the root itself');
    assert.deepEqual(met('git status', '.git'), [], 'a .git folder is git\'s own, never implicit');
  });
});

const runTool = defineTool({
  name: 'run',
  description: 'Runs a command (test double).',
  kind: 'execute',
  permission: 'execute',
  parameters: z.object({ command: z.string(), cwd: z.string().optional() }),
  approval: ({ command, cwd }) => ({ title: `Run: ${command}`, command, ...(cwd !== undefined ? { cwd } : {}) }),
  async execute({ command }, ctx) {
    return { output: `ran ${command}${ctx.coveredByEntries ? ' (covered)' : ''}` };
  },
});

describe('permission gate on a planted repository', () => {
  const ws = tempWorkspace();
  after(() => ws.remove());
  beforeEach(() => plantBare(path.join(ws.root, 'planted')));
  afterEach(() => fs.rmSync(path.join(ws.root, 'planted'), { recursive: true, force: true }));
  const protectedPaths = new ProtectedPaths({ root: ws.root });
  const entries = { ...DEFAULT_POLICY, rules: { ...DEFAULT_POLICY.rules, execute: 'ask' as const }, allowCommands: ['git status', 'ls'] };
  const call = (gate: PermissionGate, command: string, cwd?: string) =>
    runTool.run(JSON.stringify({ command, ...(cwd ? { cwd } : {}) }), toolContext(ws.workspace, undefined, { permissions: gate }));
  const asking = (answers: PermissionAnswer[]) => {
    const asked: PermissionRequest[] = [];
    return { asked, ask: async (request: PermissionRequest) => (asked.push(request), answers.shift() ?? 'reject_once') };
  };

  it('asks for an allow-listed git command that would use it, saying why, and again after "always"', async () => {
    const { ask, asked } = asking(['allow_always', 'allow_once']);
    const gate = new PermissionGate({ policy: entries, ask, protectedPaths });
    assert.equal((await call(gate, 'git status', 'planted')).output, 'ran git status', 'a person allowed it: it runs as they saw it');
    assert.equal((await call(gate, 'cd planted && git status')).output, 'ran cd planted && git status');
    assert.equal(asked.length, 2, 'the "always" did not cover the planted repository');
    assert.match(asked[0]!.alwaysScope, /commands starting with "git status"; asked every time: git would use planted as a repository of its own/);
    assert.equal((await call(gate, 'ls', 'planted')).output, 'ran ls (covered)', 'a line without git is not asked for it');
    assert.equal((await call(gate, 'git status')).output, 'ran git status (covered)', 'elsewhere the entry covers git status');
  });

  it('tells a run where nobody can be asked which folder it is and what to do', async () => {
    const gate = new PermissionGate({ policy: entries, protectedPaths, howToAllow: (category) => `pass --allow ${category}` });
    const result = await call(gate, 'git -C planted log');
    assert.equal(result.status, 'error');
    assert.match(result.error!, /nobody can be asked .*\(Git would use planted as a repository of its own .*a bare repository, whose config can name programs git runs.*unless you made it, remove those files\.\)/);
  });

  it('marks only calls that entries let run unasked as covered', async () => {
    const { ask } = asking(['allow_once']);
    const gate = new PermissionGate({ policy: entries, ask, protectedPaths });
    fs.rmSync(path.join(ws.root, 'planted'), { recursive: true });
    assert.equal((await call(gate, 'git status')).output, 'ran git status (covered)', 'by the configured allow-list');
    assert.equal((await call(gate, 'make')).output, 'ran make', 'by a person');
    const allowAll = new PermissionGate({ policy: { ...entries, rules: { ...entries.rules, execute: 'allow' } }, protectedPaths });
    assert.equal((await call(allowAll, 'git status')).output, 'ran git status', 'by a policy that allows every command');
  });
});
