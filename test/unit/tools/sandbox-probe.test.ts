import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { probeSandbox } from '../../../src/tools/sandbox-probe';
import { describeSandboxed, sandboxProbe } from '../../support/sandbox';
import { skipBecause } from '../../support/skip-reasons';
import { tempDir } from './temp-workspace';

/** An executable shell script standing in for bwrap. */
function fakeBwrap(dir: string, body: string, name = `bwrap-${Math.random().toString(36).slice(2)}`): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, `#!/bin/sh\n${body}\n`, { mode: 0o755 });
  return file;
}

/** The real bwrap of this machine, which the stand-ins below run in the end. */
const realBwrap = (): string => (sandboxProbe.available ? sandboxProbe.bwrap : 'bwrap');

/** Shell that runs the real bwrap with its arguments less `dropped` (options without a value). */
function withoutOptions(dropped: string[]): string {
  return [
    'for arg in "$@"; do shift; case "$arg" in',
    `  ${dropped.join('|')}) ;;`,
    '  *) set -- "$@" "$arg";;',
    'esac; done',
    `exec '${realBwrap()}' "$@"`,
  ].join('\n');
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

  it('counts a bwrap that cannot create namespaces as unavailable, quoting it and naming the usual causes', () => {
    const bwrap = fakeBwrap(scratch.dir, 'echo "bwrap: No permissions to create new namespace" >&2; exit 1');
    const probe = probeSandbox({ CROW_BWRAP_PATH: bwrap });
    assert.equal(probe.available, false);
    const reason = probe.available ? '' : probe.reason;
    assert.match(reason, /No permissions to create new namespace/);
    assert.match(reason, /user namespaces/);
    assert.match(reason, /Docker's default seccomp profile/);
  });

  it('counts a bwrap that succeeds without running what it was given as unavailable', () => {
    const bwrap = fakeBwrap(scratch.dir, 'exit 0');
    const probe = probeSandbox({ CROW_BWRAP_PATH: bwrap });
    assert.equal(probe.available, false);
    assert.match(probe.available ? '' : probe.reason, /did not report its privileges .*Point CROW_BWRAP_PATH \(or PATH\) at bubblewrap itself/);
  });

  it('counts a command that could still gain privileges (no NoNewPrivs) as unconfined, capabilities or not', () => {
    const status = 'Name:\\tcat\\nCapInh:\\t0000000000000000\\nCapPrm:\\t0000000000000000\\nCapEff:\\t0000000000000000\\nCapBnd:\\t0000000000000000\\nCapAmb:\\t0000000000000000\\nNoNewPrivs:\\t0\\n';
    const bwrap = fakeBwrap(scratch.dir, `printf '${status}'`);
    const probe = probeSandbox({ CROW_BWRAP_PATH: bwrap });
    assert.equal(probe.available, false);
    assert.match(probe.available ? '' : probe.reason, /left the sandboxed command privileges \(NoNewPrivs 0 in its \/proc\/self\/status\)/);
  });

  describeSandboxed('with the real bubblewrap behind a stand-in', () => {
    it('finds a working bwrap on PATH, proves it confines, and runs it once per process', () => {
      const log = path.join(scratch.dir, 'runs');
      fakeBwrap(scratch.dir, `echo run >> '${log}'\nexec '${realBwrap()}' "$@"`, 'bwrap');
      const first = probeSandbox({ PATH: scratch.dir });
      const second = probeSandbox({ PATH: scratch.dir });
      assert.deepEqual(first, { available: true, bwrap: path.join(scratch.dir, 'bwrap'), sizedTmp: true, forbidsUserNamespaces: true });
      assert.deepEqual(second, first);
      assert.equal(fs.readFileSync(log, 'utf8'), 'run\n');
    });

    it('still sandboxes with a bwrap older than 0.8, which can neither cap its /tmp nor forbid user namespaces', () => {
      const refuse = 'for arg in "$@"; do case "$arg" in --size|--disable-userns|--assert-userns-disabled) echo "bwrap: Unknown option $arg" >&2; exit 1;; esac; done';
      const bwrap = fakeBwrap(scratch.dir, `${refuse}\nexec '${realBwrap()}' "$@"`);
      assert.deepEqual(probeSandbox({ CROW_BWRAP_PATH: bwrap }), { available: true, bwrap, sizedTmp: false, forbidsUserNamespaces: false });
    });

    it('still sandboxes where bwrap knows --disable-userns but the kernel will not let it forbid them', () => {
      const refuse = 'case "$*" in *--disable-userns*) echo "bwrap: creation of new user namespaces was not disabled as requested" >&2; exit 1;; esac';
      const bwrap = fakeBwrap(scratch.dir, `${refuse}\nexec '${realBwrap()}' "$@"`);
      assert.deepEqual(probeSandbox({ CROW_BWRAP_PATH: bwrap }), { available: true, bwrap, sizedTmp: true, forbidsUserNamespaces: false });
    });

    it('as root, counts a bwrap that runs the command without dropping its capabilities as unavailable, saying what to do', function () {
      if (process.getuid?.() !== 0) skipBecause(this, 'only root keeps capabilities inside a bwrap without a user namespace; run as root (CI does)');
      const bwrap = fakeBwrap(scratch.dir, withoutOptions(['--unshare-user', '--cap-drop', 'ALL', '--disable-userns', '--assert-userns-disabled']));
      const probe = probeSandbox({ CROW_BWRAP_PATH: bwrap });
      assert.equal(probe.available, false);
      const reason = probe.available ? '' : probe.reason;
      assert.match(reason, /left the sandboxed command privileges \(.*CapEff 0*[1-9a-f][0-9a-f]*.*in its \/proc\/self\/status\)/);
      assert.match(reason, /a command could undo the sandbox/);
      assert.match(reason, /Point CROW_BWRAP_PATH \(or PATH\) at bubblewrap itself, not a wrapper, in a version that honours --unshare-user and --cap-drop ALL/);
    });
  });
});
