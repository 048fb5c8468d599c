/**
 * What crow runs or trusts from disk is its own (config/private-files.ts),
 * tried as another local user would, through the real binary: a compiled
 * code cache planted in a shared XDG_CACHE_HOME, a cache file in crow's own
 * folder that is not its own (another user's, readable by others, a link, a
 * FIFO), the sandbox probe's kept answer, and data folders (sessions, undo
 * snapshots) of another user. The planted code, run, would print a marker
 * with the user id it ran as.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { version } from '../../package.json';
import { FakeLlmServer } from '../../testkit/fake-llm-server';
import { anotherUserSuite, nodeAnyUserCanRun } from '../support/another-user';
import { CROW, runCrow } from '../support/crow-binary';
import { isolatedEnv } from '../support/isolated-env';

const BUNDLE = resolve(CROW, '..', 'crow-cli.js');
const MARKER = 'PLANTED-CODE-RAN';

/**
 * What an attacker writes in place of the launcher's cache: a V8 code cache of a script as long as
 * the wrapped bundle (V8's own check on a cache is the source's length), whose code prints the marker.
 * Run as `node plant.js BUNDLE OUT`.
 */
const PLANT = `
const { readFileSync, statSync, writeFileSync } = require('node:fs');
const { wrap } = require('node:module');
const { Script } = require('node:vm');
const [bundle, out] = process.argv.slice(2);
const [head, tail] = wrap('\\0').split('\\0');
const body = "process.stdout.write('${MARKER} uid=' + process.getuid() + '\\\\n');";
const length = head.length + statSync(bundle).size + tail.length;
const source = head + body + ' '.repeat(length - head.length - body.length - tail.length) + tail;
writeFileSync(out, new Script(source, { filename: bundle }).createCachedData(), { mode: 0o600 });
`;

