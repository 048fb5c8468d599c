import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkPaths } from '../../../src/attempts/apply-attempt';
import { AttemptTrees, parseNumstat, runFolderName } from '../../../src/attempts/attempt-trees';
import { type AttemptForJudge, finalOrder, judgePrompt, readRanking } from '../../../src/attempts/judge';

const attempt = (n: number, over: Partial<AttemptForJudge> = {}): AttemptForJudge => ({
  n,
  status: 'needs_input',
  summary: `attempt ${n}`,
  tokens: 100 * n,
  files: [{ path: 'a.js', added: 1, removed: 0 }],
  patch: `diff --git a/a.js b/a.js\n+${n}\n`,
  ...over,
});

describe('judging parallel attempts', () => {
  it("reads the judge's ranking from its last JSON object, after prose and inside a fence", () => {
    const answer = 'I compared them. {"not": "this"}\n```json\n{"ranking": [{"attempt": 2, "reason": "best"}, {"attempt": 1, "reason": "ok"}]}\n```';
    assert.deepEqual(readRanking(answer, [1, 2]), [
      { n: 2, reason: 'best' },
      { n: 1, reason: 'ok' },
    ]);
  });

  it('drops attempts that do not exist and repeats, ranks the unnamed after, and cleans reasons of controls and bidi marks', () => {
    const answer = JSON.stringify({ ranking: [{ attempt: 9, reason: 'ghost' }, { attempt: 3, reason: 'a\u202eb\nc\u001b[31m' }, { attempt: 3, reason: 'again' }, 'junk', null] });
    assert.deepEqual(readRanking(answer, [1, 2, 3]), [
      { n: 3, reason: 'a b c [31m' },
      { n: 1, reason: 'not ranked by the judge' },
      { n: 2, reason: 'not ranked by the judge' },
    ]);
  });

  it('gives no ranking for an answer without one, and reads a huge brace-filled answer in bounded time', () => {
    assert.equal(readRanking('I cannot decide.', [1, 2]), undefined);
    assert.equal(readRanking('{"ranking": "first"}', [1, 2]), undefined);
    assert.equal(readRanking('{"ranking": [{"attempt": 7}]}', [1, 2]), undefined);
    const started = performance.now();
    assert.equal(readRanking('{'.repeat(500_000) + '}'.repeat(500_000), [1, 2]), undefined);
    // Bounded work, not a timing goal: far under what an unbounded search of a million braces would take.
    assert.ok(performance.now() - started < 20_000);
  });

  it('ranks failed checks, unfinished runs and empty attempts last, whatever the judge says', () => {
    const attempts = [
      attempt(1, { check: { passed: false, output: 'x' } }),
      attempt(2),
      attempt(3, { files: [], patch: '' }),
      attempt(4, { status: 'error' }),
    ];
    const order = finalOrder(attempts, [1, 3, 4, 2].map((n) => ({ n, reason: '' })));
    assert.deepEqual(order.map((ranked) => ranked.n), [2, 1, 4, 3]);
    // Without the judge: passing first, then the cheaper.
    assert.deepEqual(finalOrder([attempt(1), attempt(2, { tokens: 10 })], undefined).map((ranked) => ranked.n), [2, 1]);
  });

  it('shows the judge every attempt with its diff capped, fenced so a diff cannot close its block', () => {
    const long = attempt(1, { patch: '```\n'.repeat(20_000) });
    const prompt = judgePrompt('Fix it', [long, attempt(2)]);
    assert.match(prompt, /<attempt n="1">[\s\S]*<attempt n="2">/);
    assert.match(prompt, /more characters of this diff not shown/);
    assert.ok(prompt.length < 140_000);
    assert.match(prompt, /````\n```\n/, 'the fence is longer than any run of backticks inside');
  });

  it('reads git numstat, binary files and names with tabs included', () => {
    assert.deepEqual(parseNumstat(['3\t1\tsrc/a.js', '-\t-\timg.png', '1\t0\twith\ttab.txt', ''].join('\u0000')), [
      { path: 'src/a.js', added: 3, removed: 1 },
      { path: 'img.png', added: 0, removed: 0 },
      { path: 'with\ttab.txt', added: 1, removed: 0 },
    ]);
  });
});

describe('applying an attempt: the paths its patch touches', () => {
  let root: string;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'crow-apply-attempt-'));
    mkdirSync(join(root, 'src'));
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));
  const changes = (...paths: string[]) => ({ patch: 'x', files: paths.map((path) => ({ path, added: 1, removed: 0 })) });

  it('lets plain files inside the folder through', async () => {
    await checkPaths(root, changes('src/a.js', 'new/b.js'), {});
  });

  it('refuses protected paths, a way out of the folder, and a way out through a symlink: nothing is applied', async () => {
    await assert.rejects(checkPaths(root, changes('src/a.js', '.vscode/tasks.json'), {}), /\.vscode\/tasks\.json, a protected path/);
    await assert.rejects(checkPaths(root, changes('.git/hooks/pre-commit'), {}), /a protected path/);
    await assert.rejects(checkPaths(root, changes('../outside.txt'), {}), /outside the workspace/);
    symlinkSync(tmpdir(), join(root, 'out'));
    await assert.rejects(checkPaths(root, changes('out/x.txt'), {}), /leads outside the workspace through a symlink/);
  });
});

describe("a patch from elsewhere (a pod's): the files it touches, read from the patch", () => {
  it('names each file git apply would write, and refuses a patch that renames (whose source git apply does not name)', async () => {
    const repo = mkdtempSync(join(tmpdir(), 'crow-patch-files-'));
    try {
      const git = (...args: string[]): string => spawnSync('git', args, { cwd: repo, encoding: 'utf8', env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' } }).stdout;
      git('init', '-q');
      mkdirSync(join(repo, '.vscode'));
      writeFileSync(join(repo, '.vscode', 'settings.json'), '{}\n');
      writeFileSync(join(repo, 'a.js'), 'a\n');
      git('add', '.');
      git('commit', '-qm', 'start');
      const trees = await AttemptTrees.prepare(repo, process.env, runFolderName());
      try {
        const edit = 'diff --git a/a.js b/a.js\n--- a/a.js\n+++ b/a.js\n@@ -1 +1,2 @@\n a\n+b\n';
        assert.deepEqual(await trees.patchFiles(edit), [{ path: 'a.js', added: 1, removed: 0 }]);
        const rename = 'diff --git a/.vscode/settings.json b/moved.json\nsimilarity index 100%\nrename from .vscode/settings.json\nrename to moved.json\n';
        await assert.rejects(trees.patchFiles(rename), /renames or copies files, which Crow's own patches never do/);
      } finally {
        await trees.removeAll();
      }
    } finally {
      rmSync(repo, { recursive: true, force: true });
    }
  });
});
