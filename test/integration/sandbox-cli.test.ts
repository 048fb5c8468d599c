import assert from 'node:assert/strict';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { FakeLlmServer } from '../../testkit/fake-llm-server';
import { isolatedEnv } from '../support/isolated-env';
import { describeSandboxed, hostFolderOutsideTmp, noProcessesWith, processesWith } from '../support/sandbox';

const CROW = resolve(__dirname, '../../dist/crow.js');

/** Keys that look real: a leak would show them verbatim. */
const ANTHROPIC_KEY = 'sk-ant-api03-SandboxLeakCheck-0123456789abcdef';
const CORP_KEY = 'corp-live-SandboxLeakCheck-fedcba9876543210';

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * A workspace (a git repository) and an isolated home whose user config
 * names a provider key variable of its own, the way a user's config would;
 * `userConfig` holds top-level keys, written before that table.
 */
function fixture(userConfig = '') {
  const home = mkdtempSync(join(tmpdir(), 'crow-sbx-home-'));
  const workspace = mkdtempSync(join(tmpdir(), 'crow-sbx-ws-'));
  execFileSync('git', ['init', '-q'], { cwd: workspace });
  writeFileSync(join(workspace, 'README.md'), 'hello\n');
  mkdirSync(join(home, 'config/crow-agent'), { recursive: true });
  writeFileSync(
    join(home, 'config/crow-agent/config.toml'),
    `${userConfig}[providers.corp]\ntype = "openai"\nbase_url = "http://127.0.0.1:9/v1"\napi_key_env = "CORP_LLM_KEY"\n`,
  );
  return {
    home,
    workspace,
    gitConfig: readFileSync(join(workspace, '.git/config'), 'utf8'),
    remove: () => {
      rmSync(home, { recursive: true, force: true });
      rmSync(workspace, { recursive: true, force: true });
    },
  };
}

