import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { getPriority, tmpdir } from 'node:os';
import { join } from 'node:path';
import { GIT_NICENESS, GitRunner } from '../../../src/journal/git-runner';

describe('GitRunner', () => {
  let base: string;
  beforeEach(() => (base = mkdtempSync(join(tmpdir(), 'crow-git-runner-'))));
  afterEach(() => rmSync(base, { recursive: true, force: true }));

  it("runs undo's git below the agent's work: at a lower priority, never above Crow's own", async function () {
    if (process.platform === 'win32') this.skip();
    // A stand-in git that waits for its input (closed only once the runner has set its priority), then says its niceness.
    writeFileSync(join(base, 'git'), '#!/bin/sh\ncat > /dev/null\nnice\n', { mode: 0o755 });
    const git = new GitRunner({ gitDir: join(base, 'shadow'), workTree: base, env: { PATH: `${base}:${process.env.PATH}` }, timeoutMs: 10_000 });
    const niceness = Number((await git.run(['status'])).toString().trim());
    assert.equal(niceness, Math.max(GIT_NICENESS, getPriority()));
  });
});
