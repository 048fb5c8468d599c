/**
 * Spec Kit 1.0's commands and /speckit.implement as its users run them
 * (issue 28), through the real binary in a `specify init` repository:
 * /speckit.converge, /speckit.taskstoissues without gh (with gh: speckit-issues.test.ts), the
 * skills spelling, unknown commands; the checklist gate, [P] batches that
 * never cross a sub-heading, dependency notes naming several tasks, a stop
 * report that quotes the reviewer, and subagent concurrency as a setting.
 */
import assert from 'node:assert/strict';
import { FakeLlmServer, type ScriptedReply } from '../../testkit/fake-llm-server';
import { PLAN, SPEC } from '../support/speckit';
import { requestTexts, type SpeckitRepo, speckitRepo, text, toolCall } from '../support/speckit-repo';

const FEATURE = 'specs/001-notes';
const complete = (summary: string, said?: string): ScriptedReply => ({
  blocks: [...(said ? [{ type: 'text' as const, text: said }] : []), { type: 'tool_call' as const, name: 'task_complete', arguments: { summary } }],
});

describe('Spec Kit 1.0 commands through crow run', function () {
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

  it('/speckit.converge appends the missing work; /speckit.taskstoissues says how to get gh (the rest: speckit-issues.test.ts)', async () => {
    repo = speckitRepo(llm);
    feature('# Tasks: Notes\n\n## Phase 1: Setup\n\n- [X] T001 Create src/notes.js\n\n## Phase 2: User Story 1 - Export (Priority: P1)\n\n- [ ] T002 [US1] Export in src/export.js (FR-001)\n');
    const appended = `${repo.read(`${FEATURE}/tasks.md`)}\n## Phase 3: Convergence\n\n- [ ] T003 Sort albums newest first in src/sort.js (FR-002)\n`;
    llm.enqueue('anthropic', toolCall('write_file', { path: `${FEATURE}/tasks.md`, content: appended }), text('Added T003: FR-002 has no code.'));
    const converged = await repo.crow('/speckit.converge');
    assert.equal(converged.code, 0, converged.stdout + converged.stderr);
    assert.match(converged.stdout, /Converged specs\/001-notes: added 1 task \(T003\)/);
    assert.match(requestTexts(llm)[0]!, /numbering on from T003/);

    llm.reset();
    const noGh = await repo.crow('/speckit.taskstoissues', ['--allow', 'execute'], { PATH: '/usr/bin:/bin' });
    assert.notEqual(noGh.code, 0);
    assert.match(noGh.stdout + noGh.stderr, /makes issues with the GitHub CLI, gh, which is not installed .* run gh auth login/);

    assert.equal(llm.requestsFor('anthropic').length, 0, 'no model call');
  });

  it('takes the skills spelling /speckit-plan, and answers an unknown /speckit.* with a did-you-mean instead of prompting the model', async () => {
    repo = speckitRepo(llm);
    feature('# Tasks\n\n- [ ] T001 Do src/a.js\n');
    llm.enqueue('anthropic', toolCall('write_file', { path: `${FEATURE}/research.md`, content: '# Research\n' }), toolCall('write_file', { path: `${FEATURE}/plan.md`, content: `${PLAN}\n## More\n` }), text('Planned.'));
    const skills = await repo.crow('/speckit-plan use sqlite');
    assert.equal(skills.code, 0, skills.stdout + skills.stderr);
    assert.match(skills.stdout, /Planned specs\/001-notes/);
    const typo = await repo.crow('/speckit.pln use sqlite');
    assert.equal(typo.code, 2);
    assert.match(typo.stderr, /Unknown command "\/speckit\.pln"\. Did you mean "\/speckit\.plan"\?/);
    const unknown = await repo.crow('/speckit.deploy now');
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /Unknown command "\/speckit\.deploy"/);
    assert.equal(llm.requestsFor('anthropic').length, 3, 'only /speckit-plan reached the model');
  });

  it('stops on an incomplete checklist unless the user confirms (--proceed)', async () => {
    repo = speckitRepo(llm);
    feature('# Tasks\n\n## Phase 1: Setup\n\n- [ ] T001 Create src/notes.js\n');
    repo.write(`${FEATURE}/checklists/requirements.md`, '# Requirements\n\n- [X] CHK001 Testable\n- [ ] CHK002 Measurable\n');
    const stopped = await repo.crow('/speckit.implement', ['--allow', 'all']);
    assert.match(stopped.stdout + stopped.stderr, /\| requirements\.md \| 2 \| 1 \| 1 \| ✗ FAIL \|/);
    assert.match(stopped.stdout + stopped.stderr, /Some checklists have unchecked items \(requirements\.md 1\/2\), and nobody can be asked here, so implementation did not start\. .*--proceed/);
    assert.equal(llm.requestsFor('anthropic').length, 0, 'no task started');
    assert.match(repo.read(`${FEATURE}/tasks.md`), /- \[ \] T001/);
    llm.enqueue('anthropic', complete('Created src/notes.js.'), complete('Approved.'));
    const proceeded = await repo.crow('/speckit.implement --proceed', ['--allow', 'all']);
    assert.equal(proceeded.code, 0, proceeded.stdout + proceeded.stderr);
    assert.match(repo.read(`${FEATURE}/tasks.md`), /- \[X\] T001/);
  });

  it('runs [P] tasks together only under one sub-heading and after what they depend on, and tells a worker of the others only when they really run beside it', async () => {
    repo = speckitRepo(llm);
    feature(
      [
        '# Tasks: Notes',
        '',
        '## Phase 3: User Story 1 - Export (Priority: P1)',
        '',
        '### Tests for User Story 1',
        '',
        '- [ ] T003 [P] [US1] Test export in tests/export.test.js',
        '- [ ] T004 [P] [US1] Test import in tests/import.test.js',
        '',
        '### Implementation for User Story 1',
        '',
        '- [ ] T005 [P] [US1] Export in src/export.js',
        '- [ ] T006 [P] [US1] Import in src/import.js',
        '- [ ] T007 [P] [US1] Format in src/format.js',
        '',
        '## Dependencies & Execution Order',
        '',
        '- T006, T007 depend on T005',
        '',
      ].join('\n'),
    );
    const answer = (body: Record<string, unknown>): ScriptedReply => {
      const seen = JSON.stringify(body);
      if (seen.includes('reports on the task below')) return complete('Approved.');
      return complete(`Did ${/Carry out task (T\d+)/.exec(seen)?.[1] ?? 'it'}.`);
    };
    repo.userConfig('[subagents]\nconcurrency = 3\n');
    llm.respondWith('anthropic', answer);
    const run = await repo.crow('/speckit.implement', ['--allow', 'all']);
    assert.equal(run.code, 0, run.stdout + run.stderr);
    const workers = requestTexts(llm).filter((body) => /Carry out task T\d+/.test(body) && !body.includes('reports on the task below'));
    const prompt = (id: string) => workers.find((body) => new RegExp(`Carry out task ${id}\\b`).test(body))!;
    assert.match(prompt('T003'), /Running at the same time, by other agents[^#]*T004/);
    assert.doesNotMatch(prompt('T003'), /T005 \[P\]/, 'the tests are written before the implementation under the next heading');
    assert.doesNotMatch(prompt('T005'), /Running at the same time/, 'T006 and T007 wait for T005');
    assert.match(prompt('T006'), /Running at the same time, by other agents[^#]*T007/);
    assert.match(repo.read(`${FEATURE}/tasks.md`), /- \[X\] T003[\s\S]*- \[X\] T007/);

    llm.reset();
    repo.write(`${FEATURE}/tasks.md`, repo.read(`${FEATURE}/tasks.md`).replace(/\[X\]/g, '[ ]'));
    repo.userConfig('[subagents]\nconcurrency = 1\n');
    llm.respondWith('anthropic', answer);
    const alone = await repo.crow('/speckit.implement', ['--allow', 'all']);
    assert.equal(alone.code, 0, alone.stdout + alone.stderr);
    assert.ok(requestTexts(llm).every((body) => !body.includes('Running at the same time')), 'one at a time: nobody is told of others');
  });

  it("quotes the reviewer's objection when a task is not approved, not the worker's last words", async () => {
    repo = speckitRepo(llm);
    feature('# Tasks\n\n## Phase 1: Core\n\n- [ ] T001 Export notes in src/export.js\n');
    const objection = 'The export drops the title line of each note.';
    llm.enqueue(
      'anthropic',
      ...[1, 2, 3].flatMap(() => [complete('Exported.', 'Exported the notes, all good.'), text(objection)]),
    );
    const run = await repo.crow('/speckit.implement', ['--allow', 'all']);
    assert.notEqual(run.code, 0);
    const shown = run.stdout + run.stderr;
    assert.match(shown, /Stopped in specs\/001-notes, phase "Core": T001: .*The export drops the title line of each note\./);
    assert.doesNotMatch(shown.split('Stopped in')[1]!, /Exported the notes, all good/);
    assert.match(repo.read(`${FEATURE}/tasks.md`), /- \[ \] T001/);
  });
});
