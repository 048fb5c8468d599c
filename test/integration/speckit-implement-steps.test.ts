/**
 * /speckit.implement's own steps as Spec Kit has them (issue 44), through
 * the real binary: the checklist gate that stops the run exits 1 so CI sees
 * it; the ignore-file step creates or completes .gitignore and its kin from
 * the plan's technologies before any task, never touching the person's
 * lines; and [P] tasks on a model server of one's own say why they run one
 * at a time and how to change it.
 */
import assert from 'node:assert/strict';
import { FakeLlmServer, type ScriptedReply } from '../../testkit/fake-llm-server';
import { SPEC } from '../support/speckit';
import { requestTexts, type SpeckitRepo, speckitRepo } from '../support/speckit-repo';

const FEATURE = 'specs/001-notes';
const PLAN = `# Implementation Plan: Notes

## Technical Context

**Language/Version**: TypeScript 5 on Node.js 20
**Target Platform**: a Docker image on Linux

## Constitution Check

- Tests first.
`;
const complete = (summary: string): ScriptedReply => ({ blocks: [{ type: 'tool_call', name: 'task_complete', arguments: { summary } }] });
/** Workers say what they did, reviewers approve. */
const answer = (body: Record<string, unknown>): ScriptedReply => {
  const seen = JSON.stringify(body);
  return seen.includes('reports on the task below') ? complete('Approved.') : complete(`Did ${/Carry out task (T\d+)/.exec(seen)?.[1] ?? 'it'}.`);
};

describe('/speckit.implement steps through crow run', function () {
  this.timeout(60_000);
  let llm: FakeLlmServer;
  let repo: SpeckitRepo;

  before(async () => (llm = await FakeLlmServer.start()));
  after(() => llm.close());
  beforeEach(() => llm.reset());
  afterEach(() => repo?.remove());

  function feature(tasks: string): void {
    repo.write(`${FEATURE}/spec.md`, SPEC);
    repo.write(`${FEATURE}/plan.md`, PLAN);
    repo.write(`${FEATURE}/tasks.md`, tasks);
    repo.write('.specify/feature.json', `{"feature_directory": "${FEATURE}"}\n`);
  }

  it('exits 1 when the checklist gate stops the run, saying how to go on', async () => {
    repo = speckitRepo(llm);
    feature('# Tasks\n\n## Phase 1: Setup\n\n- [ ] T001 Create src/notes.ts\n');
    repo.write(`${FEATURE}/checklists/security.md`, '# Security\n\n- [ ] CHK001 Secrets never logged\n');
    const stopped = await repo.crow('/speckit.implement', ['--allow', 'all']);
    assert.equal(stopped.code, 1, 'CI sees the stop');
    assert.match(stopped.stdout + stopped.stderr, /Some checklists have unchecked items \(security\.md 0\/1\), and nobody can be asked here, so implementation did not start\. Complete them, or run \/speckit\.implement --proceed to go on anyway\./);
    assert.equal(llm.requestsFor('anthropic').length, 0);
  });

  it("creates or completes the ignore files the plan's technologies need before any task, appending only what is missing", async () => {
    repo = speckitRepo(llm, { git: 'main' });
    feature('# Tasks\n\n## Phase 1: Setup\n\n- [ ] T001 Create src/notes.ts\n');
    const mine = '# my own\nnode_modules\n/dist\nsecrets.txt';
    repo.write('.gitignore', mine);
    llm.respondWith('anthropic', answer);
    const run = await repo.crow('/speckit.implement', ['--allow', 'all']);
    assert.equal(run.code, 0, run.stdout + run.stderr);
    const gitignore = repo.read('.gitignore');
    assert.ok(gitignore.startsWith(`${mine}\n\n# Added by /speckit.implement (ignore-file check)\n`), 'the person\'s lines first, byte for byte');
    const added = gitignore.slice(mine.length).split('\n').filter((line) => line !== '' && !line.startsWith('#'));
    assert.deepEqual(added, ['build/', '*.log', '.env*', '.DS_Store', 'Thumbs.db', '*.tmp', '*.swp', '.vscode/', '.idea/'], 'node_modules and dist were there already (as node_modules and /dist)');
    assert.match(repo.read('.dockerignore'), /^# Added by \/speckit\.implement \(ignore-file check\)\nnode_modules\/\n\.git\/\nDockerfile\*\n/);
    const shown = run.stdout;
    assert.match(shown, /Ignore files, before the tasks:\n- \.gitignore for a git repository; the plan names Node\.js: appended what it lacked \(build\/, .*\), your lines untouched\n- \.dockerignore for Docker in the plan: created/);
    assert.ok(shown.indexOf('Ignore files, before the tasks') < shown.indexOf('T001'), 'before the first task');

    llm.reset();
    repo.write(`${FEATURE}/tasks.md`, '# Tasks\n\n## Phase 1: Setup\n\n- [ ] T002 Create src/more.ts\n');
    llm.respondWith('anthropic', answer);
    const again = await repo.crow('/speckit.implement', ['--allow', 'all']);
    assert.equal(again.code, 0, again.stdout + again.stderr);
    assert.equal(repo.read('.gitignore'), gitignore, 'nothing added twice');
    assert.doesNotMatch(again.stdout, /Ignore files/);
  });

  it('says [P] tasks run one at a time on a model server of your own because limits.concurrency.local is 1, and how to raise it', async () => {
    repo = speckitRepo(llm);
    const tasks = '# Tasks\n\n## Phase 1: Core\n\n- [ ] T001 [P] Export in src/export.ts\n- [ ] T002 [P] Import in src/import.ts\n';
    feature(tasks);
    llm.respondWith('anthropic', answer);
    const alone = await repo.crow('/speckit.implement', ['--allow', 'all']);
    assert.equal(alone.code, 0, alone.stdout + alone.stderr);
    assert.match(alone.stdout, /\[P\] tasks T001, T002 run one at a time: the model server is one of your own, and limits\.concurrency\.local is 1 by default \(one request at a time\)\. If it can answer more at once, raise it in config\.toml: \[limits\] concurrency = \{ local = 2 \}\./);
    assert.ok(requestTexts(llm).every((body) => !body.includes('Running at the same time')));

    repo.write(`${FEATURE}/tasks.md`, tasks);
    repo.userConfig('[limits]\nconcurrency = { local = 2 }\n');
    llm.reset();
    llm.respondWith('anthropic', answer);
    const together = await repo.crow('/speckit.implement', ['--allow', 'all']);
    assert.equal(together.code, 0, together.stdout + together.stderr);
    assert.doesNotMatch(together.stdout, /one at a time/);
    assert.ok(requestTexts(llm).some((body) => body.includes('Running at the same time')), 'side by side now');
  });
});