describe('what crow runs from its caches is its own', function () {
  this.timeout(60_000);
  let base: string;
  let plant: string;
  const other = anotherUserSuite();
  beforeEach(() => {
    base = mkdtempSync(join(tmpdir(), 'crow-own-caches-'));
    // Where the other user can read the planting script and reach a shared folder (mkdtemp makes it 0700).
    chmodSync(base, 0o755);
    plant = join(base, 'plant.js');
    writeFileSync(plant, PLANT, { mode: 0o644 });
  });
  afterEach(() => rmSync(base, { recursive: true, force: true }));

  const crowAsRoot = (cacheHome: string) =>
    spawnSync(process.execPath, [CROW, '--version'], { encoding: 'utf8', timeout: 30_000, env: { PATH: process.env.PATH, HOME: join(base, 'root-home'), XDG_CACHE_HOME: cacheHome } });
  const cachesIn = (folder: string): string[] => readdirSync(folder).filter((name) => name.endsWith('.v8cache'));
  /** A folder everyone may write in, as a shared XDG_CACHE_HOME is: sticky like /tmp, or not. */
  const sharedFolder = (mode: number): string => {
    const folder = join(base, 'shared');
    mkdirSync(folder);
    chmodSync(folder, mode);
    return folder;
  };

  it('a compiled-code cache another user planted in a shared XDG_CACHE_HOME never runs: their folder is not used at all', () => {
    const shared = sharedFolder(0o1777);
    const env = { PATH: process.env.PATH, HOME: '/nonexistent', XDG_CACHE_HOME: shared };
    // The other user runs crow once (the cache gets the name crow will look for), then replaces the cache.
    assert.equal(other.user.run(nodeAnyUserCanRun(), [CROW, '--version'], env).status, 0);
    const folder = join(shared, 'crow-agent', 'compile-cache');
    const [name] = cachesIn(folder);
    assert.ok(name, 'the other user\'s crow kept a cache');
    const planted = other.user.run(nodeAnyUserCanRun(), [plant, BUNDLE, join(folder, name)], env);
    assert.equal(planted.status, 0, planted.stderr);
    assert.match(other.user.run(nodeAnyUserCanRun(), [CROW, '--version'], env).stdout, new RegExp(`${MARKER} uid=${other.user.uid}`), 'the planted cache is one crow would run');
    const before = readFileSync(join(folder, name));

    const result = crowAsRoot(shared);
    assert.equal(result.status, 0, result.stderr);
    assert.equal(result.stdout, `${version}\n`, 'the planted code did not run');
    assert.deepEqual(readFileSync(join(folder, name)), before, "the other user's cache was neither read nor replaced");
    assert.deepEqual(cachesIn(folder), [name]);
    assert.equal(lstatSync(folder).uid, other.user.uid);
  });

  it('keeps no cache below a shared folder others may write in without the sticky bit: they could swap it between two runs', () => {
    const shared = sharedFolder(0o777);
    const result = crowAsRoot(shared);
    assert.equal(result.status, 0, result.stderr);
    assert.equal(result.stdout, `${version}\n`);
    assert.deepEqual(readdirSync(shared), [], 'nothing was made there');
  });

  const planters: Record<string, (file: string) => void> = {
    "another user's file": (file) => {
      execFileSync(process.execPath, [plant, BUNDLE, file]);
      chownSync(file, other.user.uid, other.user.gid);
    },
    'a file others may read and write': (file) => {
      execFileSync(process.execPath, [plant, BUNDLE, file]);
      chmodSync(file, 0o666);
    },
    'a link to a file elsewhere': (file) => {
      const elsewhere = join(base, 'elsewhere.v8cache');
      execFileSync(process.execPath, [plant, BUNDLE, elsewhere]);
      rmSync(file);
      symlinkSync(elsewhere, file);
    },
    'a FIFO': (file) => {
      rmSync(file);
      execFileSync('mkfifo', ['-m', '600', file]);
    },
  };
  for (const [what, planter] of Object.entries(planters)) {
    it(`a cache in crow's own folder that is ${what} is never loaded, and is written anew`, () => {
      const cacheHome = join(base, 'cache');
      assert.equal(crowAsRoot(cacheHome).status, 0);
      const folder = join(cacheHome, 'crow-agent', 'compile-cache');
      const [name] = cachesIn(folder);
      const file = join(folder, name!);
      planter(file);
      const result = crowAsRoot(cacheHome);
      assert.equal(result.status, 0, result.stderr);
      assert.equal(result.stdout, `${version}\n`, 'the planted code did not run');
      const after = lstatSync(file);
      assert.ok(after.isFile(), 'a regular file stands there again');
      assert.equal(after.uid, process.getuid!());
      assert.equal(after.mode & 0o777, 0o600);
      assert.doesNotMatch(readFileSync(file, 'latin1'), new RegExp(MARKER), 'written anew by this run');
      assert.equal(crowAsRoot(cacheHome).stdout, `${version}\n`, 'and taken by the next');
    });
  }

  it("empties crow's own cache folder when others could have written in it, and makes it private again", () => {
    const cacheHome = join(base, 'cache');
    assert.equal(crowAsRoot(cacheHome).status, 0);
    const folder = join(cacheHome, 'crow-agent', 'compile-cache');
    const [name] = cachesIn(folder);
    chmodSync(folder, 0o777);
    execFileSync(process.execPath, [plant, BUNDLE, join(folder, name!)]);
    const result = crowAsRoot(cacheHome);
    assert.equal(result.stdout, `${version}\n`, 'the planted code did not run');
    assert.equal(lstatSync(folder).mode & 0o777, 0o700);
    assert.doesNotMatch(readFileSync(join(folder, name!), 'latin1'), new RegExp(MARKER));
  });
});

