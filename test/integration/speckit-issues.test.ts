/**
 * /speckit.taskstoissues as Spec Kit's own (issue 44), through the real
 * binary with a GitHub CLI double as strict as gh for what the command uses
 * (speckit-gh.ts, each rule citing gh's source): issues only in the GitHub
 * repository of remote.origin.url, titled `T001: …`, and a rerun that finds
 * the issues made before, open or closed, and makes none twice.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { FakeLlmServer } from '../../testkit/fake-llm-server';
import { PLAN, SPEC } from '../support/speckit';
import { installGh } from '../support/speckit-gh';
import { type SpeckitRepo, speckitRepo } from '../support/speckit-repo';

const FEATURE = 'specs/001-notes';
const TASKS = '# Tasks: Notes\n\n## Phase 1: Setup\n\n- [X] T001 Create src/notes.js\n\n## Phase 2: User Story 1 - Export (Priority: P1)\n\n- [ ] T002 [P] [US1] Export in src/export.js (FR-001)\n- [ ] T003 Sort albums newest first in src/sort.js (FR-002)\n';

describe('/speckit.taskstoissues through crow run, with a strict gh', function () {
  this.timeout(60_000);
  let llm: FakeLlmServer;
  let repo: SpeckitRepo;

  before(async () => (llm = await FakeLlmServer.start()));
  after(() => llm.close());
  afterEach(() => repo?.remove());

  function feature(): void {
    repo.write(`${FEATURE}/spec.md`, SPEC);
    repo.write(`${FEATURE}/plan.md`, PLAN);
    repo.write(`${FEATURE}/tasks.md`, TASKS);
    repo.write('.specify/feature.json', `{"feature_directory": "${FEATURE}"}\n`);
  }

  it("makes one issue per unticked task, titled 'T002: …', in the origin's GitHub repository; a rerun finds them, open or closed, and makes none twice", async () => {
    repo = speckitRepo(llm, { git: 'main' });
    feature();
    repo.git('remote', 'add', 'origin', 'git@github.com:acme/notes.git');
    const gh = installGh(repo);
    gh.set({ issues: { 'acme/notes': [{ number: 1, title: 'Crash on start', state: 'OPEN' }, { number: 2, title: '[T003] Sort albums (done by hand)', state: 'CLOSED' }] } });
    const first = await repo.crow('/speckit.taskstoissues', ['--allow', 'execute'], { PATH: gh.path });
    assert.equal(first.code, 0, first.stdout + first.stderr);
    assert.deepEqual(gh.calls(), [
      ['auth', 'status'],
      ['issue', 'list', '--repo', 'acme/notes', '--state', 'all', '--limit', '500', '--json', 'number,title'],
      ['issue', 'create', '--repo', 'acme/notes', '--title', 'T002: Export in src/export.js (FR-001)', '--body', gh.issues('acme/notes')[2]!.body!],
    ]);
    assert.match(gh.issues('acme/notes')[2]!.body!, /^Task T002 of specs\/001-notes/);
    assert.match(first.stdout, /for acme\/notes \(remote origin git@github\.com:acme\/notes\.git\)/);
    assert.match(first.stdout, /T003 already has an issue: https:\/\/github\.com\/acme\/notes\/issues\/2\nT002 https:\/\/github\.com\/acme\/notes\/issues\/3/);
    assert.match(first.stdout, /Made 1 issue for specs\/001-notes in acme\/notes; 1 task had one already\./);

    const again = await repo.crow('/speckit.taskstoissues', ['--allow', 'execute'], { PATH: gh.path });
    assert.equal(again.code, 0, again.stdout + again.stderr);
    assert.equal(gh.issues('acme/notes').length, 3, 'no issue made twice');
    assert.match(again.stdout, /T002 already has an issue: https:\/\/github\.com\/acme\/notes\/issues\/3/);
    assert.match(again.stdout, /Made 0 issues .*; 2 tasks had one already\./);

    repo.write(`${FEATURE}/tasks.md`, `${TASKS}- [ ] T1004 Import notes in src/import.js\n`);
    const added = await repo.crow('/speckit.taskstoissues', ['--allow', 'execute'], { PATH: gh.path });
    assert.equal(added.code, 0, added.stdout + added.stderr);
    assert.deepEqual(gh.issues('acme/notes').map((i) => i.title), ['Crash on start', '[T003] Sort albums (done by hand)', 'T002: Export in src/export.js (FR-001)', 'T1004: Import notes in src/import.js']);
    assert.equal(llm.requestsFor('anthropic').length, 0, 'no model call');
  });

  it('refuses a remote that is not GitHub (showing it without its credentials), no remote at all, and a logged-out gh, making nothing', async () => {
    repo = speckitRepo(llm, { git: 'main' });
    feature();
    const gh = installGh(repo);
    const none = await repo.crow('/speckit.taskstoissues', ['--allow', 'execute'], { PATH: gh.path });
    assert.equal(none.code, 1);
    assert.match(none.stdout + none.stderr, /This repository has no remote "origin" \(git config --get remote\.origin\.url\)\. Nothing was made: Spec Kit makes issues only in the GitHub repository of remote\.origin\.url, never in another\. Add it/);

    repo.git('remote', 'add', 'origin', 'https://oauth2:glpat-s3cr3t-token@gitlab.com/acme/notes.git');
    const gitlab = await repo.crow('/speckit.taskstoissues', ['--allow', 'execute'], { PATH: gh.path });
    assert.equal(gitlab.code, 1);
    assert.match(gitlab.stdout + gitlab.stderr, /The remote origin is https:\/\/gitlab\.com\/acme\/notes\.git, which is not a GitHub repository\. Nothing was made/);
    assert.doesNotMatch(gitlab.stdout + gitlab.stderr, /glpat-s3cr3t-token|oauth2/, 'no credential shown');
    assert.deepEqual(gh.calls(), [], 'gh never ran');

    repo.git('remote', 'set-url', 'origin', 'https://github.com/acme/notes');
    gh.set({ loggedIn: false });
    const loggedOut = await repo.crow('/speckit.taskstoissues', ['--allow', 'execute'], { PATH: gh.path });
    assert.equal(loggedOut.code, 1);
    assert.match(loggedOut.stdout + loggedOut.stderr, /gh is not logged in to GitHub \(gh auth status: You are not logged into any GitHub hosts\. To log in, run: gh auth login\)\. Run gh auth login/);
    assert.deepEqual(gh.issues('acme/notes'), []);
  });

  it('the gh double refuses what gh refuses', () => {
    repo = speckitRepo(llm, { git: 'main' });
    repo.git('remote', 'add', 'origin', 'https://gitlab.com/acme/notes.git');
    const gh = installGh(repo);
    gh.set({ issues: { 'acme/notes': [{ number: 1, title: 'T001: old', state: 'CLOSED' }] } });
    const run = (...args: string[]) => {
      const result = spawnSync(join(repo.root, '.tools/gh'), args, { cwd: repo.root, encoding: 'utf8' });
      return { code: result.status, out: result.stdout, err: result.stderr };
    };
    assert.match(run('issue', 'list').err, /none of the git remotes configured for this repository point to a known GitHub host/);
    assert.equal(JSON.parse(run('issue', 'list', '-R', 'acme/notes', '--json', 'number').out).length, 0, 'open issues only by default');
    assert.equal(JSON.parse(run('issue', 'list', '-R', 'acme/notes', '--state', 'all', '--json', 'number').out).length, 1);
    assert.deepEqual(run('issue', 'list', '-R', 'acme/notes', '--limit', '0'), { code: 1, out: '', err: 'invalid limit: 0\n' });
    assert.match(run('issue', 'list', '-R', 'acme/notes', '--state', 'any').err, /valid values are \{open\|closed\|all\}/);
    assert.match(run('issue', 'list', '-R', 'acme/notes', '--json', 'number,name').err, /^Unknown JSON field: "name"/);
    assert.match(run('issue', 'list', '-R', 'acme', '--json', 'number').err, /expected the "\[HOST\/\]OWNER\/REPO" format, got "acme"/);
    assert.match(run('issue', 'create', '-R', 'acme/notes', '--title', 'T002: x').err, /must provide `--title` and `--body` when not running interactively/);
    assert.match(run('issue', 'create', '-R', 'acme/notes', '--title', ' ', '--body', 'b').err, /Title can't be blank/);
    assert.match(run('issue', 'create', '-R', 'acme/notes', '--title', 't', '--body', 'b', '--priority', 'high').err, /unknown flag: --priority/);
    gh.set({ loggedIn: false });
    assert.equal(run('issue', 'list', '-R', 'acme/notes').code, 4, 'authentication required');
    assert.equal(run('auth', 'status').code, 1);
  });
});
