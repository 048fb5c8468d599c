import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import { createServer as createNetServer } from 'node:net';
import { inheritingCommandLine, type SandboxOptions } from '../../../src/tools/command-sandbox';
import { findExecutable } from '../../../src/tools/node-exec';
import { NodeWorkspace } from '../../../src/tools/node-workspace';
import { type ExecOptions, WorkspaceError } from '../../../src/tools/workspace';
import { describeSandboxed, hostFolderOutsideTmp, noProcessesWith } from '../../support/sandbox';
import { skipBecause } from '../../support/skip-reasons';
import { tempDir, tempWorkspace } from './temp-workspace';

const options = (extra: Partial<ExecOptions> = {}): ExecOptions => ({ timeoutMs: 20_000, signal: new AbortController().signal, ...extra });

/** A marker unique to one test, to find the processes a command started by their command line. */
const marker = () => `1000.${process.pid}${Math.floor(Math.random() * 1e6)}`;

/** Sets process variables for the length of `body`, then removes them. */
async function withVariables<T>(variables: Record<string, string>, body: () => Promise<T>): Promise<T> {
  Object.assign(process.env, variables);
  try {
    return await body();
  } finally {
    for (const name of Object.keys(variables)) delete process.env[name];
  }
}

function sandboxOptions(extra: Partial<SandboxOptions> = {}): SandboxOptions {
  return { mode: 'required', protectedPaths: [], network: false, hiddenVariables: [], ...extra };
}

