import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { jobGroupFromStat, stopGroup } from '../../../../src/adapters/vscode/workspace/foreground-job';
import { groupRunning } from '../../../support/process-groups';


/** A shell in a process group of its own running `script`; resolves once it printed "ready". */
async function group(script: string): Promise<number> {
  const child = spawn('bash', ['-c', `${script}`], { detached: true, stdio: ['ignore', 'pipe', 'ignore'] });
  child.unref();
  await new Promise<void>((resolve) => child.stdout.on('data', (chunk: Buffer) => chunk.includes('ready') && resolve()));
  return child.pid!;
}

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

describe('Stopping a terminal job', () => {
  it('stops the whole group, background children included, and settles once it is gone', async () => {
    const pgid = await group('sleep 30 & echo ready; sleep 30');
    await stopGroup(pgid, 2_000);
    assert.equal(groupRunning(pgid), false);
  });

  it('uses SIGKILL on a group that ignores SIGTERM', async () => {
    const pgid = await group("trap '' TERM; echo ready; while :; do sleep 0.05; done");
    await stopGroup(pgid, 200);
    assert.equal(groupRunning(pgid), false);
  });
});
