import assert from 'node:assert/strict';
import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PROMPT_CHARS, UndoLog } from '../../../src/session/undo-log';

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

  const snapshot = (n: number): string => String(n).repeat(40).slice(0, 40);

  it('records entries and finds the latest, per session or overall', async () => {
    const log = new UndoLog({ workspace: ws, dataHome: data });
    assert.deepEqual(await log.list(), []);
    assert.equal(await log.latest(), undefined);

    const first = await log.record({ sessionId: 's1', snapshot: snapshot(1), prompt: 'Fix the bug', at: 1000 });
    assert.deepEqual(first, { sessionId: 's1', snapshot: snapshot(1), prompt: 'Fix the bug', at: 1000, workspace: ws });
    await log.record({ sessionId: 's2', snapshot: snapshot(2), prompt: 'Add a test', at: 2000 });
    await log.record({ sessionId: 's1', snapshot: snapshot(3), prompt: 'Now refactor', at: 3000 });

    assert.deepEqual((await log.list()).map((entry) => entry.snapshot), [snapshot(1), snapshot(2), snapshot(3)]);
    assert.equal((await log.latest())?.snapshot, snapshot(3));
    assert.equal((await log.latest('s2'))?.snapshot, snapshot(2));
    assert.equal(await log.latest('nobody'), undefined);
    assert.ok(log.file.startsWith(join(data, 'undo')) && log.file.endsWith('.jsonl'));
  });

  it('shares one log between paths to the same folder and keeps others apart', async () => {
    symlinkSync(ws, join(base, 'alias'));
    mkdirSync(join(base, 'other'));
    const viaAlias = new UndoLog({ workspace: join(base, 'alias'), dataHome: data });
    await viaAlias.record({ sessionId: 's', snapshot: snapshot(1), prompt: 'p' });
    assert.equal((await new UndoLog({ workspace: ws, dataHome: data }).latest())?.workspace, ws);
    assert.equal(await new UndoLog({ workspace: join(base, 'other'), dataHome: data }).latest(), undefined);
  });

  it('skips a torn last line with a warning, and the next entry still gets a line of its own', async () => {
    const warnings: string[] = [];
    const log = new UndoLog({ workspace: ws, dataHome: data, onWarning: (message) => warnings.push(message) });
    await log.record({ sessionId: 's', snapshot: snapshot(1), prompt: 'first' });
    appendFileSync(log.file, '{"sessionId":"s","snapsh');

    assert.deepEqual((await log.list()).map((entry) => entry.prompt), ['first']);
    assert.equal(warnings.length, 1);
    assert.match(warnings[0]!, /line 2 is damaged and was skipped/);

    await log.record({ sessionId: 's', snapshot: snapshot(2), prompt: 'second' });
    assert.equal((await log.latest())?.prompt, 'second');
    assert.equal(readFileSync(log.file, 'utf8').split('\n').length, 4, 'two entries, the torn line, a final newline');
  });

  it('skips lines that are JSON but not entries, and cuts long prompts', async () => {
    const warnings: string[] = [];
    const log = new UndoLog({ workspace: ws, dataHome: data, onWarning: (message) => warnings.push(message) });
    await log.record({ sessionId: 's', snapshot: snapshot(1), prompt: 'x'.repeat(PROMPT_CHARS + 50) });
    appendFileSync(log.file, '{"sessionId":42}\n\n');
    assert.equal((await log.list())[0]!.prompt.length, PROMPT_CHARS);
    assert.equal(warnings.length, 1);
  });
});
