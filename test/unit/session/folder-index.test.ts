import assert from 'node:assert/strict';
import { chownSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FolderIndex, folderKeys, folderMatcher } from '../../../src/session/folder-index';
import { ACPSession } from '../../../src/session/acp-session';
import { SessionStore } from '../../../src/session/session-store';

/** Long enough for the sessions folder's last change to count as settled (see SETTLE_MS in folder-index.ts). */
const settle = (): Promise<void> => new Promise((done) => setTimeout(done, 2_100));

describe('the index of sessions by folder', () => {
  let base: string;
  let data: string;
  let warnings: string[];
  const store = (): SessionStore => new SessionStore({ dataHome: data, warn: (message) => warnings.push(message) });
  const stored = (cwd: string, title = 't'): string => {
    const session = new ACPSession({ cwd, agentName: 'build' });
    session.title = title;
    store().attach(session).close();
    return session.id;
  };
  const ids = (cwd: string): string[] => store().list({ cwd }).map((meta) => meta.id).sort();
  const state = (): { stamp?: string; pending: string[] } => JSON.parse(readFileSync(join(data, 'sessions-by-folder', 'state.json'), 'utf8'));

  beforeEach(() => {
    base = realpathSync(mkdtempSync(join(tmpdir(), 'crow-folder-index-')));
    data = join(base, 'data');
    warnings = [];
    for (const name of ['a', 'b']) mkdirSync(join(base, name));
  });
  afterEach(() => rmSync(base, { recursive: true, force: true }));

  it('lists each folder\'s own sessions, filed when they are made and forgotten when deleted', () => {
    const a = [stored(join(base, 'a')), stored(join(base, 'a'))].sort();
    const b = stored(join(base, 'b'));
    assert.deepEqual(ids(join(base, 'a')), a);
    assert.deepEqual(ids(join(base, 'b')), [b]);
    assert.deepEqual(ids(join(base, 'c')), []);
    store().delete(a[0]!);
    assert.deepEqual(ids(join(base, 'a')), [a[1]]);
    const entries = readdirSync(join(data, 'sessions-by-folder')).flatMap((key) => (key === 'state.json' ? [] : readdirSync(join(data, 'sessions-by-folder', key))));
    assert.deepEqual(entries.sort(), [a[1], b].sort(), 'the deleted session\'s entry went with it');
    assert.deepEqual(warnings, []);
  });

  it('files a session whose meta.json came after its folder, once it has one, while nothing else changed', async () => {
    const a = join(base, 'a');
    const mine = stored(a);
    const late = 'late-0001';
    mkdirSync(join(data, 'sessions', late));
    await settle();
    assert.deepEqual(ids(a), [mine]);
    assert.deepEqual(state().pending, [late]);
    assert.ok(state().stamp !== undefined, 'the sessions folder had settled: its stamp is trusted from now on');
    const meta = JSON.parse(readFileSync(join(data, 'sessions', mine, 'meta.json'), 'utf8'));
    writeFileSync(join(data, 'sessions', late, 'meta.json'), JSON.stringify({ ...meta, id: late }));
    assert.deepEqual(ids(a), [late, mine].sort());
    assert.deepEqual(state().pending, []);
  });

  it('takes a meta.json whose folder is not a path for one without a folder: never listed by folder, never in the way', () => {
    const a = join(base, 'a');
    const mine = stored(a);
    const meta = JSON.parse(readFileSync(join(data, 'sessions', mine, 'meta.json'), 'utf8'));
    for (const [id, cwd] of [['odd-0001', 42], ['odd-0002', ['/x']], ['odd-0003', ''], ['odd-0004', null]] as const) {
      mkdirSync(join(data, 'sessions', id));
      writeFileSync(join(data, 'sessions', id, 'meta.json'), JSON.stringify({ ...meta, id, cwd }));
    }
    assert.deepEqual(ids(a), [mine]);
    assert.deepEqual(state().pending.sort(), ['odd-0001', 'odd-0002', 'odd-0003', 'odd-0004']);
    assert.equal(store().list().length, 5, '--all still lists them as they are');
    assert.deepEqual(warnings, []);
  });

  it('trusts its stamp only once the sessions folder has settled, so a change in the same tick of its clock is not missed', () => {
    const a = join(base, 'a');
    stored(a);
    ids(a);
    assert.equal(state().stamp, undefined, 'taken right after a change: not trusted yet');
  });

  it('keeps its stamp when Crow makes or deletes a session, so the next listing needs no catch-up', async () => {
    const a = join(base, 'a');
    const b = join(base, 'b');
    const mine = stored(a);
    await settle();
    ids(a);
    const current = (): string => {
      const stats = statSync(join(data, 'sessions'), { bigint: true });
      return `${stats.dev}:${stats.ino}:${stats.mtimeNs}:${stats.ctimeNs}:${stats.nlink}`;
    };
    assert.equal(state().stamp, current(), 'settled: trusted');
    const theirs = stored(b);
    assert.equal(state().stamp, current(), 'moved on with the session made');
    store().delete(mine);
    assert.equal(state().stamp, current(), 'moved on with the session deleted');
    assert.deepEqual([ids(a), ids(b)], [[], [theirs]]);
  });

  it('leaves its stamp to be caught up when another session folder came at the moment Crow made one', async () => {
    const a = join(base, 'a');
    const b = join(base, 'b');
    const mine = stored(a);
    await settle();
    ids(a);
    const sessions = join(data, 'sessions');
    const meta = JSON.parse(readFileSync(join(sessions, mine, 'meta.json'), 'utf8'));
    const index = new FolderIndex(sessions, join(data, 'sessions-by-folder'), (id) => JSON.parse(readFileSync(join(sessions, id, 'meta.json'), 'utf8')).cwd, (message) => warnings.push(message));
    const stamp = state().stamp;
    index.adding('mine-0001', a, () => {
      mkdirSync(join(sessions, 'mine-0001'));
      writeFileSync(join(sessions, 'mine-0001', 'meta.json'), JSON.stringify({ ...meta, id: 'mine-0001' }));
      // Put in by an older Crow, or by hand, between the two looks at the sessions folder: no entry.
      mkdirSync(join(sessions, 'foreign-0002'));
      writeFileSync(join(sessions, 'foreign-0002', 'meta.json'), JSON.stringify({ ...meta, id: 'foreign-0002', cwd: b }));
    });
    assert.equal(state().stamp, stamp, 'not moved on: the sessions folder changed by more than the one session');
    assert.deepEqual(ids(b), ['foreign-0002']);
    assert.deepEqual(ids(a), ['mine-0001', mine].sort());
    assert.deepEqual(warnings, []);
  });

  it('keeps an entry just filed for a session whose folder is still to come, when a catch-up runs in between', () => {
    const a = join(base, 'a');
    const mine = stored(a);
    ids(a);
    const sessions = join(data, 'sessions');
    const index = new FolderIndex(sessions, join(data, 'sessions-by-folder'), () => undefined, (message) => warnings.push(message));
    // Another Crow is making a session: filed first, its folder not there yet; meanwhile a copy by hand makes the next listing catch up.
    assert.equal(index.add('coming-0001', a), true);
    mkdirSync(join(sessions, 'by-hand-0002'));
    assert.deepEqual(ids(a), [mine]);
    const key = readdirSync(join(data, 'sessions-by-folder')).find((name) => existsSync(join(data, 'sessions-by-folder', name, mine)))!;
    assert.ok(existsSync(join(data, 'sessions-by-folder', key, 'coming-0001')), 'the entry of the session being made stays');
    const meta = JSON.parse(readFileSync(join(sessions, mine, 'meta.json'), 'utf8'));
    mkdirSync(join(sessions, 'coming-0001'));
    writeFileSync(join(sessions, 'coming-0001', 'meta.json'), JSON.stringify({ ...meta, id: 'coming-0001' }));
    assert.deepEqual(ids(a), ['coming-0001', mine].sort());
  });

  it('finds the sessions of a folder by its real path, by a link to it, and as written with a trailing slash', () => {
    const real = join(base, 'a');
    const link = join(base, 'link');
    symlinkSync(real, link);
    const viaLink = stored(link);
    const direct = stored(real);
    for (const cwd of [real, link, `${real}/`, `${link}/`]) assert.deepEqual(ids(cwd), [viaLink, direct].sort(), cwd);
    assert.deepEqual(ids(join(base, 'b')), []);
  });

  it('keeps a folder that is gone, or given as a relative path, to the path as written', () => {
    const gone = join(base, 'gone', 'deep');
    const id = stored(gone);
    assert.deepEqual(ids(gone), [id]);
    const relative = stored('some/relative');
    assert.deepEqual(ids('some/relative'), [relative]);
    assert.deepEqual(ids(join(process.cwd(), 'some/relative')), [], 'a relative path is only ever the same path as written');
  });

  it('rebuilds the index from the sessions when a link, a file or junk stands in its place', () => {
    const a = join(base, 'a');
    const mine = stored(a);
    const index = join(data, 'sessions-by-folder');
    const outside = join(base, 'outside');
    mkdirSync(outside);
    for (const plant of [() => writeFileSync(index, 'junk'), () => symlinkSync(outside, index), () => mkdirSync(join(index, 'not-a-key'), { recursive: true })]) {
      rmSync(index, { recursive: true, force: true });
      plant();
      assert.deepEqual(ids(a), [mine]);
      assert.ok(!existsSync(join(index, 'not-a-key')), 'what is not an entry is removed');
    }
    assert.deepEqual(readdirSync(outside), [], 'nothing was written through the link');
    assert.deepEqual(warnings, []);
  });

  it('never reads an index folder that is another user\'s: listing reads every session instead, and says so', function () {
    if (process.getuid?.() !== 0) this.skip();
    const a = join(base, 'a');
    const mine = stored(a);
    const index = join(data, 'sessions-by-folder');
    // Planted by someone else: a trusted-looking stamp and no entry for this folder, which would hide its session.
    const sessions = statSync(join(data, 'sessions'), { bigint: true });
    writeFileSync(join(index, 'state.json'), JSON.stringify({ format: 1, stamp: `${sessions.dev}:${sessions.ino}:${sessions.mtimeNs}:${sessions.ctimeNs}:${sessions.nlink}`, pending: [] }), { mode: 0o600 });
    rmSync(join(index, readdirSync(index).find((name) => name !== 'state.json')!), { recursive: true });
    assert.deepEqual(ids(a), [], 'the planted index, were it the user\'s own, is trusted: the stamp held');
    chownSync(index, 54321, 54321);
    assert.deepEqual(ids(a), [mine]);
    assert.match(warnings.join('\n'), /the index of sessions by folder is not used: .* belongs to user 54321, not to you .*Listing reads every session instead/);
  });
});

describe('folder keys and matching', () => {
  it('files an absolute path under its written and its real key, a relative one as written', () => {
    assert.equal(folderKeys('/no/such/folder').length, 1);
    assert.deepEqual(folderKeys('/no/such/folder'), folderKeys('/no/such/folder/'));
    assert.deepEqual(folderKeys('rel/path'), folderKeys('rel/path'));
    assert.notDeepEqual(folderKeys('rel/path'), folderKeys('/rel/path'));
  });

  it('matches the same folder however it is written, and nothing that is not a path', () => {
    const matches = folderMatcher('/no/such/folder');
    assert.ok(matches('/no/such/folder'));
    assert.ok(matches('/no/such/folder/'));
    assert.ok(matches('/no/such/../such/folder'));
    assert.ok(!matches('/no/such/folder2'));
    assert.ok(!matches(42));
    assert.ok(!matches(undefined));
    assert.ok(!matches('no/such/folder'));
    assert.ok(folderMatcher('rel')('rel'));
    assert.ok(!folderMatcher('rel')(`${process.cwd()}/rel`));
  });
});
