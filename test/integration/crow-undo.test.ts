import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CliIO } from '../../src/adapters/cli/cli-io';
import { undoCommand } from '../../src/adapters/cli/undo-command';
import { dataHome } from '../../src/config/paths';
import { ACPSession } from '../../src/session/acp-session';
import { GitSnapshotManager } from '../../src/journal/git-snapshots';
import { SessionStore } from '../../src/session/session-store';
import { UndoLog } from '../../src/journal/undo-log';
import { SessionUndo } from '../../src/journal/session-undo';

/** An in-memory terminal: what the command wrote, and the lines it will read. */
class FakeIO implements CliIO {
  readonly stdout = fakeStream();
  readonly stderr = fakeStream();
  readonly prompts: string[] = [];

  constructor(
    readonly cwd: string,
    readonly env: NodeJS.ProcessEnv,
    readonly stdinIsTTY: boolean,
    private readonly answers: string[] = [],
  ) {}

  get out(): string {
    return this.stdout.text;
  }
  get err(): string {
    return this.stderr.text;
  }
  async readStdin(): Promise<string> {
    return '';
  }
  async readLine(): Promise<string | undefined> {
    return this.answers.shift();
  }
  onInterrupt(): () => void {
    return () => undefined;
  }
}

function fakeStream(): NodeJS.WriteStream & { text: string } {
  const stream = {
    text: '',
    isTTY: false,
    write(chunk: string | Uint8Array): boolean {
      stream.text += chunk.toString();
      return true;
    },
  };
  return stream as unknown as NodeJS.WriteStream & { text: string };
}

