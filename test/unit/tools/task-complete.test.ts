import assert from 'node:assert/strict';
import { taskCompleteTool } from '../../../src/tools/builtin/task-complete';
import { TASK_COMPLETE } from '../../../src/vocabulary/tool-names';
import { tempWorkspace, toolContext } from './temp-workspace';

describe('task_complete', () => {
  it('returns the summary', async () => {
    const ws = tempWorkspace();
    try {
      const summary = 'Fixed the parser; npm test passes.';
      const result = await taskCompleteTool.run(JSON.stringify({ summary }), toolContext(ws.workspace));
      assert.equal(result.status, 'success');
      assert.equal(result.output, summary);
      const empty = await taskCompleteTool.run('{"summary": ""}', toolContext(ws.workspace));
      assert.equal(empty.status, 'error');
      assert.match(empty.error ?? '', /summary:/);
    } finally {
      ws.remove();
    }
  });

  it('is named by the exported constant and asks for verified, whole work', () => {
    assert.equal(TASK_COMPLETE, 'task_complete');
    assert.equal(taskCompleteTool.name, TASK_COMPLETE);
    assert.equal(taskCompleteTool.kind, 'other');
    assert.match(taskCompleteTool.description, /only when the whole task is done and you have verified/);
  });
});
