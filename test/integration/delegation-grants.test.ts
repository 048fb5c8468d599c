/**
 * What the user grants on the command line reaches every agent the run
 * delegates to (issue 28, "Delegation drops what the user granted"):
 * /speckit.implement's workers and a task subagent write under --allow,
 * and a reviewer is told about calls that were refused and cannot approve
 * them away silently. Through the real binary against the fake LLM server.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { FakeLlmServer, type ScriptedReply } from '../../testkit/fake-llm-server';
import { runCrow } from '../support/crow-binary';
import { isolatedEnv } from '../support/isolated-env';
import { completes, PLAN, SPEC } from '../support/speckit';

const FEATURE = 'specs/001-notes';

const call = (name: string, args: Record<string, unknown>): ScriptedReply => ({ blocks: [{ type: 'tool_call', name, arguments: args }] });

describe('delegation keeps what the user granted (crow run --allow)', function () {
  this.timeout(60_000);
  let llm: FakeLlmServer;
  let home: string;
  let root: string;
  let env: NodeJS.ProcessEnv;

  before(async () => (llm = await FakeLlmServer.start()));
  after(() => llm.close());
  beforeEach(() => {
    llm.reset();
    home = realpathSync(mkdtempSync(join(tmpdir(), 'crow-grants-home-')));
    root = realpathSync(mkdtempSync(join(tmpdir(), 'crow-grants-ws-')));
    env = isolatedEnv(home, { ANTHROPIC_API_KEY: 'k', ANTHROPIC_BASE_URL: llm.anthropicBaseUrl });
  });
  afterEach(() => {
    rmSync(home, { recursive: true, force: true });
    rmSync(root, { recursive: true, force: true });
  });

  const write = (path: string, text: string): void => {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  };

  it('/speckit.implement under --allow all: every worker writes its files and the tasks are ticked', async () => {
    write('.specify/feature.json', `{"feature_directory":"${FEATURE}"}\n`);
    write(`${FEATURE}/spec.md`, SPEC);
    write(`${FEATURE}/plan.md`, PLAN);
    write(`${FEATURE}/tasks.md`, '# Tasks\n\n## Phase 1: Setup\n\n- [ ] T001 Create package.json\n- [ ] T002 Create src/notes.js\n');
    llm.enqueue(
      'anthropic',
      call('write_file', { path: 'package.json', content: '{"name":"notes"}\n' }),
      completes('Wrote package.json.'),
      completes('package.json is there.'),
      call('write_file', { path: 'src/notes.js', content: 'module.exports = {};\n' }),
      completes('Wrote src/notes.js.'),
      completes('src/notes.js is there.'),
    );
    const run = await runCrow(['run', '--allow', 'all', '/speckit.implement'], env, root);
    assert.equal(run.code, 0, run.stdout + run.stderr);
    assert.equal(readFileSync(join(root, 'package.json'), 'utf8'), '{"name":"notes"}\n', 'the worker wrote package.json');
    assert.equal(readFileSync(join(root, 'src/notes.js'), 'utf8'), 'module.exports = {};\n');
    assert.match(readFileSync(join(root, FEATURE, 'tasks.md'), 'utf8'), /- \[X\] T001[\s\S]*- \[X\] T002/);
    assert.doesNotMatch(run.stdout + run.stderr, /Permission needed/);
  });

  it('a task subagent writes under --allow write, as its parent may', async () => {
    llm.enqueue(
      'anthropic',
      call('task', { agent: 'worker', task: 'Create notes.txt saying hello.' }),
      call('write_file', { path: 'notes.txt', content: 'hello\n' }),
      { blocks: [{ type: 'text', text: 'Created notes.txt.' }] },
      { blocks: [{ type: 'text', text: 'The worker created notes.txt.' }] },
    );
    const run = await runCrow(['run', '--allow', 'write', 'Have a worker create notes.txt'], env, root);
    assert.equal(run.code, 0, run.stdout + run.stderr);
    assert.equal(readFileSync(join(root, 'notes.txt'), 'utf8'), 'hello\n');
  });

  it("a reviewer is shown the worker's refused calls, and an approval of that work says they were refused", async () => {
    llm.enqueue(
      'anthropic',
      call('task', { agent: 'task-pair', task: 'Write the release notes to NOTES.md.' }),
      call('write_file', { path: 'NOTES.md', content: '# Notes\n' }),
      completes('Wrote NOTES.md.'),
      completes('Looks done.'),
      { blocks: [{ type: 'text', text: 'Done.' }] },
    );
    const run = await runCrow(['run', '--allow', 'execute', 'Release notes through a reviewed worker'], env, root);
    assert.equal(run.code, 0, run.stdout + run.stderr);
    const reviewerRequest = llm.requestsFor('anthropic').map((request) => JSON.stringify(request.body)).find((text) => text.includes('Tool calls that were refused'));
    assert.ok(reviewerRequest, "the reviewer's brief lists the refused calls");
    assert.match(reviewerRequest, /write_file: Permission needed for (Write|Create) NOTES\.md/);
    const parentResult = JSON.stringify(llm.requestsFor('anthropic').at(-1)!.body);
    assert.match(parentResult, /tool calls were refused: write_file: Permission needed/, "the approval that reaches the parent says so");
    assert.ok(!existsSync(join(root, 'NOTES.md')), 'nothing was written');
  });
});