describe('crow undo', () => {
  let base: string;
  let ws: string;
  let env: NodeJS.ProcessEnv;

  beforeEach(() => {
    base = realpathSync(mkdtempSync(join(tmpdir(), 'crow-undo-')));
    ws = join(base, 'ws');
    mkdirSync(join(ws, 'src'), { recursive: true });
    env = { PATH: process.env.PATH, HOME: base, XDG_DATA_HOME: join(base, 'data') };
    writeFileSync(join(ws, 'src/a.ts'), 'export const a = 1;\n');
    writeFileSync(join(ws, 'README.md'), '# project\n');
  });
  afterEach(() => rmSync(base, { recursive: true, force: true }));

  const read = (path: string): string => readFileSync(join(ws, path), 'utf8');

  /** A prompt as `crow run` records it: the agent edits one file and creates another. */
  async function runAgent(sessionId = 'session-1', prompt = 'Refactor a'): Promise<void> {
    const undo = new SessionUndo({ root: ws, dataHome: dataHome(env), env });
    const point = undo.begin({ sessionId, prompt, notify: () => undefined });
    await undo.beforeFileChanges(['src/a.ts', 'src/new.ts'], new AbortController().signal);
    writeFileSync(join(ws, 'src/a.ts'), 'export const a = 2;\nexport const b = 3;\n');
    writeFileSync(join(ws, 'src/new.ts'), 'new\n');
    await point.settled();
  }

  it('previews and exits 2 without touching anything when it cannot ask', async () => {
    await runAgent();
    const io = new FakeIO(ws, env, false);
    assert.equal(await undoCommand([], io), 2);
    assert.match(io.out, /Undo "Refactor a" \(session session-1, just now\)/);
    assert.match(io.out, /restore\s+src\/a\.ts\s+\| 3 \+--/);
    assert.match(io.out, /delete\s+src\/new\.ts\s+\| 1 -/, 'what it is about to do, not what it did');
    assert.match(io.out, /2 files: 1 to restore, 1 to delete; 1 line back, 3 lines gone/);
    assert.doesNotMatch(io.out, /deleted|modified/);
    assert.match(io.err, /no answer came on stdin.*Run it again with --yes/);
    assert.equal(read('src/a.ts'), 'export const a = 2;\nexport const b = 3;\n');
    assert.ok(existsSync(join(ws, 'src/new.ts')));
  });

  it('restores with --yes and says what it did', async () => {
    await runAgent();
    const io = new FakeIO(base, env, false);
    assert.equal(await undoCommand(['--cwd', 'ws', '--yes'], io), 0);
    assert.match(io.out, /Restored 2 files: 1 modified, 1 deleted\./);
    assert.equal(read('src/a.ts'), 'export const a = 1;\n');
    assert.equal(existsSync(join(ws, 'src/new.ts')), false);
    assert.equal(read('README.md'), '# project\n');

    // Undone once: undoing again goes further back, and there is nothing further back.
    const again = new FakeIO(ws, env, false);
    assert.equal(await undoCommand([], again), 1);
    assert.match(again.err, /every prompt recorded here has been undone already/);
  });

  it('tells the agents of the undone prompt\'s session that the files are back, and warns, telling nobody, while the session is open elsewhere', async () => {
    const store = new SessionStore({ dataHome: dataHome(env) });
    const session = new ACPSession({ id: 'session-1', cwd: ws, agentName: 'build' });
    session.sessionFor('primary', 'builder').addUserMessage('Refactor a');
    store.attach(session).close();
    await runAgent('session-1');
    // Another process (a crow acp, say) holds the session while crow undo runs.
    const lock = join(dataHome(env), 'sessions', 'session-1', 'writer.json');
    const holder = spawn('sleep', ['30'], { stdio: 'ignore' });
    try {
      writeFileSync(lock, JSON.stringify({ pid: holder.pid, hostname: hostname(), since: Date.now(), command: 'crow acp' }));
      const busy = new FakeIO(ws, env, false);
      assert.equal(await undoCommand(['--yes'], busy), 0);
      assert.match(busy.err, /session session-1 is open elsewhere, so its agents were not told these files were restored; say so in your next message there/);
    } finally {
      holder.kill();
      rmSync(lock, { force: true });
    }
    const told = (): string => JSON.stringify(store.load('session-1').internalSessions().map(({ session: history }) => history.entries));
    assert.doesNotMatch(told(), /undid the prompt/);

    await runAgent('session-1', 'Refactor a again');
    const io = new FakeIO(ws, env, false);
    assert.equal(await undoCommand(['--yes'], io), 0);
    assert.equal(io.err, '');
    assert.match(told(), /The person undid the prompt \\"Refactor a again\\": (src\/a\.ts, src\/new\.ts|src\/new\.ts, src\/a\.ts) are back as they were before/);
  });

  it('asks on a terminal and respects the answer', async () => {
    await runAgent();
    const declined = new FakeIO(ws, env, true, ['n']);
    assert.equal(await undoCommand([], declined), 1);
    assert.match(declined.err, /Restore these files\? \[y\/N\]/);
    assert.match(declined.err, /Nothing restored/);
    assert.ok(existsSync(join(ws, 'src/new.ts')));

    const accepted = new FakeIO(ws, env, true, ['y']);
    assert.equal(await undoCommand([], accepted), 0);
    assert.equal(existsSync(join(ws, 'src/new.ts')), false);
  });

  it('undoes the last prompt of the session asked for', async () => {
    await runAgent('first', 'First prompt');
    await runAgent('second', 'Second prompt');
    writeFileSync(join(ws, 'later.txt'), 'written by the user after both prompts');
    const io = new FakeIO(ws, env, false);
    assert.equal(await undoCommand(['--session', 'first', '--yes'], io), 0);
    assert.match(io.out, /Undo "First prompt"/);
    assert.equal(read('src/a.ts'), 'export const a = 1;\n');
    assert.equal(read('later.txt'), 'written by the user after both prompts', 'a file no prompt made is not touched');
  });

  it('still undoes a prompt an earlier version recorded as a whole-tree snapshot', async () => {
    const snapshot = await new GitSnapshotManager({ workspace: ws, dataHome: dataHome(env), env }).track();
    const log = new UndoLog({ workspace: ws, dataHome: dataHome(env) });
    mkdirSync(join(dataHome(env), 'undo'), { recursive: true });
    writeFileSync(log.file, `${JSON.stringify({ sessionId: 'old', snapshot, prompt: 'Old prompt', at: Date.now(), workspace: ws })}\n`);
    writeFileSync(join(ws, 'src/a.ts'), 'changed\n');
    const io = new FakeIO(ws, env, false);
    assert.equal(await undoCommand(['--yes'], io), 0);
    assert.match(io.out, /Undo "Old prompt"/);
    assert.equal(read('src/a.ts'), 'export const a = 1;\n');
  });

  it('says so when there is nothing to undo, and rejects a missing folder', async () => {
    const io = new FakeIO(ws, env, false);
    assert.equal(await undoCommand(['--yes'], io), 1);
    assert.match(io.err, /nothing to undo in .*ws: no crow run recorded anything in this folder/);
    const unknown = new FakeIO(ws, env, false);
    await runAgent();
    await assert.rejects(undoCommand(['--session', 'nope'], unknown), /No stored session "nope"/);
    await assert.rejects(undoCommand(['--cwd', join(base, 'missing')], io), /missing does not exist/);
  });

  it('prints its help', async () => {
    const io = new FakeIO(ws, env, false);
    assert.equal(await undoCommand(['--help'], io), 0);
    assert.match(io.out, /Usage: crow undo/);
    assert.match(io.out, /--yes/);
  });
});