describe("crow's other caches and stores are its own", function () {
  this.timeout(60_000);
  let llm: FakeLlmServer;
  let base: string;
  const other = anotherUserSuite();

  before(async () => (llm = await FakeLlmServer.start()));
  after(async () => llm?.close());
  beforeEach(() => {
    llm.reset();
    base = mkdtempSync(join(tmpdir(), 'crow-own-stores-'));
    mkdirSync(join(base, 'ws'));
  });
  afterEach(() => rmSync(base, { recursive: true, force: true }));

  const home = (): string => join(base, 'home');
  const env = (extra: Record<string, string> = {}): NodeJS.ProcessEnv =>
    isolatedEnv(home(), { ANTHROPIC_API_KEY: 'own-stores-key', ANTHROPIC_BASE_URL: llm.anthropicBaseUrl, ...extra });

  describe('the sandbox probe', () => {
    const bwrap = (): string => join(base, 'bwrap');
    // A probe runs `cat /proc/self/status` in the sandbox (see sandbox-probe.ts): the fake answers as a confining bwrap does.
    const probes = (): number => (existsSync(join(base, 'runs')) ? readFileSync(join(base, 'runs'), 'utf8').split('\n').filter((line) => line.endsWith('/proc/self/status')).length : 0);
    const confinedStatus = ['CapInh', 'CapPrm', 'CapEff', 'CapBnd', 'CapAmb'].map((set) => `${set}:\t0000000000000000`).join('\\n') + '\\nNoNewPrivs:\t1\\n';
    const probeFile = (): string => join(home(), '.cache', 'crow-agent', 'sandbox-probe.json');
    async function run(): Promise<void> {
      llm.enqueue('anthropic', { blocks: [{ type: 'text', text: 'Hello.' }] });
      const result = await runCrow(['run', 'hi', '--provider', 'anthropic', '--model', 'claude-test', '--no-undo'], env({ CROW_BWRAP_PATH: bwrap() }), join(base, 'ws'));
      assert.equal(result.code, 0, result.stderr);
    }

    it('takes a kept answer only from its own file: one of another user, readable by others or a link is probed again and replaced', async () => {
      writeFileSync(bwrap(), `#!/bin/sh\necho "$*" >> '${join(base, 'runs')}'\nprintf '${confinedStatus}'\n`, { mode: 0o755 });
      await run();
      assert.equal(probes(), 1);
      const answer = readFileSync(probeFile());
      const plants: [string, () => void][] = [
        ['readable by others', () => chmodSync(probeFile(), 0o644)],
        ["another user's", () => chownSync(probeFile(), other.user.uid, other.user.gid)],
        [
          'a link',
          () => {
            writeFileSync(join(base, 'answer.json'), answer, { mode: 0o600 });
            rmSync(probeFile());
            symlinkSync(join(base, 'answer.json'), probeFile());
          },
        ],
      ];
      for (const [i, [what, plantIt]] of plants.entries()) {
        plantIt();
        await run();
        assert.equal(probes(), i + 2, `a kept answer that is ${what} was not taken`);
        const kept = lstatSync(probeFile());
        assert.ok(kept.isFile() && kept.uid === process.getuid!() && (kept.mode & 0o777) === 0o600, `the answer that was ${what} was written anew`);
        await run();
        assert.equal(probes(), i + 2, 'and the new one is taken');
      }
    });
  });

  describe('sessions, undo snapshots and the undo log', () => {
    it("refuses to keep sessions in another user's data folder, saying what to do, and writes nothing there", async () => {
      const data = join(base, 'shared-data');
      mkdirSync(join(data, 'crow-agent'), { recursive: true });
      chmodSync(data, 0o1777);
      chownSync(join(data, 'crow-agent'), other.user.uid, other.user.gid);
      llm.enqueue('anthropic', { blocks: [{ type: 'text', text: 'Hello.' }] });
      const result = await runCrow(['run', 'hi', '--provider', 'anthropic', '--model', 'claude-test'], env({ XDG_DATA_HOME: data }), join(base, 'ws'));
      assert.notEqual(result.code, 0);
      assert.match(result.stderr, /Sessions are never kept where another user could change them: .*crow-agent belongs to user \d+.*Set XDG_DATA_HOME to a folder of your own/);
      assert.deepEqual(readdirSync(join(data, 'crow-agent')), []);
      const list = await runCrow(['sessions', 'list'], env({ XDG_DATA_HOME: data }), join(base, 'ws'));
      assert.match(list.stderr, /Sessions are never kept where another user could change them/, 'nor read from there');
    });

    it("keeps no undo snapshot in a snapshots folder of another user (git would read its config), and says undo is off", async () => {
      const snapshots = join(home(), 'data', 'crow-agent', 'snapshots');
      mkdirSync(snapshots, { recursive: true, mode: 0o700 });
      chownSync(snapshots, other.user.uid, other.user.gid);
      llm.enqueue(
        'anthropic',
        { blocks: [{ type: 'tool_call', name: 'write_file', arguments: { path: 'plan.md', content: '# Plan\n' } }] },
        { blocks: [{ type: 'text', text: 'Done.' }] },
      );
      const result = await runCrow(['run', 'Write the plan', '--provider', 'anthropic', '--model', 'claude-test', '--allow', 'write'], env(), join(base, 'ws'));
      assert.equal(result.code, 0, result.stderr);
      assert.match(result.stderr, /Undo: .*never kept where another user could change them: .*snapshots belongs to user \d+/);
      assert.deepEqual(readdirSync(snapshots), [], "nothing was written in the other user's folder");
      assert.equal(readFileSync(join(base, 'ws', 'plan.md'), 'utf8'), '# Plan\n', 'the work itself was done');
    });

    it('reads the undo log only from its own file: one of another user, or a link to one, is refused with what to do, and undo touches nothing', async () => {
      const undoFolder = join(home(), 'data', 'crow-agent', 'undo');
      llm.enqueue(
        'anthropic',
        { blocks: [{ type: 'tool_call', name: 'write_file', arguments: { path: 'plan.md', content: '# Plan\n' } }] },
        { blocks: [{ type: 'text', text: 'Done.' }] },
      );
      const made = await runCrow(['run', 'Write the plan', '--provider', 'anthropic', '--model', 'claude-test', '--allow', 'write'], env(), join(base, 'ws'));
      assert.equal(made.code, 0, made.stderr);
      const [name] = readdirSync(undoFolder);
      const log = join(undoFolder, name!);
      const plants: [string, () => void, RegExp][] = [
        ["another user's", () => chownSync(log, other.user.uid, other.user.gid), /belongs to user \d+, not to you/],
        [
          'a link',
          () => {
            chownSync(log, process.getuid!(), process.getgid!());
            writeFileSync(join(base, 'log.jsonl'), readFileSync(log), { mode: 0o600 });
            rmSync(log);
            symlinkSync(join(base, 'log.jsonl'), log);
          },
          /is a link/,
        ],
      ];
      for (const [what, plantIt, why] of plants) {
        plantIt();
        const undo = await runCrow(['undo', '--yes'], env(), join(base, 'ws'));
        assert.notEqual(undo.code, 0, `an undo log that is ${what} was used:\n${undo.stdout}`);
        assert.match(undo.stderr, /Undo's log is kept and read only where no other user could change it: /);
        assert.match(undo.stderr, why);
        assert.match(undo.stderr, /Remove it .*or set XDG_DATA_HOME to a folder of your own/);
        assert.equal(readFileSync(join(base, 'ws', 'plan.md'), 'utf8'), '# Plan\n', 'nothing was undone');
      }
      llm.enqueue('anthropic', { blocks: [{ type: 'tool_call', name: 'write_file', arguments: { path: 'more.md', content: 'more\n' } }] }, { blocks: [{ type: 'text', text: 'Done.' }] });
      const next = await runCrow(['run', 'Write more', '--provider', 'anthropic', '--model', 'claude-test', '--allow', 'write'], env(), join(base, 'ws'));
      assert.equal(next.code, 0, next.stderr);
      assert.match(next.stderr, /Undo: .*Undo's log is kept and read only where no other user could change it: .*is a link/, 'a run says undo is off, and why');
      assert.equal(readFileSync(join(base, 'log.jsonl'), 'utf8').includes('more.md'), false, 'nothing was written through the link');
      assert.equal(readFileSync(join(base, 'ws', 'more.md'), 'utf8'), 'more\n', 'the work itself was done');
    });
  });
});
