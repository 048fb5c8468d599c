import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PromptRegistry } from '../../../src/config/prompts';
import { resolveFeature } from '../../../src/speckit/current-feature';
import { listFeatures, nextPrefix, numberingOf, shortName } from '../../../src/speckit/features';
import { currentBranch, startFeatureBranch } from '../../../src/speckit/git-branch';
import { ensureLayout, readTemplate } from '../../../src/speckit/templates';
import { tempWorkspace } from '../tools/temp-workspace';

const ENV: NodeJS.ProcessEnv = { PATH: process.env.PATH, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' };

function git(root: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd: root, env: ENV, stdio: 'pipe' }).toString().trim();
}

describe('speckit: feature folders, numbering and the current feature', () => {
  let ws: ReturnType<typeof tempWorkspace>;
  afterEach(() => ws.remove());

  const folders = (...paths: string[]) => {
    for (const path of paths) mkdirSync(join(ws.root, path), { recursive: true });
  };

  it('lists features of both roots in creation order and numbers the next one after the highest', async () => {
    ws = tempWorkspace({ 'specs/notes.md': 'not a feature' });
    folders('specs/002-b', 'specs/010-c', 'specs/001-a', '.specify/specs/011-seed', 'specs/20260101-120000-stamped', 'specs/misc');
    const features = await listFeatures(ws.workspace);
    assert.deepEqual(features.map((f) => f.dir), ['specs/001-a', 'specs/002-b', 'specs/010-c', '.specify/specs/011-seed', 'specs/20260101-120000-stamped']);
    assert.equal(nextPrefix(features, 'sequential'), '012');
    assert.equal(nextPrefix(features, 'sequential', { requested: 5 }), '005', 'a free requested number');
    assert.equal(nextPrefix(features, 'sequential', { requested: 2 }), '012', 'a taken one is not reused');
    assert.equal(nextPrefix([], 'sequential'), '001');
    assert.equal(nextPrefix(features, 'timestamp', { now: new Date(2026, 2, 19, 14, 30, 22) }), '20260319-143022');
  });

  it("follows the project's numbering choice in .specify/init-options.json", async () => {
    ws = tempWorkspace({ '.specify/init-options.json': '{"feature_numbering": "timestamp"}' });
    assert.equal(await numberingOf(ws.workspace), 'timestamp');
    ws.remove();
    ws = tempWorkspace({ '.specify/init-options.json': '{"branch_numbering": "sequential"}' });
    assert.equal(await numberingOf(ws.workspace), 'sequential');
  });

  it('makes short names from the meaningful words of a description', () => {
    assert.equal(shortName('I want to add user authentication'), 'user-authentication');
    assert.equal(shortName('Implement OAuth2 integration for the API'), 'implement-oauth2-integration-api', 'exactly four meaningful words are kept');
    assert.equal(shortName('Let people group photos into albums by date'), 'people-group-photos');
    assert.equal(shortName('Fix the UI of the settings page for the admin users'), 'fix-ui-settings', 'acronyms in capitals are kept');
    assert.equal(shortName('!!!'), 'feature');
  });

  it("chooses the current feature in Spec Kit's order: named in the command > SPECIFY_FEATURE_DIRECTORY > feature.json > an error; never the branch or the newest folder", async () => {
    ws = tempWorkspace({ '.specify/feature.json': '{"feature_directory": "specs/002-b"}' });
    folders('specs/001-a', 'specs/002-b', 'specs/003-c', 'specs/auth-flow');
    const query = { workspace: ws.workspace, env: ENV };
    const pick = async (extra: object) => {
      const found = await resolveFeature({ ...query, ...extra });
      return 'error' in found ? found.error : `${found.feature.dir} ${found.how}`;
    };
    assert.equal(await pick({}), `specs/002-b from .specify/feature.json`);
    assert.equal(await pick({ requested: '1' }), 'specs/001-a named in the command');
    assert.equal(await pick({ requested: '003-c' }), 'specs/003-c named in the command');
    assert.equal(await pick({ requested: 'specs/auth-flow' }), 'specs/auth-flow named in the command');
    assert.equal(await pick({ env: { ...ENV, SPECIFY_FEATURE_DIRECTORY: join(ws.root, 'specs/003-c') } }), 'specs/003-c from SPECIFY_FEATURE_DIRECTORY');
    assert.equal(await pick({ env: { ...ENV, SPECIFY_FEATURE_DIRECTORY: 'specs/auth-flow' } }), 'specs/auth-flow from SPECIFY_FEATURE_DIRECTORY', 'any folder name');
    assert.match(await pick({ env: { ...ENV, SPECIFY_FEATURE_DIRECTORY: 'specs/none' } }), /specs\/none \(from SPECIFY_FEATURE_DIRECTORY\) does not exist/);
    assert.match(await pick({ requested: '007' }), /No feature folder matches "007"\. Feature folders: specs\/001-a, specs\/002-b, specs\/003-c\./);

    git(ws.root, 'init', '--quiet', '--initial-branch=main');
    git(ws.root, 'commit', '--quiet', '--allow-empty', '-m', 'start');
    git(ws.root, 'switch', '--quiet', '-c', '001-anything');
    assert.equal(await pick({}), 'specs/002-b from .specify/feature.json', 'the branch decides nothing');
    writeFileSync(join(ws.root, '.specify/feature.json'), '{"feature_directory": "specs/auth-flow"}');
    assert.equal(await pick({}), 'specs/auth-flow from .specify/feature.json');
    writeFileSync(join(ws.root, '.specify/feature.json'), '{ broken');
    assert.match(await pick({}), /\.specify\/feature\.json is not valid JSON/);
  });

  it('refuses an ambiguous reference, and says how to choose when nothing names a feature', async () => {
    ws = tempWorkspace();
    assert.match(((await resolveFeature({ workspace: ws.workspace, env: ENV })) as { error: string }).error, /No current feature: Spec Kit takes it from SPECIFY_FEATURE_DIRECTORY or \.specify\/feature\.json/);
    folders('specs/004-x', '.specify/specs/004-y');
    assert.match(((await resolveFeature({ workspace: ws.workspace, env: ENV })) as { error: string }).error, /--feature specs\/004-x \(feature folders here: \.specify\/specs\/004-y, specs\/004-x\)/, 'not the newest, silently');
    const found = await resolveFeature({ workspace: ws.workspace, env: ENV, requested: '4' });
    assert.match((found as { error: string }).error, /matches several feature folders: \.specify\/specs\/004-y, specs\/004-x/);
  });
});

