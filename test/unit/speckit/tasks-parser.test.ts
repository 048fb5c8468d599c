import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { filesIn, parseTasks, TasksFileError } from '../../../src/speckit/tasks-parser';
import { setTaskDone } from '../../../src/speckit/task-ticks';

const fixture = (name: string) => readFileSync(join(__dirname, '../../fixtures/speckit', name), 'utf8');

function problemsOf(text: string): { line: number; message: string }[] {
  try {
    parseTasks(text);
  } catch (err) {
    assert.ok(err instanceof TasksFileError);
    return err.problems;
  }
  assert.fail('expected the file to be rejected');
}

describe('speckit: the tasks.md parser', () => {
  it('reads a Spec Kit-shaped file: ids, done state, [P], stories, phases, checkpoints, files and dependencies', () => {
    const parsed = parseTasks(fixture('tasks-valid.md'));
    assert.equal(parsed.title, 'Tasks: Photo Albums');
    assert.deepEqual(
      parsed.phases.map((p) => [p.number, p.title]),
      [
        ['1', 'Setup (Shared Infrastructure)'],
        ['2', 'Foundational (Blocking Prerequisites)'],
        ['3', 'User Story 1 - Browse albums by date (Priority: P1) 🎯 MVP'],
        ['4', 'User Story 2 - Reorder albums (Priority: P2)'],
        ['5', 'Polish & Cross-Cutting Concerns'],
      ],
    );
    assert.deepEqual(parsed.tasks.map((t) => t.id), Array.from({ length: 15 }, (_, i) => `T${String(i + 1).padStart(3, '0')}`));
    assert.deepEqual(parsed.tasks.filter((t) => t.done).map((t) => t.id), ['T001', 'T002'], '[X] and [x] are both done');

    const story1 = parsed.phases[2]!;
    assert.equal(story1.story, 'US1');
    assert.equal(story1.priority, 'P1');
    assert.equal(story1.goal, 'Photos appear grouped into albums by the day they were taken');
    assert.equal(story1.independentTest, 'Import three photos from two days and see two albums');
    assert.equal(story1.checkpoint, 'User Story 1 works on its own');
    assert.equal(parsed.phases[0]!.purpose, 'Project skeleton and tooling');

    const t7 = parsed.tasks.find((t) => t.id === 'T007')!;
    assert.deepEqual([t7.parallel, t7.story, t7.phase, t7.group, t7.line], [true, 'US1', 2, 'Tests for User Story 1', 47]);
    assert.equal(t7.description, 'Unit test for grouping in tests/unit/grouping.test.ts');
    assert.deepEqual(t7.files, ['tests/unit/grouping.test.ts']);
    assert.deepEqual(parsed.tasks.find((t) => t.id === 'T010')!.dependsOn, ['T009'], 'from its own text');
    assert.deepEqual(parsed.tasks.find((t) => t.id === 'T013')!.dependsOn, ['T012'], 'from the dependencies section');
    assert.deepEqual(parsed.tasks.find((t) => t.id === 'T009')!.dependsOn, ['T004'], '"T004 before T009"');
    const notes = parseTasks('# Tasks\n\n- [ ] T005 A\n- [ ] T006 B\n- [ ] T007 C\n- [ ] T008 D\n- [ ] T009 E\n- [ ] T010 F\n\n## Dependencies\n\n- T006, T007 depend on T005\n- T008 and T010 need T009\n');
    const on = (id: string) => notes.tasks.find((t) => t.id === id)!.dependsOn;
    assert.deepEqual([on('T006'), on('T007'), on('T008'), on('T010'), on('T009')], [['T005'], ['T005'], ['T009'], ['T009'], []], 'notes naming several tasks');
    assert.ok(parsed.dependencyNotes.some((n) => /Foundational \(Phase 2\)/.test(n.message)));
    assert.equal(parsed.tasks.find((t) => t.id === 'T011')!.parallel, false);
    assert.deepEqual(parsed.warnings, []);
    assert.ok(!parsed.tasks.some((t) => t.id === 'T099'), 'code blocks hold no tasks');
  });

  it('reads messy files: bold ids, colons, tags in any order, numbered lists, old Phase 3.1 headings, sub-steps, comments', () => {
    const parsed = parseTasks(fixture('tasks-messy.md'));
    assert.deepEqual(parsed.tasks.map((t) => t.id), ['T001', 'T002', 'T003', 'T004', 'T005', 'T006', 'T007', 'T008']);
    assert.deepEqual(parsed.phases.map((p) => p.number), ['3.1', '3.2', '3.3', '3.4']);
    const [t1, t2, t3, t4, t5, t6, t7, t8] = parsed.tasks;
    assert.deepEqual(t1!.files, ['src/export/', 'tests/export/']);
    assert.equal(t2!.done, true);
    assert.equal(t2!.description, 'Add the csv-stringify dependency to package.json');
    assert.deepEqual([t3!.parallel, t3!.story], [true, 'US1']);
    assert.equal(t4!.description, 'Integration test in `tests/integration/export_flow.test.ts`');
    assert.deepEqual(t4!.files, ['tests/integration/export_flow.test.ts']);
    assert.deepEqual(t5!.dependsOn, ['T003', 'T004']);
    assert.deepEqual(t6!.tags, ['Backend']);
    assert.deepEqual(t6!.dependsOn, ['T005']);
    assert.deepEqual(t7!.files, [], 'Node.js and e.g. are not files');
    assert.match(t7!.description, /\[NEEDS CLARIFICATION: row limit\?\]$/);
    assert.deepEqual([t8!.done, t8!.parallel, t8!.files], [true, true, ['README.md']]);
  });

  it('reads CRLF files and files with no phase headings', () => {
    const parsed = parseTasks('# Tasks\r\n\r\n- [ ] T001 First in a.ts\r\n- [X] T002 Second\r\n');
    assert.deepEqual(parsed.tasks.map((t) => [t.id, t.done, t.description]), [['T001', false, 'First in a.ts'], ['T002', true, 'Second']]);
    assert.equal(parsed.phases.length, 1);
  });

  it('rejects broken files with every problem on its line', () => {
    const problems = problemsOf(fixture('tasks-broken.md'));
    assert.deepEqual(
      problems.map((p) => p.line),
      [6, 7, 11, 12, 13, 14],
    );
    assert.match(problems[0]!.message, /checkbox without a task id/);
    assert.match(problems[1]!.message, /"\[v\]" must be "\[ \]" \(to do\) or "\[X\]" \(done\)/);
    assert.match(problems[2]!.message, /"\[P\?\]" is a placeholder/);
    assert.match(problems[3]!.message, /T001 is used twice \(also on line 5\)/);
    assert.match(problems[4]!.message, /"TXXX" is a placeholder/);
    assert.match(problems[5]!.message, /T004 has no description/);
  });

  it('says where to look in the error message itself', () => {
    try {
      parseTasks('# Tasks\n\n## Phase 1: Setup\n\n- [ ] Set things up\n', 'specs/001-x/tasks.md');
      assert.fail('expected an error');
    } catch (err) {
      assert.match((err as Error).message, /specs\/001-x\/tasks\.md:5: a checkbox without a task id/);
      assert.match((err as Error).message, /run \/speckit\.tasks again/);
    }
  });

  it('rejects a file without tasks, and warns about dependencies it cannot honour', () => {
    assert.match(problemsOf('# Tasks\n\nNothing yet.\n')[0]!.message, /no tasks found/);
    const parsed = parseTasks('## Phase 1: A\n- [ ] T001 One (depends on T002)\n- [ ] T002 Two (after T009)\n');
    assert.deepEqual(parsed.warnings.map((w) => w.line), [2, 3]);
    assert.match(parsed.warnings[0]!.message, /comes later in the file/);
    assert.match(parsed.warnings[1]!.message, /T009, which is not a task/);
  });

  it('finds paths in descriptions without mistaking prose for files', () => {
    assert.deepEqual(filesIn('Create User model in src/models/user.py and update `README.md`.'), ['README.md', 'src/models/user.py']);
    assert.deepEqual(filesIn('Use Vue.js, i.e. the framework, see https://example.com/x.ts'), []);
  });
});

