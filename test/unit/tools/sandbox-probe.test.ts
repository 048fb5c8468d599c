import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { probeSandbox } from '../../../src/tools/sandbox-probe';
import { tempDir } from './temp-workspace';

/** An executable shell script standing in for bwrap. */
function fakeBwrap(dir: string, body: string): string {
  const file = path.join(dir, `bwrap-${Math.random().toString(36).slice(2)}`);
  fs.writeFileSync(file, `#!/bin/sh\n${body}\n`, { mode: 0o755 });
  return file;
}

describe('sandbox detection', () => {
  let scratch: ReturnType<typeof tempDir>;
  beforeEach(() => {
    scratch = tempDir('crow-probe-');
  });
  afterEach(() => scratch.remove());

  it('says how to install bubblewrap when bwrap is not on PATH', () => {
    const probe = probeSandbox({ PATH: scratch.dir });
    assert.equal(probe.available, false);
    assert.match(probe.available ? '' : probe.reason, /bubblewrap \(bwrap\) is not installed: install bubblewrap \(Debian\/Ubuntu: sudo apt install bubblewrap/);
  });

  it('says so when CROW_BWRAP_PATH names a binary that cannot start', () => {
    const probe = probeSandbox({ PATH: '', CROW_BWRAP_PATH: path.join(scratch.dir, 'missing-bwrap') });
    assert.equal(probe.available, false);
    assert.match(probe.available ? '' : probe.reason, /missing-bwrap could not be started .*install bubblewrap/);
  });

  it('counts a bwrap that cannot create namespaces as unavailable, quoting it and naming the usual cause', () => {
    const bwrap = fakeBwrap(scratch.dir, 'echo "bwrap: No permissions to create new namespace" >&2; exit 1');
    const probe = probeSandbox({ CROW_BWRAP_PATH: bwrap });
    assert.equal(probe.available, false);
    const reason = probe.available ? '' : probe.reason;
    assert.match(reason, /No permissions to create new namespace/);
    assert.match(reason, /user namespaces/);
  });

  it('still sandboxes with a bwrap too old to cap its /tmp, and says it cannot', () => {
    const bwrap = fakeBwrap(scratch.dir, 'case "$*" in *--size*) echo "bwrap: Unknown option --size" >&2; exit 1;; esac; exit 0');
    assert.deepEqual(probeSandbox({ CROW_BWRAP_PATH: bwrap }), { available: true, bwrap, sizedTmp: false });
  });

  it('finds bwrap on PATH and runs it once per process', () => {
    const log = path.join(scratch.dir, 'runs');
    fs.writeFileSync(path.join(scratch.dir, 'bwrap'), `#!/bin/sh\necho run >> '${log}'\nexit 0\n`, { mode: 0o755 });
    const first = probeSandbox({ PATH: scratch.dir });
    const second = probeSandbox({ PATH: scratch.dir });
    assert.deepEqual(first, { available: true, bwrap: path.join(scratch.dir, 'bwrap'), sizedTmp: true });
    assert.deepEqual(second, first);
    assert.equal(fs.readFileSync(log, 'utf8'), 'run\n');
  });
});