describeSandboxed('NodeWorkspace.exec in the sandbox', () => {
  let ws: ReturnType<typeof tempWorkspace>;
  let workspace: NodeWorkspace;
  /** A writable host folder outside the workspace and outside /tmp (which the sandbox replaces). */
  let outside: string;

  beforeEach(() => {
    ws = tempWorkspace({
      '.git/config': '[core]\n\tbare = false\n',
      '.vscode/settings.json': '{}\n',
      'libs/vendored/.git/config': '[core]\n',
      'src/app.txt': 'app\n',
    });
    outside = hostFolderOutsideTmp();
    workspace = new NodeWorkspace(ws.root, {
      killGraceMs: 300,
      sandbox: sandboxOptions({ protectedPaths: [path.join(ws.root, 'home/.config/crow-agent')], hiddenVariables: ['CORP_LLM_KEY'] }),
    });
  });
  afterEach(() => {
    ws.remove();
    fs.rmSync(outside, { recursive: true, force: true });
  });

  it('is active, and keeps exit codes and interleaved output as they are without it', async () => {
    assert.equal(workspace.sandboxed, true);
    const result = await workspace.exec('echo out; echo err >&2; echo again; exit 3', options());
    assert.equal(result.output, 'out\nerr\nagain\n');
    assert.equal(result.exitCode, 3);
    const inSub = await workspace.exec('pwd; cat app.txt', options({ cwd: 'src' }));
    assert.equal(inSub.output, `${path.join(ws.root, 'src')}\napp\n`);
  });

  it('writes inside the workspace and nowhere else; /tmp is its own', async () => {
    const hostFile = path.join('/tmp', `crow-host-${process.pid}-${Date.now()}`);
    fs.writeFileSync(hostFile, 'host');
    try {
      const result = await workspace.exec(
        `echo in > made.txt; echo out > ${outside}/escaped.txt; echo etc > /etc/crow-escaped; ` +
          `echo tmp > /tmp/inside-only && cat /tmp/inside-only; test -e ${hostFile} && echo sees-host-tmp || echo own-tmp`,
        options(),
      );
      assert.equal(fs.readFileSync(path.join(ws.root, 'made.txt'), 'utf8'), 'in\n');
      // Read-only; or, should this checkout live under /tmp, not there at all.
      assert.match(result.output, /escaped\.txt: (Read-only file system|No such file or directory)/);
      assert.match(result.output, /\/etc\/crow-escaped: Read-only file system/);
      assert.deepEqual(fs.readdirSync(outside), []);
      assert.equal(fs.existsSync('/etc/crow-escaped'), false);
      assert.match(result.output, /^tmp$/m);
      assert.match(result.output, /own-tmp/);
      assert.equal(fs.existsSync('/tmp/inside-only'), false, 'what a command writes in /tmp stays in its sandbox');
    } finally {
      fs.rmSync(hostFile, { force: true });
    }
  });

  it('keeps .git (nested ones too), .vscode and Crow\'s folders read-only, and missing ones uncreatable, leaving no trace', async () => {
    const result = await workspace.exec(
      [
        'echo "[core] fsmonitor = touch pwned" >> .git/config',
        'mv .git .git-moved',
        'rm -rf .git',
        'echo x >> libs/vendored/.git/config',
        'echo "{}" > .vscode/tasks.json',
        'mkdir -p .crow && echo "execute = 1" > .crow/config.toml',
        'mkdir -p home/.config/crow-agent',
        'echo still here',
      ].join('; '),
      options(),
    );
    assert.equal(fs.readFileSync(path.join(ws.root, '.git/config'), 'utf8'), '[core]\n\tbare = false\n');
    assert.equal(fs.readFileSync(path.join(ws.root, 'libs/vendored/.git/config'), 'utf8'), '[core]\n');
    assert.deepEqual(fs.readdirSync(path.join(ws.root, '.vscode')), ['settings.json']);
    assert.match(result.output, /still here/);
    assert.deepEqual(fs.readdirSync(ws.root).sort(), ['.git', '.vscode', 'libs', 'src'], 'no .crow, no home: the blocked paths are gone again');
  });

  it('keeps a repository made since the last command read-only for the next, readied ahead or not, in folders that stood still', async () => {
    // Past the time after which a folder's listing is kept between commands (nested-repositories.ts).
    await new Promise((done) => setTimeout(done, 2_100));
    assert.match((await workspace.exec('echo first', options())).output, /first/);
    fs.mkdirSync(path.join(ws.root, 'libs/cloned/.git'), { recursive: true });
    fs.writeFileSync(path.join(ws.root, 'libs/cloned/.git/config'), '[core]\n');
    // As root too: the read-only mount can be neither remounted writable nor taken away.
    const hooks =
      'mount -o remount,rw,bind libs/cloned/.git 2>/dev/null; umount libs/cloned/.git 2>/dev/null; ' +
      'mkdir -p libs/cloned/.git/hooks && echo "touch pwned" > libs/cloned/.git/hooks/post-checkout; echo x >> libs/cloned/.git/config; echo done';
    assert.match((await workspace.exec(hooks, options())).output, /done/);
    fs.mkdirSync(path.join(ws.root, 'src/made-later/.git'), { recursive: true });
    workspace.prepareCommand();
    assert.match((await workspace.exec('echo x > src/made-later/.git/HEAD; echo done', options())).output, /done/);
    assert.equal(fs.readFileSync(path.join(ws.root, 'libs/cloned/.git/config'), 'utf8'), '[core]\n');
    assert.deepEqual(fs.readdirSync(path.join(ws.root, 'libs/cloned/.git')), ['config'], 'no hooks folder');
    assert.deepEqual(fs.readdirSync(path.join(ws.root, 'src/made-later/.git')), [], 'nothing written in it');
  });

  it('shows commands neither Crow\'s process nor its keys', async () => {
    const keys = { ANTHROPIC_API_KEY: 'sk-ant-api03-sandboxtest-0123456789', CORP_LLM_KEY: 'corp-sandboxtest-9876543210', CROW_GITHUB_TOKEN: 'ghp_sandboxtest42' };
    const result = await withVariables({ ...keys, CROW_SANDBOX_PLAIN: 'visible' }, () =>
      workspace.exec(
        'env; echo ---; tr "\\0" "\\n" < /proc/$PPID/environ; tr "\\0" "\\n" < /proc/1/environ; echo ---; ls /proc | grep -c "^[0-9]"; echo ---; cat /proc/[0-9]*/cmdline 2>/dev/null | tr "\\0" " "',
        options(),
      ),
    );
    for (const [name, value] of Object.entries(keys)) assert.ok(!result.output.includes(value), `${name} reached the command:\n${result.output}`);
    assert.match(result.output, /CROW_SANDBOX_PLAIN=visible/, 'other variables are kept');
    const [, , count, commandLines] = result.output.split('---\n');
    assert.ok(Number(count) <= 6, `only the sandbox's own processes are listed: ${count}`);
    assert.ok(!commandLines!.includes(process.execPath) && !commandLines!.includes('mocha'), `no process of Crow is visible: ${commandLines}`);
  });

  describe('network', () => {
    let server: Server;
    let port: number;
    let hits: string[];
    before(async () => {
      hits = [];
      server = createServer((req, res) => {
        hits.push(req.url ?? '');
        res.end('hello from the host\n');
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      port = (server.address() as AddressInfo).port;
    });
    after(() => server.close());

    const fetchLoopback = (url: string) =>
      `exec 3<>/dev/tcp/127.0.0.1/${port} && printf 'GET ${url} HTTP/1.0\\r\\n\\r\\n' >&3 && cat <&3 || echo unreachable`;

    it('reaches no server, not even on loopback, while the network is off', async () => {
      const result = await workspace.exec(fetchLoopback('/from-sandbox'), options());
      assert.match(result.output, /unreachable/);
      assert.deepEqual(hits, []);
    });

    it('reaches the network when it is allowed', async () => {
      workspace.useSandbox(sandboxOptions({ network: true }));
      const result = await workspace.exec(fetchLoopback('/allowed'), options());
      assert.match(result.output, /hello from the host/);
      assert.deepEqual(hits, ['/allowed']);
    });

    it('reaches no host program on a Unix socket, wherever it listens, while the network is off', async () => {
      // Read-only does not stop a connect: as root, systemd's private socket would run anything on the host.
      const socket = path.join(outside, 'service.sock');
      const service = createNetServer((client) => client.end('host service here\n'));
      await new Promise<void>((resolve) => service.listen(socket, resolve));
      try {
        const connect = `node -e "require('net').connect('${socket}').on('data', (d) => process.stdout.write(d)).on('error', (e) => console.log('refused ' + e.code))"`;
        assert.match((await workspace.exec(connect, options())).output, /^refused (ECONNREFUSED|ENOENT)$/m);
        workspace.useSandbox(sandboxOptions({ network: true }));
        assert.match((await workspace.exec(connect, options())).output, /host service here/, 'with the network allowed it is reached, as before');
      } finally {
        service.close();
      }
    });
  });

  it('gives a command no file descriptor but 0, 1 and 2, whatever the process that starts bwrap has open', async () => {
    const launch = await workspace.commandLaunch(ws.root);
    // The terminal routes' command line, started by a shell that holds the outside folder open on 40 (as `exec 40<dir` leaves it).
    const line = inheritingCommandLine(launch, ['bash', '-c', `ls /proc/self/fd | tr '\\n' ' '; echo; echo through > /proc/self/fd/40/fd.txt`]);
    try {
      const run = spawnSync('bash', ['-c', 'exec 40<"$0"; exec "$@"', outside, ...line], { encoding: 'utf8' });
      assert.match(run.stdout, /^0 1 2 3 $/m, 'ls sees its own listing (3), nothing inherited');
      assert.match(run.stdout + run.stderr, /fd\/40\/fd\.txt: No such file or directory/);
      assert.deepEqual(fs.readdirSync(outside), []);
    } finally {
      launch.release();
    }
  });

  it('lets no command push keystrokes into the terminal it runs in (TIOCSTI), whoever runs Crow', async function () {
    if (!findExecutable('python3', process.env.PATH)) skipBecause(this, 'python3 is not installed (Debian: apt install python3)');
    const launch = await workspace.commandLaunch(ws.root);
    const push = 'import fcntl, termios, errno\ntry:\n    fcntl.ioctl(0, termios.TIOCSTI, b"#")\n    print("pushed")\nexcept OSError as e:\n    print("refused", errno.errorcode[e.errno])';
    // In a pseudo-terminal of its own, as a VS Code or ACP client terminal runs it.
    const line = inheritingCommandLine(launch, ['python3', '-c', push]);
    try {
      const run = spawnSync('python3', ['-c', 'import pty, sys; pty.spawn(sys.argv[1:])', ...line], { encoding: 'utf8', input: '' });
      assert.match(run.stdout, /refused (EPERM|EIO)/, run.stdout + run.stderr);
      assert.doesNotMatch(run.stdout, /pushed|#/);
    } finally {
      launch.release();
    }
  });

  it('on abort ends everything the command started, background and detached children included', async () => {
    const sleep = marker();
    const controller = new AbortController();
    const result = await workspace.exec(
      `sleep ${sleep} & setsid sleep ${sleep} & nohup sleep ${sleep} >/dev/null 2>&1 & echo started; sleep ${sleep}`,
      options({ signal: controller.signal, onOutput: (chunk) => chunk.includes('started') && controller.abort() }),
    );
    assert.equal(result.aborted, true);
    assert.equal(result.exitCode, null);
    await noProcessesWith(`sleep ${sleep}`);
  });

  it('on timeout stops the command and keeps its output so far', async () => {
    const sleep = marker();
    const result = await workspace.exec(`echo begun; sleep ${sleep}`, options({ timeoutMs: 300 }));
    assert.equal(result.timedOut, true);
    assert.equal(result.exitCode, null);
    assert.equal(result.output, 'begun\n');
    await noProcessesWith(`sleep ${sleep}`);
  });

  it('ends what a command leaves running in the background when the command ends', async () => {
    const sleep = marker();
    const result = await workspace.exec(`nohup sleep ${sleep} >/dev/null 2>&1 & echo left`, options());
    assert.equal(result.output, 'left\n');
    await noProcessesWith(`sleep ${sleep}`);
  });

  it('removes a blocked path only after the last command using it has ended', async () => {
    const slow = workspace.exec('sleep 0.5; mkdir .crow/x 2>/dev/null || echo blocked', options());
    const quick = await workspace.exec('echo quick', options());
    assert.equal(quick.output, 'quick\n');
    assert.equal((await slow).output, 'blocked\n', 'the running command was still kept from .crow');
    assert.equal(fs.existsSync(path.join(ws.root, '.crow')), false);
  });
});

describe('NodeWorkspace.exec where the sandbox cannot run', () => {
  let ws: ReturnType<typeof tempWorkspace>;
  let bin: ReturnType<typeof tempDir>;
  const unavailable = () => ({ CROW_BWRAP_PATH: path.join(bin.dir, 'no-bwrap-here') });

  beforeEach(() => {
    ws = tempWorkspace();
    bin = tempDir('crow-nobwrap-');
  });
  afterEach(() => {
    ws.remove();
    bin.remove();
  });

  it('refuses commands when the sandbox is required, saying how to install it or turn it off', async () => {
    await withVariables(unavailable(), async () => {
      const workspace = new NodeWorkspace(ws.root, { sandbox: sandboxOptions({ mode: 'required' }) });
      assert.equal(workspace.sandboxed, false);
      await assert.rejects(workspace.exec('touch ran.txt', options()), (err: Error) => {
        assert.ok(err instanceof WorkspaceError);
        assert.match(err.message, /sandbox = "required"/);
        assert.match(err.message, /apt install bubblewrap/);
        assert.match(err.message, /sandbox = "off"/);
        return true;
      });
      assert.equal(fs.existsSync(path.join(ws.root, 'ran.txt')), false);
    });
  });

  it('runs commands without it on auto, still without any configured key', async () => {
    await withVariables({ ...unavailable(), CORP_LLM_KEY: 'corp-auto-0123456789', ANTHROPIC_API_KEY: 'sk-ant-auto-0123' }, async () => {
      const workspace = new NodeWorkspace(ws.root, { sandbox: sandboxOptions({ mode: 'auto', hiddenVariables: ['CORP_LLM_KEY'] }) });
      assert.equal(workspace.sandboxed, false);
      const result = await workspace.exec('echo ran; env', options());
      assert.match(result.output, /^ran$/m);
      assert.ok(!result.output.includes('corp-auto'), 'a configured key variable is hidden with the sandbox off too');
      assert.ok(!result.output.includes('sk-ant-auto'));
    });
  });
});