describe('speckit: starting a feature branch never loses work', () => {
  let ws: ReturnType<typeof tempWorkspace>;
  afterEach(() => ws.remove());

  function repo(): void {
    ws = tempWorkspace({ 'a.txt': 'one\n' });
    git(ws.root, 'init', '--quiet', '--initial-branch=main');
    git(ws.root, 'add', '-A');
    git(ws.root, 'commit', '--quiet', '-m', 'start');
  }

  it('starts the branch at the current commit, leaving uncommitted and untracked changes exactly as they were', async () => {
    repo();
    writeFileSync(join(ws.root, 'a.txt'), 'one\ntwo (uncommitted)\n');
    writeFileSync(join(ws.root, 'new.txt'), 'untracked\n');
    git(ws.root, 'add', 'new.txt');
    writeFileSync(join(ws.root, 'new.txt'), 'untracked, changed after staging\n');
    const status = git(ws.root, 'status', '--porcelain');
    const outcome = await startFeatureBranch(ws.root, ENV, '001-photo-albums');
    assert.deepEqual(outcome, { created: true, branch: '001-photo-albums', from: 'main' });
    assert.equal(await currentBranch(ws.root, ENV), '001-photo-albums');
    assert.equal(git(ws.root, 'status', '--porcelain'), status);
    assert.equal(readFileSync(join(ws.root, 'a.txt'), 'utf8'), 'one\ntwo (uncommitted)\n');
    assert.equal(readFileSync(join(ws.root, 'new.txt'), 'utf8'), 'untracked, changed after staging\n');
  });

  it('leaves things alone, saying why, when the branch exists, an operation is half done, HEAD is detached or there is no repository', async () => {
    repo();
    git(ws.root, 'branch', '001-taken');
    assert.deepEqual(await startFeatureBranch(ws.root, ENV, '001-taken'), { created: false, reason: 'branch 001-taken exists already (switch to it yourself if you want it)' });
    writeFileSync(join(ws.root, '.git/MERGE_HEAD'), git(ws.root, 'rev-parse', 'HEAD'));
    assert.deepEqual(await startFeatureBranch(ws.root, ENV, '002-x'), { created: false, reason: 'a merge is in progress' });
    git(ws.root, 'checkout', '--quiet', '--detach');
    assert.deepEqual(await startFeatureBranch(ws.root, ENV, '002-x'), { created: false, reason: 'HEAD is detached' });
    assert.equal(await currentBranch(ws.root, ENV), undefined);
    ws.remove();
    ws = tempWorkspace();
    assert.deepEqual(await startFeatureBranch(ws.root, ENV, '001-x'), { created: false, reason: 'the workspace is not a git repository' });
  });
});

