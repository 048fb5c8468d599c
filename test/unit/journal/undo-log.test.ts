import assert from 'node:assert/strict';
import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PROMPT_CHARS, UndoLog } from '../../../src/journal/undo-log';

describe('UndoLog', () => {
  let base: string;
  let ws: string;
  let data: string;

  beforeEach(() => {
    base = realpathSync(mkdtempSync(join(tmpdir(), 'crow-undo-log-')));
    ws = join(base, 'ws');
    data = join(base, 'data');
    mkdirSync(ws);
  });
  afterEach(() => rmSync(base, { recursive: true, force: true }));

  const id = (n: number): string => String(n).repeat(40).slice(0, 40);

  it('folds the lines of each point into one entry and finds the latest, per session or overall', async () => {
    const log = new UndoLog({ workspace: ws, dataHome: data });
    assert.deepEqual(await log.list(), []);
    assert.equal(await log.latest(), undefined);

    const first = await log.start('s1', 'Fix the bug', 1000);
    const second = await log.start('s2', 'Add a test', 2000);
    // Lines of two points interleave, as two sessions' prompts do.
    await log.files(first, [{ path: 'a.ts', mode: '100644', blob: id(1) }]);
    await log.snapshot(second, id(9));
    await log.snapshot(first, id(2));
    await log.commandPaths(first, ['b.ts', 'c.ts']);
    await log.files(first, [{ path: 'new.ts', absent: true }]);
    await log.userIndex(first, { path: join(ws, '.git/index'), blob: id(3) });
    await log.gap(second, 'commands were not recorded: too large');

    const entries = await log.list();
    assert.deepEqual(entries[0], {
      sessionId: 's1',
      prompt: 'Fix the bug',
      at: 1000,
      workspace: ws,
      scope: 'points',
      snapshot: id(2),
      files: [
        { path: 'a.ts', mode: '100644', blob: id(1) },
        { path: 'new.ts', absent: true },
      ],
      commandPaths: ['b.ts', 'c.ts'],
      userIndex: { path: join(ws, '.git/index'), blob: id(3) },
      gaps: [],
      point: first,
      steps: [],
      marks: [],
    });
    assert.deepEqual(entries[1]!.gaps, ['commands were not recorded: too large']);
    assert.equal((await log.latest())?.prompt, 'Add a test');
    assert.equal((await log.latest('s1'))?.prompt, 'Fix the bug');
    assert.equal(await log.latest('nobody'), undefined);
    assert.ok(log.file.startsWith(join(data, 'undo')) && log.file.endsWith('.jsonl'));
  });

  it('orders steps and checkpoints as they began, whatever order their lines came in, and derives each path\'s first state', async () => {
    const log = new UndoLog({ workspace: ws, dataHome: data });
    const point = await log.start('s1', 'Edit twice', 1000);
    // A command began (seq 2) before a file tool's step (seq 4) was written, but its line comes last.
    await log.mark(point, 'at-start', 1);
    await log.mark(point, 'before-write', 3);
    await log.step(point, { seq: 4, files: [{ path: 'a.ts', mode: '100644', blob: id(5) }, { path: 'b.ts', mode: '100644', blob: id(6) }] });
    await log.step(point, { seq: 2, commandPaths: ['a.ts'], before: id(7) });
    await log.undone(point, 3);
    const [entry] = await log.list();
    assert.deepEqual(entry!.steps.map((step) => step.seq), [2, 4]);
    assert.deepEqual(entry!.marks, [{ id: 'at-start', seq: 1 }, { id: 'before-write', seq: 3 }]);
    assert.deepEqual(entry!.commandPaths, ['a.ts'], 'a.ts was first changed by the command');
    assert.deepEqual(entry!.files, [{ path: 'b.ts', mode: '100644', blob: id(6) }], 'b.ts by the file tool');
    assert.equal(entry!.undone, 3);
  });

  it('keeps the place of a step still being made (a file tool\'s copies hashed beside its change): a read from then on waits for it', async () => {
    const log = new UndoLog({ workspace: ws, dataHome: data });
    const point = await log.start('s1', 'Edit a big file', 1000);
    let made!: (files: { path: string; mode: string; blob: string }[]) => void;
    const files = new Promise<{ path: string; mode: string; blob: string }[]>((resolve) => (made = resolve));
    const written = log.step(point, files.then((states) => ({ seq: 1, files: states })));
    const read = log.list();
    // The read has begun; only now are the copies hashed.
    setImmediate(() => made([{ path: 'big.ts', mode: '100644', blob: id(4) }]));
    const [entry] = await read;
    await written;
    assert.deepEqual(entry!.files, [{ path: 'big.ts', mode: '100644', blob: id(4) }]);
  });

  it('still reads the whole-tree entries of earlier versions, from a log they left readable by others, which is made private', async () => {
    const log = new UndoLog({ workspace: ws, dataHome: data });
    mkdirSync(join(data, 'undo'), { recursive: true, mode: 0o755 });
    appendFileSync(log.file, `${JSON.stringify({ sessionId: 'old', snapshot: id(4), prompt: 'Before points', at: 500, workspace: ws })}\n`, { mode: 0o644 });
    await log.start('new', 'With points', 600);
    const [old] = await log.list();
    assert.deepEqual(old, { sessionId: 'old', snapshot: id(4), prompt: 'Before points', at: 500, workspace: ws, scope: 'tree', files: [], commandPaths: [], gaps: [], steps: [], marks: [] });
    assert.equal((await log.latest('old'))?.scope, 'tree');
    if (process.getuid) {
      assert.equal(statSync(log.file).mode & 0o777, 0o600);
      assert.equal(statSync(join(data, 'undo')).mode & 0o777, 0o700);
    }
  });

  it('shares one log between paths to the same folder and keeps others apart', async () => {
    symlinkSync(ws, join(base, 'alias'));
    mkdirSync(join(base, 'other'));
    const viaAlias = new UndoLog({ workspace: join(base, 'alias'), dataHome: data });
    await viaAlias.start('s', 'p');
    assert.equal((await new UndoLog({ workspace: ws, dataHome: data }).latest())?.workspace, ws);
    assert.equal(await new UndoLog({ workspace: join(base, 'other'), dataHome: data }).latest(), undefined);
  });

  it('skips a torn last line with a warning, and the next line still gets a line of its own', async () => {
    const warnings: string[] = [];
    const log = new UndoLog({ workspace: ws, dataHome: data, onWarning: (message) => warnings.push(message) });
    const point = await log.start('s', 'first');
    appendFileSync(log.file, '{"point":"x","snapsh');

    assert.deepEqual((await log.list()).map((entry) => entry.prompt), ['first']);
    assert.equal(warnings.length, 1);
    assert.match(warnings[0]!, /line 2 is damaged and was skipped/);

    await log.snapshot(point, id(5));
    assert.equal((await log.latest())?.snapshot, id(5));
    assert.equal(readFileSync(log.file, 'utf8').split('\n').length, 4, 'two lines, the torn one, a final newline');
  });

  it('skips lines that are JSON but not records, and cuts long prompts', async () => {
    const warnings: string[] = [];
    const log = new UndoLog({ workspace: ws, dataHome: data, onWarning: (message) => warnings.push(message) });
    const point = await log.start('s', 'x'.repeat(PROMPT_CHARS + 50));
    const bad = [
      { sessionId: 42 },
      { point, files: [{ path: 'a', mode: '040000', blob: id(1) }] },
      { point, files: [{ path: 'a', mode: '100644', blob: '--output=x' }] },
      { point, commandPaths: [7] },
    ];
    appendFileSync(log.file, `${bad.map((line) => JSON.stringify(line)).join('\n')}\n\n`);
    const [entry] = await log.list();
    assert.equal(entry!.prompt.length, PROMPT_CHARS);
    assert.deepEqual(entry!.files, []);
    assert.deepEqual(entry!.commandPaths, []);
    assert.equal(warnings.length, bad.length);
  });
});
