import assert from 'node:assert/strict';
import { todoReadTool, todoWriteTool } from '../../../src/tools/builtin/todo';
import { TodoStore } from '../../../src/tools/todos';
import { tempWorkspace, toolContext } from './temp-workspace';

describe('todo_write / todo_read', () => {
  const ws = tempWorkspace();
  after(() => ws.remove());

  it('shares one list between two agents of a session', async () => {
    const todos = new TodoStore();
    const changes: number[] = [];
    todos.onChange((items) => changes.push(items.length));
    const primary = toolContext(ws.workspace, undefined, { agentName: 'primary', todos });
    const reviewer = toolContext(ws.workspace, undefined, { agentName: 'reviewer', todos });

    const written = await todoWriteTool.run(
      JSON.stringify({
        todos: [
          { id: '1', content: 'Read the failing test', status: 'completed' },
          { id: '2', content: 'Fix add()', status: 'in_progress', priority: 'high' },
          { id: '3', content: 'Run the tests', status: 'pending' },
        ],
      }),
      primary,
    );
    assert.equal(written.status, 'success');
    assert.deepEqual(changes, [3]);

    const read = await todoReadTool.run('{}', reviewer);
    assert.equal(
      read.output,
      '[x] 1. Read the failing test\n[~] 2. Fix add() (high)\n[ ] 3. Run the tests\n1 of 3 completed.',
    );
    assert.equal(todos.list()[2]!.priority, 'medium', 'priority defaults to medium');
  });

  it('rejects duplicate ids and bad statuses, naming the field', async () => {
    const ctx = toolContext(ws.workspace);
    const dup = await todoWriteTool.run(
      JSON.stringify({ todos: [{ id: 'a', content: 'x', status: 'pending' }, { id: 'a', content: 'y', status: 'pending' }] }),
      ctx,
    );
    assert.match(dup.error!, /id "a"/);
    const bad = await todoWriteTool.run(JSON.stringify({ todos: [{ id: 'a', content: 'x', status: 'done' }] }), ctx);
    assert.match(bad.error!, /todos\.0\.status/);
    assert.deepEqual(ctx.todos.list(), [], 'a rejected write changes nothing');
  });

  it('warns when several items are in progress', async () => {
    const result = await todoWriteTool.run(
      JSON.stringify({ todos: [{ id: '1', content: 'a', status: 'in_progress' }, { id: '2', content: 'b', status: 'in_progress' }] }),
      toolContext(ws.workspace),
    );
    assert.match(result.output, /2 items are in_progress/);
  });

  it('reads an empty list plainly', async () => {
    assert.equal((await todoReadTool.run('{}', toolContext(ws.workspace))).output, 'The todo list is empty.');
  });
});