describe('speckit: ticking a task in tasks.md', () => {
  it('changes only the checkbox of that task, keeping CRLF endings and every other byte', () => {
    const text = '# Tasks\r\n\r\n```\r\n- [ ] T002 in code\r\n```\r\n- [ ] T001 First\r\n  * [ ]  **T002** Second [P]\r\n';
    const ticked = setTaskDone(text, 'T002', true);
    assert.equal(ticked.text, text.replace('  * [ ]  **T002**', '  * [X]  **T002**'));
    assert.deepEqual([ticked.changed, ticked.line], [true, 7]);
    const back = setTaskDone(ticked.text, 'T002', false);
    assert.equal(back.text, text);
  });

  it('leaves a task that is already in the wanted state alone, and refuses a task that is gone', () => {
    const text = '- [x] T001 Done already\n';
    assert.deepEqual(setTaskDone(text, 'T001', true), { text, changed: false, line: 1 });
    assert.throws(() => setTaskDone(text, 'T007', true), /Task T007 is no longer in tasks\.md/);
  });

  it('ticks a task in the valid fixture and the file still parses the same otherwise', () => {
    const text = fixture('tasks-valid.md');
    const { text: after } = setTaskDone(text, 'T009', true);
    const before = parseTasks(text);
    const parsed = parseTasks(after);
    assert.equal(parsed.tasks.find((t) => t.id === 'T009')!.done, true);
    assert.deepEqual(
      parsed.tasks.map((t) => ({ ...t, done: t.id === 'T009' ? false : t.done })),
      before.tasks,
    );
    assert.equal(after.split('\n').filter((line, i) => line !== text.split('\n')[i]).length, 1);
  });
});
