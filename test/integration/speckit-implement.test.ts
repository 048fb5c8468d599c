import assert from 'node:assert/strict';
import type { AgentEvent } from '../../src/engine/events';
import { FakeLlmServer } from '../../testkit/fake-llm-server';
import { completes, PLAN, requestText, SPEC, type SpeckitProject, speckitProject } from '../support/speckit';

const DIR = 'specs/001-albums';
const TASKS_PATH = `${DIR}/tasks.md`;

function tasksFile(lines: string[]): string {
  return `# Tasks: Albums\n\n## Phase 1: Core\n\n${lines.map((line) => `- [ ] ${line}`).join('\n')}\n\n## Phase 2: Polish\n\n- [ ] T009 Write docs/albums.md\n`;
}

const feedback = (text: string) => ({ blocks: [{ type: 'text' as const, text }] });

describe('speckit: /speckit.implement', () => {
  let server: FakeLlmServer;
  let project: SpeckitProject;

  before(async () => (server = await FakeLlmServer.start()));
  after(() => server.close());
  beforeEach(() => server.reset());
  afterEach(() => project.dispose());

  function setup(tasks: string, concurrency = 1): void {
    project = speckitProject(server, { concurrency });
    project.write(`${DIR}/spec.md`, SPEC);
    project.write(`${DIR}/plan.md`, PLAN);
    project.write(TASKS_PATH, tasks);
    project.write('.specify/feature.json', `{"feature_directory": "${DIR}"}`);
  }

  it('runs neighbouring [P] tasks at the same time as subagents under the provider queue (both requests open at once)', async () => {
    setup(tasksFile(['T001 [P] Group photos in src/group.ts', 'T002 [P] Sort albums in src/sort.ts']), 2);
    server.enqueue('openai', completes('Worked.', 30), completes('Worked.', 30), completes('Approved.'), completes('Approved.'), completes('Docs.'), completes('Approved.'));
    const { result, events } = await project.command('speckit.implement');
    assert.equal(result.status, 'completed', result.message);
    assert.equal(server.peakConcurrency('openai'), 2, 'the two workers were answered at the same time');
    const [first, second] = [0, 1].map((i) => requestText(server, i));
    assert.match(`${first}\n${second}`, /Carry out task T001/);
    assert.match(`${first}\n${second}`, /Carry out task T002/);
    assert.match(first, /Running at the same time, by other agents/);

    const starts = events.filter((e): e is Extract<AgentEvent, { type: 'tool_call_start' }> => e.type === 'tool_call_start' && e.agent === 'speckit');
    assert.deepEqual(starts.map((e) => e.summary.split(' ', 2).join(' ')), ['task-pair: T001', 'task-pair: T002', 'task-pair: T009']);
    const firstEnd = events.findIndex((e) => e.type === 'tool_call_end' && e.agent === 'speckit');
    assert.ok(events.indexOf(starts[1]!) < firstEnd, 'T002 started before T001 ended');
    for (const start of starts) {
      assert.ok(events.some((e) => e.type === 'subagent_start' && e.callId === start.callId), 'subagent events land in the task call');
      assert.ok(events.some((e) => e.type === 'subagent_end' && e.callId === start.callId && e.status === 'completed'));
    }
    assert.equal(project.read(TASKS_PATH), tasksFile(['T001 [P] Group photos in src/group.ts', 'T002 [P] Sort albums in src/sort.ts']).replace(/- \[ \]/g, '- [X]'));
  });

  it('ticks a task only once its reviewer approves: rejected, fixed, approved', async () => {
    setup(tasksFile(['T001 Group photos in src/group.ts', 'T002 Sort albums in src/sort.ts']));
    server.enqueue(
      'openai',
      completes('Grouped, I think.'),
      feedback('Albums of the same day are split by time zone; group by local date.'),
      completes('Grouped by local date.'),
      completes('Approved T001.'),
      completes('Sorted.'),
      completes('Approved T002.'),
      completes('Docs.'),
      completes('Approved T009.'),
    );
    const seenDuringReview: string[] = [];
    const plans: string[][] = [];
    const stop = project.session.todos.onChange((items) => plans.push(items.map((i) => `${i.id}:${i.status}`)));
    const { result } = await project.command('speckit.implement', '', {
      onEvent: (event) => {
        if (event.type === 'subagent_progress' && /reviews \(round 2\)/.test(event.text)) seenDuringReview.push(project.read(TASKS_PATH));
      },
    });
    stop();
    assert.equal(result.status, 'completed', result.message);
    assert.equal(seenDuringReview.length, 1);
    assert.match(seenDuringReview[0]!, /- \[ \] T001/, 'not ticked while the reviewer still had to approve');
    assert.match(requestText(server, 2), /group by local date/, 'the feedback reached the worker');
    assert.match(project.read(TASKS_PATH), /- \[X\] T001[\s\S]*- \[X\] T002[\s\S]*- \[X\] T009/);
    assert.deepEqual(plans[0], ['T001:pending', 'T002:pending', 'T009:pending'], 'the plan shows the tasks first');
    assert.ok(plans.some((p) => p[0] === 'T001:in_progress' && p[1] === 'T002:pending'));
    assert.ok(plans.some((p) => p[0] === 'T001:completed' && p[1] === 'T002:in_progress'));
    assert.deepEqual(plans.at(-1), ['T001:completed', 'T002:completed', 'T009:completed']);
  });

  it('stops the phase when a reviewer never approves, unticking what the worker ticked itself, and reports', async () => {
    const tasks = tasksFile(['T001 Group photos in src/group.ts', 'T002 Sort albums in src/sort.ts']);
    setup(tasks);
    server.enqueue(
      'openai',
      { blocks: [{ type: 'tool_call', name: 'write_file', arguments: { path: TASKS_PATH, content: tasks.replace('- [ ] T001', '- [X] T001') } }] },
      completes('Done, and ticked it.'),
      feedback('Wrong: albums are not grouped at all.'),
      completes('Tried again.'),
      feedback('Still wrong.'),
      completes('Third try.'),
      feedback('Still wrong.'),
    );
    const { result, events } = await project.command('speckit.implement');
    assert.equal(result.status, 'error');
    assert.match(result.message, /Stopped in specs\/001-albums, phase "Core": T001: .*3 review rounds.*0 tasks ticked this run\. .*resumes at T001\./);
    assert.equal(project.read(TASKS_PATH), tasks, 'the self-made tick is undone; T002 untouched');
    assert.equal(server.requests.length, 7, 'T002 never started');
    assert.equal(server.pending('openai'), 0);
    const end = events.find((e): e is Extract<AgentEvent, { type: 'tool_call_end' }> => e.type === 'tool_call_end' && e.agent === 'speckit')!;
    assert.equal(end.result.status, 'error');
    assert.deepEqual(project.session.todos.list().map((t) => t.status), ['pending', 'pending', 'pending']);
  });

  it('resumes after a cancel at the first unticked task', async () => {
    const tasks = tasksFile(['T001 Group photos in src/group.ts', 'T002 Sort albums in src/sort.ts']);
    setup(tasks);
    server.enqueue('openai', completes('Grouped.'), completes('Approved T001.'), { blocks: [{ type: 'text', text: 'working on it' }], fault: { kind: 'stall_after', events: 1 } });
    const controller = new AbortController();
    const first = await project.command('speckit.implement', '', {
      signal: controller.signal,
      onEvent: (event) => {
        if (event.type === 'subagent_start' && /Carry out task T002/.test(event.task)) controller.abort();
      },
    });
    assert.equal(first.result.status, 'cancelled', first.result.message);
    assert.match(first.result.message, /1 task ticked this run\. Run \/speckit\.implement again to resume at T002\./);
    assert.match(project.read(TASKS_PATH), /- \[X\] T001[\s\S]*- \[ \] T002/);
    assert.deepEqual(project.session.todos.list().map((t) => t.status), ['completed', 'pending', 'pending']);

    server.reset();
    server.enqueue('openai', completes('Sorted.'), completes('Approved T002.'), completes('Docs.'), completes('Approved T009.'));
    const second = await project.command('speckit.implement');
    assert.equal(second.result.status, 'completed', second.result.message);
    assert.match(requestText(server, 0), /Carry out task T002/);
    assert.equal(server.requests.length, 4, 'T001 did not run again');
    assert.equal(project.read(TASKS_PATH), tasks.replace(/- \[ \]/g, '- [X]'));
  });

  it('refuses to tick without a reviewer, and names the subagents when the chosen one does not exist', async () => {
    setup(tasksFile(['T001 Group photos in src/group.ts']));
    server.enqueue('openai', completes('Done alone.'));
    const alone = await project.command('speckit.implement', '--agent worker');
    assert.equal(alone.result.status, 'error');
    assert.match(alone.result.message, /worker has no reviewer to approve the task.*task-pair/);
    assert.match(project.read(TASKS_PATH), /- \[ \] T001/);

    const unknown = await project.command('speckit.implement', '--agent nobody');
    assert.match(unknown.result.message, /"nobody" is not a subagent this session can run\. Subagents: .*task-pair/);
  });

  it('says so when every task is done, and refuses a broken tasks.md with line numbers before any model call', async () => {
    setup('# Tasks\n\n## Phase 1: A\n\n- [X] T001 Done in a.ts\n');
    const done = await project.command('speckit.implement');
    assert.equal(done.result.status, 'completed');
    assert.match(done.result.message, /every task in tasks\.md is done/);

    project.write(TASKS_PATH, '# Tasks\n\n## Phase 1: A\n\n- [ ] T001 One\n- [ ] T001 Two\n');
    const broken = await project.command('speckit.implement');
    assert.equal(broken.result.status, 'error');
    assert.match(broken.result.message, /tasks\.md:6: T001 is used twice \(also on line 5\)/);
    assert.equal(server.requests.length, 0);
  });
});
