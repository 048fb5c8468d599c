import assert from 'node:assert/strict';
import { jobGroupFromStat } from '../../../../src/adapters/vscode/workspace/foreground-job';

describe('The job running in a terminal, from the shell’s /proc stat', () => {
  it('is the foreground group when a command holds the terminal', () => {
    assert.equal(jobGroupFromStat('4120 (bash) S 4100 4120 4120 34816 4188 4194560 900 0 0 0'), 4188);
  });

  it('is none while the shell waits at its prompt, or without a terminal', () => {
    assert.equal(jobGroupFromStat('4120 (bash) S 4100 4120 4120 34816 4120 4194560 900 0 0 0'), undefined);
    assert.equal(jobGroupFromStat('4120 (bash) S 4100 4120 4120 0 -1 4194560 900 0 0 0'), undefined);
  });

  it('reads past a command name holding spaces and parentheses', () => {
    assert.equal(jobGroupFromStat('77 (my (odd) shell) S 1 77 77 34817 91 0 0'), 91);
  });
});
