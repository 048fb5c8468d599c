import assert from 'node:assert/strict';
import { thinkTool } from '../../../src/tools/builtin/think';
import { tempWorkspace, toolContext } from './temp-workspace';

describe('think', () => {
  it('acknowledges a thought and changes nothing', async () => {
    const ws = tempWorkspace();
    try {
      const result = await thinkTool.run(JSON.stringify({ thought: 'First read the tests.' }), toolContext(ws.workspace));
      assert.equal(result.status, 'success');
      assert.equal(result.output, 'Thought noted.');
      assert.deepEqual(result.metadata.filesModified, []);
      const invalid = await thinkTool.run('{"thought": null}', toolContext(ws.workspace));
      assert.match(invalid.error ?? '', /thought:/);
    } finally {
      ws.remove();
    }
  });

  it('is a think tool described as a scratchpad', () => {
    assert.equal(thinkTool.kind, 'think');
    assert.match(thinkTool.description, /scratchpad/);
    assert.equal(thinkTool.summarize({ thought: 'Plan: read, then edit.' }), 'Plan: read, then edit.');
  });
});
