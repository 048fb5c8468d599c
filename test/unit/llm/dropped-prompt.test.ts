import assert from 'node:assert/strict';
import { DroppedPromptWatch } from '../../../src/llm/dropped-prompt';

describe('noticing a server that silently drops the start of a prompt', () => {
  it('on a first call, only a prompt read at under half its estimate counts as cut', () => {
    assert.equal(new DroppedPromptWatch().check(600, 1000), undefined);
    assert.deepEqual(new DroppedPromptWatch().check(400, 1000), { windowTokens: 400, promptTokens: 1000 });
  });

  it('once calibrated by prompts read whole, a prompt read at 15% under that density counts as cut', () => {
    const watch = new DroppedPromptWatch();
    assert.equal(watch.check(1200, 1000), undefined, 'this server counts 1.2 tokens per estimated token');
    assert.equal(watch.check(2300, 2000), undefined, 'read whole: 1.15');
    assert.equal(watch.check(4000, 4000), undefined, 'read at 1.0 of an expected 1.15: within what tokenizers vary');
    assert.deepEqual(watch.check(3000, 4000), { windowTokens: 3000, promptTokens: 4000 }, 'read at 0.75 of an expected 1.0: cut');
  });

  it('ignores calls whose usage says nothing', () => {
    const watch = new DroppedPromptWatch();
    assert.equal(watch.check(0, 1000), undefined);
    assert.equal(watch.check(400, 1000)?.windowTokens, 400, 'and is not calibrated by them');
  });
});
