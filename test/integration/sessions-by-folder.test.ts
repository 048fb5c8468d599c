/**
 * A folder's sessions, through the real binary: `crow sessions list` (and
 * `--json`), `crow run --continue` and ACP session/list read only the
 * sessions of the folder asked about (found through the index of sessions
 * by folder), whichever path leads to that folder, and a missing, stale,
 * torn or hostile index changes nothing the person sees.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { binarySuite } from '../support/binary-suite';
import { runCrow, startAcp, startCrow } from '../support/crow-binary';
import { isolatedEnv } from '../support/isolated-env';

const RECORDER = resolve(__dirname, '../support/read-recorder.cjs');

describe('a folder\'s sessions, through the index of sessions by folder', function () {
  this.timeout(120_000);
  const suite = binarySuite('sessions-by-folder');
  const env = (extra: Record<string, string> = {}): NodeJS.ProcessEnv =>
    isolatedEnv(suite.home, { ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: suite.llm.anthropicBaseUrl, ...extra });
  const crow = (args: string[], cwd = suite.root, extra: Record<string, string> = {}) => runCrow(args, env(extra), cwd);
  const sessions = (): string => join(suite.home, 'data', 'crow-agent', 'sessions');
  const folder = (name: string): string => {
    const path = join(suite.base, name);
    mkdirSync(path, { recursive: true });
    return path;
  };

  /** A one-shot run in `cwd` answered with `answer`; the new session's id. */
  const run = async (cwd: string, prompt: string, answer: string, more: string[] = []): Promise<string> => {
    suite.llm.enqueue('anthropic', { blocks: [{ type: 'text', text: answer }] });
    const result = await crow(['run', prompt, '--no-undo', '--provider', 'anthropic', '--model', 'claude-test', ...more], cwd);
    assert.equal(result.code, 0, result.stderr);
    const id = /session ([0-9a-f-]{36})/.exec(result.stderr)?.[1];
    assert.ok(id, result.stderr);
    return id;
  };

  /** Runs crow with every file it opens recorded; the result and the session ids whose meta.json it read. */
  const recorded = async (args: string[], cwd: string) => {
    const log = join(suite.base, `reads-${Math.random().toString(36).slice(2)}.log`);
    const result = await crow(args, cwd, { NODE_OPTIONS: `--require ${RECORDER}`, CROW_TEST_READS: log });
    const reads = existsSync(log) ? readFileSync(log, 'utf8').split('\n') : [];
    const metas = new Set(reads.filter((path) => path.startsWith(sessions()) && path.endsWith('/meta.json')).map((path) => path.split('/').at(-2)!));
    const listedSessions = reads.some((line) => line.replace(/\/$/, '') === `readdir:${sessions()}`);
    return { ...result, metas, listedSessions };
  };

  it('lists a folder\'s sessions, and continues its newest, reading no other folder\'s session', async () => {
    const other = folder('other');
    const empty = folder('empty');
    const mine = await run(suite.root, 'first here', 'One.');
    const theirs = [await run(other, 'first there', 'Two.')];
    // The first listing after an upgrade reads every session once, to build the index.
    assert.equal((await crow(['sessions', 'list'])).code, 0);
    theirs.push(await run(other, 'second there', 'Three.'));

    const listed = await recorded(['sessions', 'list'], suite.root);
    assert.equal(listed.code, 0, listed.stderr);
    assert.match(listed.stdout, new RegExp(`^${mine} .* first here\\n$`));
    assert.deepEqual([...listed.metas], [mine], 'only this folder\'s session was read');

    const json = await recorded(['sessions', 'list', '--json'], suite.root);
    assert.deepEqual(JSON.parse(json.stdout).map((meta: { id: string; title: string }) => [meta.id, meta.title]), [[mine, 'first here']]);
    assert.deepEqual([...json.metas], [mine]);

    const none = await recorded(['sessions', 'list'], empty);
    assert.equal(none.stdout, `No sessions in ${empty}. (--all lists every folder's.)\n`);
    assert.deepEqual([...none.metas], [], 'a folder that owns none reads no session');

    suite.llm.enqueue('anthropic', { blocks: [{ type: 'text', text: 'Again.' }] });
    const continued = await recorded(['run', 'and again', '--continue', '--no-undo', '--provider', 'anthropic', '--model', 'claude-test'], suite.root);
    assert.equal(continued.code, 0, continued.stderr);
    assert.match(continued.stderr, new RegExp(`session ${mine}`));
    assert.ok(theirs.every((id) => !continued.metas.has(id)), `--continue read another folder's session: ${[...continued.metas].join(', ')}`);
    const request = JSON.stringify(suite.llm.requestsFor('anthropic').at(-1)!.body.messages);
    assert.match(request, /first here[\s\S]*One\.[\s\S]*and again/, 'the newest session of this folder was continued');

    const all = await crow(['sessions', 'list', '--all']);
    assert.equal(all.stdout.trim().split('\n').length, 3, all.stdout);
  });

  it('lists a folder\'s sessions after another Crow stored or deleted one without reading the whole sessions folder', async () => {
    const other = folder('other');
    const mine = await run(suite.root, 'mine', 'Mine.');
    const first = await run(other, 'theirs', 'Theirs.');
    // The sessions folder stands still long enough for the index to trust its stamp (SETTLE_MS in folder-index.ts).
    await new Promise((done) => setTimeout(done, 2_100));
    assert.equal((await recorded(['sessions', 'list'], suite.root)).listedSessions, true, 'the index caught up once');
    const second = await run(other, 'theirs again', 'Again.');
    const listed = await recorded(['sessions', 'list'], suite.root);
    assert.match(listed.stdout, new RegExp(`^${mine} .* mine\\n$`));
    assert.equal(listed.listedSessions, false, 'the run kept the index up to date: no catch-up');
    const theirs = await recorded(['sessions', 'list', '--json'], other);
    assert.deepEqual(JSON.parse(theirs.stdout).map((meta: { id: string }) => meta.id), [second, first]);
    assert.equal(theirs.listedSessions, false);
    assert.equal((await crow(['sessions', 'delete', first])).code, 0);
    const afterDelete = await recorded(['sessions', 'list', '--json'], other);
    assert.deepEqual(JSON.parse(afterDelete.stdout).map((meta: { id: string }) => meta.id), [second]);
    assert.equal(afterDelete.listedSessions, false, 'the delete kept the index up to date');
  });

  it('finds a folder\'s sessions by any path that leads to it: a link to it, or its real path', async () => {
    const link = join(suite.base, 'link');
    symlinkSync(suite.root, link);
    const id = await run(link, 'through the link', 'Linked.', ['--cwd', link]);
    for (const [cwd, from] of [[link, suite.base], [suite.root, suite.base], ['.', link], ['.', suite.root]] as const) {
      const listed = await crow(['sessions', 'list', '--cwd', cwd], from);
      assert.equal(listed.code, 0, listed.stderr);
      assert.match(listed.stdout, new RegExp(`^${id} .* through the link\\n$`), `crow sessions list --cwd ${cwd} in ${from}`);
    }
    suite.llm.enqueue('anthropic', { blocks: [{ type: 'text', text: 'Still linked.' }] });
    const continued = await crow(['run', 'go on', '--continue', '--cwd', link, '--no-undo', '--provider', 'anthropic', '--model', 'claude-test'], suite.base);
    assert.equal(continued.code, 0, continued.stderr);
    assert.match(continued.stderr, new RegExp(`session ${id}`));
  });

  it('answers ACP session/list for a folder named through a link, or with a trailing slash', async () => {
    const link = join(suite.base, 'link');
    symlinkSync(suite.root, link);
    suite.llm.enqueue('anthropic', { blocks: [{ type: 'text', text: 'Hi.' }] });
    const agent = startAcp(suite.root, suite.home, { ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: suite.llm.anthropicBaseUrl });
    try {
      await agent.client.initialize();
      const { sessionId } = await agent.client.newSession(link);
      await agent.client.prompt(sessionId, 'Hello there');
      for (const cwd of [link, `${link}/`, suite.root, `${suite.root}/`]) {
        const { sessions: listed } = await agent.client.agent.request('session/list', { cwd });
        assert.deepEqual(listed.map((info) => [info.sessionId, info.title]), [[sessionId, 'Hello there']], `session/list for ${cwd}`);
      }
      const elsewhere = folder('elsewhere');
      assert.deepEqual((await agent.client.agent.request('session/list', { cwd: elsewhere })).sessions, []);
    } finally {
      await agent.stop();
    }
  });

  it('rebuilds a missing or torn index from the sessions, saying so when it was damaged, and lists the same', async () => {
    const mine = await run(suite.root, 'mine', 'Mine.');
    await run(folder('other'), 'theirs', 'Theirs.');
    const expected = (await crow(['sessions', 'list'])).stdout;
    assert.match(expected, new RegExp(`^${mine} `));
    const index = join(suite.home, 'data', 'crow-agent', 'sessions-by-folder');

    rmSync(index, { recursive: true });
    const rebuilt = await crow(['sessions', 'list']);
    assert.deepEqual([rebuilt.stdout, rebuilt.stderr], [expected, ''], 'a missing index is rebuilt without a word');

    writeFileSync(join(index, 'state.json'), '{"format":1,"stamp":"12');
    const torn = await crow(['sessions', 'list']);
    assert.equal(torn.stdout, expected);
    assert.match(torn.stderr, /warning: the index of sessions by folder \(.*\) was damaged: rebuilt it from the sessions, nothing is lost/);
    const again = await crow(['sessions', 'list']);
    assert.deepEqual([again.stdout, again.stderr], [expected, ''], 'rebuilt once');

    writeFileSync(join(index, 'state.json'), JSON.stringify({ format: 1, pending: ['../../escape'] }));
    const hostile = await crow(['sessions', 'list']);
    assert.equal(hostile.stdout, expected);
    assert.match(hostile.stderr, /was damaged/);
  });

  it('catches up with sessions made or removed behind its back: by hand, by an older Crow, a meta.json written later', async () => {
    const mine = await run(suite.root, 'mine', 'Mine.');
    await crow(['sessions', 'list']);
    // A copy put in by hand (a backup restored, an older Crow): no entry in the index.
    const copy = 'copied-session-0001';
    cpSync(join(sessions(), mine), join(sessions(), copy), { recursive: true });
    const meta = JSON.parse(readFileSync(join(sessions(), copy, 'meta.json'), 'utf8'));
    writeFileSync(join(sessions(), copy, 'meta.json'), JSON.stringify({ ...meta, id: copy, title: 'the copy', updatedAt: meta.updatedAt + 1_000 }));
    // A session folder whose meta.json comes later (a session being made by another process).
    const late = 'late-session-0002';
    mkdirSync(join(sessions(), late), { mode: 0o700 });
    const both = await crow(['sessions', 'list']);
    assert.match(both.stdout, new RegExp(`^${copy} .* the copy\\n${mine} .* mine\\n$`));

    writeFileSync(join(sessions(), late, 'meta.json'), JSON.stringify({ ...meta, id: late, title: 'written later', updatedAt: meta.updatedAt + 2_000 }));
    const three = await crow(['sessions', 'list']);
    assert.match(three.stdout, new RegExp(`^${late} .* written later\\n${copy} .* the copy\\n${mine} .* mine\\n$`));

    rmSync(join(sessions(), copy), { recursive: true });
    const two = await crow(['sessions', 'list']);
    assert.match(two.stdout, new RegExp(`^${late} .* written later\\n${mine} .* mine\\n$`));
    assert.equal(two.stderr, '');
  });

  it('never trusts the index over a session\'s own meta.json, nor writes or removes anything through a link planted in it', async () => {
    const other = folder('other');
    const mine = await run(suite.root, 'mine', 'Mine.');
    const theirs = await run(other, 'theirs', 'Theirs.');
    await crow(['sessions', 'list']);
    const index = join(suite.home, 'data', 'crow-agent', 'sessions-by-folder');
    const keyOf = (session: string): string => readdirSync(index).find((key) => existsSync(join(index, key, session)))!;
    // Another folder's session filed under this folder is not this folder's.
    writeFileSync(join(index, keyOf(mine), theirs), '');
    assert.match((await crow(['sessions', 'list'])).stdout, new RegExp(`^${mine} .* mine\\n$`));

    // The other folder's entries lead out of the index through a link to a folder holding a file named like the session.
    const outside = folder('outside');
    writeFileSync(join(outside, theirs), 'keep me');
    const theirKey = keyOf(theirs);
    rmSync(join(index, theirKey), { recursive: true });
    symlinkSync(outside, join(index, theirKey));
    const deleted = await crow(['sessions', 'delete', theirs]);
    assert.equal(deleted.code, 0, deleted.stderr);
    assert.equal(readFileSync(join(outside, theirs), 'utf8'), 'keep me', 'nothing was removed through the link');
    assert.equal((await crow(['sessions', 'list'], other)).stdout, `No sessions in ${other}. (--all lists every folder's.)\n`);

    // The whole index is a link to a folder outside: replaced, never written through.
    rmSync(index, { recursive: true });
    symlinkSync(outside, index);
    await run(suite.root, 'another', 'Another.');
    const listed = await crow(['sessions', 'list']);
    assert.equal(listed.stdout.trim().split('\n').length, 2, listed.stdout);
    assert.deepEqual(readdirSync(outside), [theirs], 'nothing was written outside');
  });

  it('never waits on a meta.json that is a FIFO, nor reads one that is a link, planted in a session folder', async () => {
    const mine = await run(suite.root, 'mine', 'Mine.');
    await crow(['sessions', 'list']);
    const fifo = join(sessions(), 'planted-fifo-0001');
    mkdirSync(fifo, { mode: 0o700 });
    assert.equal(spawnSync('mkfifo', [join(fifo, 'meta.json')]).status, 0, 'mkfifo');
    const linked = join(sessions(), 'planted-link-0002');
    mkdirSync(linked, { mode: 0o700 });
    const elsewhere = join(suite.base, 'elsewhere.json');
    writeFileSync(elsewhere, readFileSync(join(sessions(), mine, 'meta.json'), 'utf8').replaceAll(mine, 'planted-link-0002'));
    symlinkSync(elsewhere, join(linked, 'meta.json'));
    for (const args of [['sessions', 'list'], ['sessions', 'list', '--all'], ['sessions', 'list', '--json']]) {
      const listed = await unlessHung(args);
      assert.equal(listed.code, 0, listed.stderr);
      assert.match(listed.stdout, new RegExp(mine), args.join(' '));
      assert.doesNotMatch(listed.stdout, /planted/, args.join(' '));
    }
  });

  /** Runs crow to its end; fails (and stops it) when it has not ended after a minute: it waits on something it must never wait on. */
  const unlessHung = async (args: string[]) => {
    const started = startCrow(args, env(), suite.root);
    started.child.stdin.end();
    let timer: NodeJS.Timeout | undefined;
    const hung = new Promise<'hung'>((done) => (timer = setTimeout(done, 60_000, 'hung')));
    const ended = await Promise.race([started.exited, hung]);
    clearTimeout(timer);
    if (ended === 'hung') {
      started.child.kill('SIGKILL');
      assert.fail(`crow ${args.join(' ')} never ended`);
    }
    return { code: ended.code, stdout: started.stdout(), stderr: started.stderr() };
  };

  it('lists both sessions of two runs that stored at the same moment in one folder', async () => {
    await crow(['sessions', 'list']);
    suite.llm.enqueue('anthropic', { blocks: [{ type: 'text', text: 'A.' }] }, { blocks: [{ type: 'text', text: 'B.' }] });
    const args = (prompt: string) => ['run', prompt, '--no-undo', '--provider', 'anthropic', '--model', 'claude-test'];
    const results = await Promise.all([crow(args('one')), crow(args('two'))]);
    for (const result of results) assert.equal(result.code, 0, result.stderr);
    const listed = await crow(['sessions', 'list']);
    assert.equal(listed.stdout.trim().split('\n').length, 2, listed.stdout);
    assert.match(listed.stdout, / one\n/);
    assert.match(listed.stdout, / two\n/);
  });
});