function crow(args: string[], env: NodeJS.ProcessEnv, onStarted?: (child: ChildProcess) => void): Promise<Run> {
  const child = spawn(process.execPath, [CROW, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env });
  const output = { stdout: '', stderr: '' };
  child.stdout.on('data', (d: Buffer) => (output.stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (output.stderr += d.toString()));
  onStarted?.(child);
  return new Promise((done) => child.on('close', (code) => done({ code, ...output })));
}

/** What the model was told after each of its tool calls, as one text. */
function toolResults(server: FakeLlmServer): string {
  return server
    .requestsFor('anthropic')
    .slice(1)
    .map((request) => JSON.stringify(request.body.messages.at(-1)))
    .join('\n');
}

const bash = (command: string) => ({ blocks: [{ type: 'tool_call' as const, name: 'bash', arguments: { command } }] });

describeSandboxed('crow run: a model\'s commands in the sandbox', () => {
  let server: FakeLlmServer;
  let fx: ReturnType<typeof fixture>;
  let env: NodeJS.ProcessEnv;
  /** A writable folder outside the workspace and outside /tmp. */
  let outside: string;

  before(async () => {
    server = await FakeLlmServer.start();
  });
  after(() => server.close());
  beforeEach(() => {
    server.reset();
    fx = fixture();
    outside = hostFolderOutsideTmp();
    env = isolatedEnv(fx.home, { ANTHROPIC_API_KEY: ANTHROPIC_KEY, CORP_LLM_KEY: CORP_KEY, ANTHROPIC_BASE_URL: server.anthropicBaseUrl });
  });
  afterEach(() => {
    fx.remove();
    rmSync(outside, { recursive: true, force: true });
  });

  it('runs commands without asking, but they write only inside the workspace, never .git, and see no key', async () => {
    server.enqueue(
      'anthropic',
      bash(`echo inside > made.txt; echo escaped > ${outside}/escaped.txt; echo escaped > /etc/crow-escaped; echo done writing`),
      // A writer the command parser cannot see (it would ask for a redirection or git config): the sandbox stops it.
      bash(`node -e "require('fs').appendFileSync('.git/config', '[core] fsmonitor = touch owned')"; echo done with git`),
      bash('env; echo; echo PARENT; tr "\\0" "\\n" < /proc/$PPID/environ; echo; ls /proc | grep -c "^[0-9]"'),
      { blocks: [{ type: 'text', text: 'Tried everything.' }] },
    );
    const run = await crow(['run', 'Break out', '--cwd', fx.workspace, '--provider', 'anthropic', '--model', 'claude-test'], env);
    assert.equal(run.code, 0, run.stderr);

    assert.equal(readFileSync(join(fx.workspace, 'made.txt'), 'utf8'), 'inside\n', 'commands ran, unasked');
    assert.deepEqual(readdirSync(outside), []);
    assert.equal(existsSync('/etc/crow-escaped'), false);
    assert.equal(readFileSync(join(fx.workspace, '.git/config'), 'utf8'), fx.gitConfig, '.git/config is as it was');
    assert.ok(!existsSync(join(fx.workspace, 'owned')));

    const told = toolResults(server);
    assert.match(told, /Read-only file system/);
    assert.match(told, /done with git/);
    assert.match(told, /PATH=/, 'the environment was listed');
    assert.match(told, /PARENT/);
    for (const key of [ANTHROPIC_KEY, CORP_KEY]) {
      assert.ok(!told.includes(key), 'no key reached the model');
      assert.ok(!run.stdout.includes(key) && !run.stderr.includes(key), 'no key was printed');
    }
  });

  it('reaches no server on loopback while the network is off, and does with --allow network', async () => {
    const hits: string[] = [];
    const other: Server = createServer((req, res) => {
      hits.push(req.url ?? '');
      res.end('host answered\n');
    });
    await new Promise<void>((done) => other.listen(0, '127.0.0.1', done));
    try {
      const fakePort = new URL(server.anthropicBaseUrl).port;
      const otherPort = (other.address() as AddressInfo).port;
      const get = (port: string | number, path: string) =>
        `exec 3<>/dev/tcp/127.0.0.1/${port} && printf 'GET ${path} HTTP/1.0\\r\\n\\r\\n' >&3 && cat <&3 || echo unreachable`;
      server.enqueue('anthropic', bash(`${get(fakePort, '/v1/messages')}; ${get(otherPort, '/off')}`), { blocks: [{ type: 'text', text: 'Offline.' }] });
      const off = await crow(['run', 'Call home', '--cwd', fx.workspace, '--provider', 'anthropic', '--model', 'claude-test'], env);
      assert.equal(off.code, 0, off.stderr);
      assert.match(toolResults(server), /unreachable.*unreachable/s);
      assert.deepEqual(hits, []);
      assert.equal(server.requestsFor('anthropic').length, 2, 'only crow itself reached the fake server');

      server.reset();
      server.enqueue('anthropic', bash(get(otherPort, '/on')), { blocks: [{ type: 'text', text: 'Online.' }] });
      const on = await crow(['run', 'Call home', '--cwd', fx.workspace, '--provider', 'anthropic', '--model', 'claude-test', '--allow', 'network'], env);
      assert.equal(on.code, 0, on.stderr);
      assert.deepEqual(hits, ['/on']);
      assert.match(toolResults(server), /host answered/);
    } finally {
      other.close();
    }
  });

  it('caps the size of the sandbox\'s /tmp, and crow config get says the cap in force and where it comes from', async () => {
    const shown = await crow(['config', 'get', 'sandbox.tmp_size_mb', '--cwd', fx.workspace], env);
    assert.match(shown.stdout, /^1024\b/, 'the default');
    assert.match(shown.stdout + shown.stderr, /default/);
    writeFileSync(join(fx.home, 'config/crow-agent/config.toml'), `[sandbox]\ntmp_size_mb = 16\n${readFileSync(join(fx.home, 'config/crow-agent/config.toml'), 'utf8')}`);
    const capped = await crow(['config', 'get', 'sandbox.tmp_size_mb', '--cwd', fx.workspace], env);
    assert.match(capped.stdout, /^16\b/);
    assert.match(capped.stderr, /user file/);
    server.enqueue('anthropic', bash('head -c 40000000 /dev/zero > /tmp/big; echo "wrote: $?"; df -m /tmp | tail -1'), { blocks: [{ type: 'text', text: 'Full.' }] });
    const run = await crow(['run', 'Fill /tmp', '--cwd', fx.workspace, '--provider', 'anthropic', '--model', 'claude-test'], env);
    assert.equal(run.code, 0, run.stderr);
    const told = toolResults(server);
    assert.match(told, /No space left on device/);
    assert.match(told, /wrote: 1/);
    assert.match(told, /tmpfs +16 /, 'df shows the cap');
  });

  for (const [how, signal] of [
    ['Ctrl-C (SIGINT)', 'SIGINT'],
    ['kill -9', 'SIGKILL'],
  ] as const) {
    it(`leaves no command running after ${how}, background children included`, async () => {
      const marker = `1000.${process.pid}${Date.now() % 100_000}`;
      server.enqueue('anthropic', bash(`sleep ${marker} & nohup sleep ${marker} >/dev/null 2>&1 & setsid sleep ${marker} & sleep ${marker}`), {
        blocks: [{ type: 'text', text: 'Never reached.' }],
      });
      const run = await crow(['run', 'Wait', '--cwd', fx.workspace, '--provider', 'anthropic', '--model', 'claude-test'], env, (child) => {
        const poll = setInterval(() => {
          if (processesWith(`sleep ${marker}`).length >= 4) {
            clearInterval(poll);
            child.kill(signal);
          }
        }, 25);
        child.on('close', () => clearInterval(poll));
      });
      assert.equal(run.code, signal === 'SIGINT' ? 130 : null, run.stderr);
      await noProcessesWith(`sleep ${marker}`);
    });
  }
});

describe('crow run where the sandbox cannot run', () => {
  let server: FakeLlmServer;
  let fx: ReturnType<typeof fixture>;

  before(async () => {
    server = await FakeLlmServer.start();
  });
  after(() => server.close());
  beforeEach(() => server.reset());
  afterEach(() => fx.remove());

  const noBwrap = (home: string) => ({ CROW_BWRAP_PATH: join(home, 'no-bwrap'), ANTHROPIC_API_KEY: ANTHROPIC_KEY, ANTHROPIC_BASE_URL: server.anthropicBaseUrl });

  it('says once why commands run without the sandbox, and asks before running them', async () => {
    fx = fixture();
    server.enqueue('anthropic', bash('touch one.txt'), bash('touch two.txt'), { blocks: [{ type: 'text', text: 'Not allowed.' }] });
    const run = await crow(['run', 'Touch', '--cwd', fx.workspace, '--provider', 'anthropic', '--model', 'claude-test'], isolatedEnv(fx.home, noBwrap(fx.home)));
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stderr.match(/Commands run without the sandbox/g)?.length, 1, run.stderr);
    assert.match(run.stderr, /no-bwrap could not be started .*install bubblewrap .*Set sandbox = "off" in config\.toml/);
    assert.match(run.stderr, /Permission needed for Run: touch one\.txt.*pass --allow execute/);
    assert.ok(!existsSync(join(fx.workspace, 'one.txt')));
  });

  it('with sandbox = "required", refuses to run commands, saying how to install bubblewrap or turn it off', async () => {
    fx = fixture('sandbox = "required"\n');
    server.enqueue('anthropic', bash('touch ran.txt'), { blocks: [{ type: 'text', text: 'Refused.' }] });
    const run = await crow(
      ['run', 'Touch', '--cwd', fx.workspace, '--provider', 'anthropic', '--model', 'claude-test', '--allow', 'execute'],
      isolatedEnv(fx.home, noBwrap(fx.home)),
    );
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stderr, /Commands do not run: sandbox = "required"/);
    assert.match(toolResults(server), /Commands do not run: sandbox = \\"required\\", but .*apt install bubblewrap.*set sandbox = \\"off\\"/);
    assert.ok(!existsSync(join(fx.workspace, 'ran.txt')));
  });

  it('with sandbox = "required" and no --allow, the refusal gives the fix that works, not "pass --allow execute"', async () => {
    fx = fixture('sandbox = "required"\n');
    server.enqueue('anthropic', bash('touch ran.txt'), { blocks: [{ type: 'text', text: 'Refused.' }] });
    const run = await crow(['run', 'Touch', '--cwd', fx.workspace, '--provider', 'anthropic', '--model', 'claude-test'], isolatedEnv(fx.home, noBwrap(fx.home)));
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stderr, /✗ Could not run touch ran\.txt: Commands do not run: sandbox = "required", but .*install bubblewrap.*set sandbox = "off"/);
    assert.doesNotMatch(run.stderr, /--allow execute/, 'allowing commands would not make them run');
    assert.ok(!existsSync(join(fx.workspace, 'ran.txt')));
  });

  it('with sandbox = "off", says nothing and commands ask as before', async () => {
    fx = fixture('sandbox = "off"\n');
    server.enqueue('anthropic', bash('touch ran.txt'), { blocks: [{ type: 'text', text: 'Asked.' }] });
    const run = await crow(['run', 'Touch', '--cwd', fx.workspace, '--provider', 'anthropic', '--model', 'claude-test'], isolatedEnv(fx.home, noBwrap(fx.home)));
    assert.equal(run.code, 0, run.stderr);
    assert.doesNotMatch(run.stderr, /sandbox/);
    assert.match(run.stderr, /Permission needed for Run: touch ran\.txt/);
  });
});