describe('speckit: templates', () => {
  let ws: ReturnType<typeof tempWorkspace>;
  afterEach(() => ws.remove());

  it("uses the project's overrides, then its templates, then ours, and lays ours out only where .specify/ is missing", async () => {
    ws = tempWorkspace({ '.specify/templates/spec-template.md': 'THEIRS', '.specify/templates/tasks-template.md': 'Made by __SPECKIT_COMMAND_TASKS__ (see __SPECKIT_COMMAND_GIT_COMMIT__)', '.specify/templates/overrides/plan-template.md': 'OVERRIDE', '.specify/templates/plan-template.md': 'BASE' });
    const prompts = new PromptRegistry();
    assert.deepEqual(await readTemplate(ws.workspace, prompts, 'spec'), { text: 'THEIRS', source: '.specify/templates/spec-template.md' });
    assert.deepEqual(await readTemplate(ws.workspace, prompts, 'plan'), { text: 'OVERRIDE', source: '.specify/templates/overrides/plan-template.md' });
    assert.equal((await readTemplate(ws.workspace, prompts, 'tasks')).text, 'Made by /speckit.tasks (see /speckit.git.commit)', "Spec Kit's command tokens read as command names");
    assert.equal((await readTemplate(ws.workspace, prompts, 'checklist')).source, 'built-in');
    assert.deepEqual(await ensureLayout(ws.workspace, prompts), [], 'a project with .specify/ is left as it is');
    ws.remove();
    ws = tempWorkspace();
    assert.equal((await ensureLayout(ws.workspace, prompts)).length, 5);
    assert.match(readFileSync(join(ws.root, '.specify/templates/tasks-template.md'), 'utf8'), /## Phase 1: Setup/);
  });

  it('takes our templates and command prompts from the project or user prompt folders first', async () => {
    ws = tempWorkspace({ '.crow/prompts/speckit/templates/spec.hbs': 'PROJECT SPEC TEMPLATE', '.crow/prompts/speckit/specify.hbs': 'Mine: {{description}}' });
    const prompts = PromptRegistry.forWorkspace(ws.root, { XDG_CONFIG_HOME: join(ws.root, 'nowhere') });
    assert.equal((await readTemplate(ws.workspace, prompts, 'spec')).text, 'PROJECT SPEC TEMPLATE\n');
    assert.equal(prompts.render('speckit/specify', { description: 'albums' }), 'Mine: albums\n');
  });
});
