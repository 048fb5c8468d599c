import assert from 'node:assert/strict';
import { bwrapArguments, type SandboxLayout } from '../../../src/tools/bwrap-args';

const layout: SandboxLayout = {
  writable: ['/work/app'],
  readOnly: ['/work/app/.git', '/work/app/.vscode'],
  blocked: ['/work/app/.crow'],
  network: false,
  forbidUserNamespaces: true,
  sockets: [
    { path: '/run/user', directory: true },
    { path: '/run/docker.sock', directory: false },
  ],
  otherProcMounts: [],
  cwd: '/work/app/src',
};

/** The argument pairs and triples of a bwrap command line, one option per entry. */
function options(args: string[]): string[] {
  const arity: Record<string, number> = { '--ro-bind': 2, '--bind': 2, '--tmpfs': 1, '--remount-ro': 1, '--dev': 1, '--proc': 1, '--chdir': 1, '--setenv': 2, '--size': 1, '--cap-drop': 1 };
  const out: string[] = [];
  for (let i = 0; i < args.length; ) {
    const count = arity[args[i]!] ?? 0;
    out.push(args.slice(i, i + 1 + count).join(' '));
    i += 1 + count;
  }
  return out;
}

describe('bwrap command line', () => {
  it('always isolates processes, /dev, /proc and /tmp, dies with its parent, and ends with the working folder and --', () => {
    const args = options(bwrapArguments(layout));
    for (const option of ['--die-with-parent', '--new-session', '--unshare-pid', '--unshare-ipc', '--ro-bind / /', '--dev /dev', '--proc /proc', '--tmpfs /tmp']) {
      assert.ok(args.includes(option), `${option} in ${args.join(' | ')}`);
    }
    assert.deepEqual(args.slice(-2), ['--chdir /work/app/src', '--']);
  });

  it('confines whoever starts it, root included: a user namespace, no capability, no nested user namespace, /proc/sys read-only', () => {
    const args = options(bwrapArguments(layout));
    for (const option of ['--unshare-user', '--cap-drop ALL', '--disable-userns']) assert.ok(args.includes(option), `${option} in ${args.join(' | ')}`);
    assert.equal(args[args.indexOf('--proc /proc') + 1], '--ro-bind /proc/sys /proc/sys', 'uid 0 needs no capability to write a sysctl, only a writable /proc/sys');
    const older = options(bwrapArguments({ ...layout, forbidUserNamespaces: false }));
    assert.ok(!older.includes('--disable-userns'), 'a bwrap older than 0.8 does not know it');
    for (const option of ['--unshare-user', '--cap-drop ALL']) assert.ok(older.includes(option), `${option} whatever the bwrap`);
  });

  it('covers every other proc file system of the host after the workspace is bound, whatever the network', () => {
    for (const network of [false, true]) {
      const args = options(bwrapArguments({ ...layout, network, writable: ['/srv'], readOnly: [], otherProcMounts: ['/srv/chroot/proc'] }));
      assert.ok(args.indexOf('--tmpfs /srv/chroot/proc') > args.indexOf('--bind /srv /srv'));
    }
  });

  it('mounts in an order where the narrower rule wins: root read-only, workspace writable, protected paths read-only again', () => {
    const args = options(bwrapArguments(layout));
    const at = (option: string) => args.indexOf(option);
    assert.ok(at('--ro-bind / /') < at('--tmpfs /tmp'));
    assert.ok(at('--tmpfs /tmp') < at('--bind /work/app /work/app'), 'a workspace under /tmp stays visible');
    assert.ok(at('--tmpfs /run/user') < at('--bind /work/app /work/app'), 'a workspace under a hidden folder stays visible');
    assert.ok(at('--bind /work/app /work/app') < at('--ro-bind /work/app/.git /work/app/.git'));
    assert.ok(at('--bind /work/app /work/app') < at('--ro-bind /work/app/.vscode /work/app/.vscode'));
    const blocked = at('--tmpfs /work/app/.crow');
    assert.ok(blocked > at('--bind /work/app /work/app'));
    assert.equal(args[blocked + 1], '--remount-ro /work/app/.crow', 'a missing protected path is an empty read-only folder');
  });

  it('keeps a shielded folder read-only over the writable workspace, its listed entries writable again, before the protected paths', () => {
    const args = options(bwrapArguments({ ...layout, writable: ['/home/me'], shielded: { folder: '/home/me', writable: ['/home/me/project'] }, readOnly: ['/home/me/project/.git'] }));
    const at = (option: string) => args.indexOf(option);
    assert.ok(at('--bind /home/me /home/me') < at('--ro-bind /home/me /home/me'));
    assert.ok(at('--ro-bind /home/me /home/me') < at('--bind /home/me/project /home/me/project'));
    assert.ok(at('--bind /home/me/project /home/me/project') < at('--ro-bind /home/me/project/.git /home/me/project/.git'));
  });

  it('caps the private /tmp when told, and binds the domain proxy\'s folder after hiding the host\'s sockets', () => {
    const args = options(bwrapArguments({ ...layout, tmpSizeBytes: 512 * 1024 * 1024, proxyFolder: '/run/user/1000/crow-proxy-x' }));
    assert.equal(args[args.indexOf('--tmpfs /tmp') - 1], '--size 536870912');
    assert.ok(args.indexOf('--tmpfs /run/user') < args.indexOf('--ro-bind /run/user/1000/crow-proxy-x /run/user/1000/crow-proxy-x'));
  });

  it('cuts the network and hides host sockets unless the network is allowed', () => {
    const off = options(bwrapArguments(layout));
    assert.ok(off.includes('--unshare-net'));
    assert.ok(off.includes('--tmpfs /run/user'));
    assert.ok(off.includes('--ro-bind /dev/null /run/docker.sock'));
    const on = options(bwrapArguments({ ...layout, network: true }));
    assert.ok(!on.includes('--unshare-net'));
    assert.ok(!on.some((option) => option.includes('/run/')));
  });

  it('sets only the variables it is given', () => {
    assert.ok(!bwrapArguments(layout).includes('--setenv'));
    assert.ok(options(bwrapArguments({ ...layout, setenv: { TMPDIR: '/tmp' } })).includes('--setenv TMPDIR /tmp'));
  });
});