describe('crow run with the sandbox off: no process of a command outlives it', function () {
  this.timeout(30_000);
  let server: FakeLlmServer;
  let fx: ReturnType<typeof fixture>;

  before(async () => {
    server = await FakeLlmServer.start();
  });
  after(() => server.close());
  beforeEach(() => {
    server.reset();
    fx = fixture('sandbox = "off"\n');
  });
  afterEach(() => fx.remove());

  const env = () => isolatedEnv(fx.home, { ANTHROPIC_API_KEY: ANTHROPIC_KEY, ANTHROPIC_BASE_URL: server.anthropicBaseUrl });
  /** Every way a shell lets a child leave: background, nohup, disown, a subshell, a new session. */
  const escapes = (marker: string) =>
    `sleep ${marker} & nohup sleep ${marker} >/dev/null 2>&1 & (sleep ${marker} &) ; sleep ${marker} & disown; setsid sleep ${marker} >/dev/null 2>&1 < /dev/null &`;

  it('after the command ends, what it left running (setsid, nohup, disown) is stopped', async () => {
    const marker = `1001.${process.pid}${Date.now() % 100_000}`;
    server.enqueue('anthropic', bash(`${escapes(marker)} echo started`), { blocks: [{ type: 'text', text: 'Left them running.' }] });
    const run = await crow(['run', 'Start things', '--cwd', fx.workspace, '--provider', 'anthropic', '--model', 'claude-test', '--allow', 'execute'], env());
    assert.equal(run.code, 0, run.stderr);
    assert.match(toolResults(server), /started/);
    await noProcessesWith(`sleep ${marker}`);
  });

  it('SIGTERM to crow while a command runs stops the command and every child it started', async () => {
    const marker = `1002.${process.pid}${Date.now() % 100_000}`;
    server.enqueue('anthropic', bash(`${escapes(marker)} sleep ${marker}`), { blocks: [{ type: 'text', text: 'Never reached.' }] });
    const run = await crow(['run', 'Wait', '--cwd', fx.workspace, '--provider', 'anthropic', '--model', 'claude-test', '--allow', 'execute'], env(), (child) => {
      const poll = setInterval(() => {
        if (processesWith(`sleep ${marker}`).length >= 6) {
          clearInterval(poll);
          child.kill('SIGTERM');
        }
      }, 25);
      child.on('close', () => clearInterval(poll));
    });
    assert.equal(run.code, 143, run.stderr);
    await noProcessesWith(`sleep ${marker}`);
  });
});
