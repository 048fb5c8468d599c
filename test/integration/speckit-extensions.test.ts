/**
 * Spec Kit's own extensions as its users have them (issue 44), through the
 * real binary in a project laid out as `specify init --integration claude
 * --extension git` with a preset lays it out (speckit-kit.ts): a preset's
 * command replaces Crow's own, or composes with it, and the run says which
 * it used; the git extension's branch_template and its tokens name the
 * branch, over branch_prefix, and a token Crow cannot fill stops the
 * command before anything is made.
 */
import assert from 'node:assert/strict';
import { basename } from 'node:path';
import { FakeLlmServer } from '../../testkit/fake-llm-server';
import { PLAN, SPEC } from '../support/speckit';
import { installGitExtension, installPreset } from '../support/speckit-kit';
import { requestTexts, type SpeckitRepo, speckitRepo, text, toolCall } from '../support/speckit-repo';

const HOUSE_SPECIFY = [
  '---',
  'description: "Specify, the house way"',
  'scripts:',
  '  sh: scripts/bash/create-new-feature.sh --json "{ARGS}"',
  '---',
  '',
  '## User Input',
  '',
  '$ARGUMENTS',
  '',
  'Run `{SCRIPT}` once, then write SPEC_FILE with our three house sections (HOUSE-STYLE).',
  'Then suggest __SPECKIT_COMMAND_PLAN__ to __AGENT__.',
  '',
].join('\n');

describe("Spec Kit's presets and git extension through crow run", function () {
  this.timeout(60_000);
  let llm: FakeLlmServer;
  let repo: SpeckitRepo;

  before(async () => (llm = await FakeLlmServer.start()));
  after(() => llm.close());
  beforeEach(() => llm.reset());
  afterEach(() => repo?.remove());

  it("runs the installed preset's /speckit.specify instead of Crow's own, by the registry's priority, and says which it used", async () => {
    repo = speckitRepo(llm, { git: 'main' });
    installGitExtension(repo);
    installPreset(repo, 'house', [{ name: 'speckit.specify', text: HOUSE_SPECIFY }], { priority: 5 });
    installPreset(repo, 'other', [{ name: 'speckit.specify', text: '---\ndescription: other\n---\nOTHER-PRESET $ARGUMENTS\n' }], { priority: 10 });
    llm.enqueue('anthropic', toolCall('write_file', { path: 'specs/001-photo-albums/spec.md', content: SPEC }), text('Wrote the spec the house way.'));
    const run = await repo.crow('/speckit.specify Photo albums by date');
    assert.equal(run.code, 0, run.stdout + run.stderr);
    assert.match(run.stdout, /\/speckit\.specify: running preset house's version \(\.specify\/presets\/house\/commands\/speckit\.specify\.md\), not Crow's own\./);
    const prompt = requestTexts(llm)[0]!;
    assert.match(prompt, /HOUSE-STYLE/);
    assert.match(prompt, /Run `\.specify\/scripts\/bash\/create-new-feature\.sh --json \\"Photo albums by date\\"` once/, '{SCRIPT} is the project\'s script, {ARGS} the arguments');
    assert.match(prompt, /Then suggest \/speckit\.plan to claude\./, 'command names and the integration filled in');
    assert.doesNotMatch(prompt, /OTHER-PRESET/, 'the lower priority preset does not run');
    assert.doesNotMatch(prompt, /write the specification of a new feature/, "Crow's own prompt is not sent");
    assert.match(run.stdout, /Hook before_specify \(extension git\): no git branch started: preset house's \/speckit\.specify names the feature itself/);
    assert.match(run.stdout, /Wrote specs\/001-photo-albums\/spec\.md\./);
    assert.equal(repo.git('branch', '--show-current'), 'main');

    // Disabled in the registry (specify preset disable house): the next one by priority.
    const registry = JSON.parse(repo.read('.specify/presets/.registry')) as { presets: Record<string, { enabled: boolean }> };
    registry.presets.house!.enabled = false;
    repo.write('.specify/presets/.registry', JSON.stringify(registry));
    llm.reset();
    llm.enqueue('anthropic', text('Done.'));
    const other = await repo.crow('/speckit.specify Export notes');
    assert.match(other.stdout, /running preset other's version/);
    assert.match(requestTexts(llm)[0]!, /OTHER-PRESET Export notes/);

    // No preset left: Crow's own command, which says nothing about presets.
    repo.write('.specify/presets/.registry', '{"presets": {}}');
    llm.reset();
    llm.enqueue('anthropic', toolCall('write_file', { path: 'specs/002-share-notes/spec.md', content: SPEC }), text('Done.'));
    const own = await repo.crow('/speckit.specify Share notes --no-branch');
    assert.equal(own.code, 0, own.stdout + own.stderr);
    assert.doesNotMatch(own.stdout, /preset/);
    assert.match(requestTexts(llm)[0]!, /write the specification of a new feature/);
  });

  it("composes a preset's append or wrap with Crow's own prompt, and refuses a preset file outside its folder or too large", async () => {
    repo = speckitRepo(llm);
    repo.write('specs/001-notes/spec.md', SPEC);
    repo.write('.specify/feature.json', '{"feature_directory": "specs/001-notes"}\n');
    installPreset(repo, 'audit', [{ name: 'speckit.plan', text: '---\ndescription: audit\n---\nAlso list every personal datum the plan stores (AUDIT-APPEND).\n', strategy: 'append' }]);
    llm.enqueue('anthropic', toolCall('write_file', { path: 'specs/001-notes/plan.md', content: PLAN }), text('Planned.'));
    const appended = await repo.crow('/speckit.plan use sqlite');
    assert.equal(appended.code, 0, appended.stdout + appended.stderr);
    assert.match(appended.stdout, /\/speckit\.plan: Crow's own prompt, with preset audit's append \(\.specify\/presets\/audit\/commands\/speckit\.plan\.md\)\./);
    assert.match(requestTexts(llm)[0]!, /design how to build the feature in specs\/001-notes[\s\S]*AUDIT-APPEND/, 'ours first, the preset after');

    installPreset(repo, 'audit', [{ name: 'speckit.plan', text: 'BEFORE-WRAP\n{CORE_TEMPLATE}\nAFTER-WRAP\n', strategy: 'wrap' }]);
    llm.reset();
    llm.enqueue('anthropic', text('Planned.'));
    await repo.crow('/speckit.plan');
    assert.match(requestTexts(llm)[0]!, /BEFORE-WRAP\\n[^"]*design how to build the feature[\s\S]*AFTER-WRAP/);

    installPreset(repo, 'audit', [{ name: 'speckit.plan', text: 'x', file: '../../../../etc/passwd' }]);
    llm.reset();
    const outside = await repo.crow('/speckit.plan');
    assert.equal(outside.code, 1);
    assert.match(outside.stdout + outside.stderr, /\.specify\/presets\/audit\/preset\.yml: speckit\.plan's file "\.\.\/\.\.\/\.\.\/\.\.\/etc\/passwd" is outside the preset's folder\. Fix the preset, or disable it \(specify preset disable audit\)\./);
    installPreset(repo, 'audit', [{ name: 'speckit.plan', text: `---\ndescription: big\n---\n${'flood '.repeat(60_000)}` }]);
    const flood = await repo.crow('/speckit.plan');
    assert.equal(flood.code, 1);
    assert.match(flood.stdout + flood.stderr, /speckit\.plan\.md is 3600\d+ bytes, more than the 262144 a command file may be/);
    assert.equal(llm.requestsFor('anthropic').length, 0, 'a refused preset sends nothing');
  });

  it("names the branch by the git extension's branch_template and its tokens, over branch_prefix; a token it cannot fill stops the command first", async () => {
    repo = speckitRepo(llm, { git: 'main' });
    repo.git('config', 'user.name', 'Jane Q. Doe');
    const app = basename(repo.root).toLowerCase().replace(/[^a-z0-9]+/g, '-');
    installGitExtension(repo, { branch_template: '{author}/{app}/{number}-{slug}', branch_prefix: 'feat' });
    llm.enqueue('anthropic', toolCall('write_file', { path: 'specs/001-share-notes/spec.md', content: SPEC }), text('Done.'));
    const templated = await repo.crow('/speckit.specify Share notes');
    assert.equal(templated.code, 0, templated.stdout + templated.stderr);
    assert.equal(repo.git('branch', '--show-current'), `jane-q-doe/${app}/001-share-notes`);
    assert.match(templated.stdout, new RegExp(`started git branch jane-q-doe/${app}/001-share-notes \\(by branch_template "\\{author\\}/\\{app\\}/\\{number\\}-\\{slug\\}" in \\.specify/extensions/git/git-config\\.yml\\) from main`));

    repo.git('switch', '--quiet', 'main');
    installGitExtension(repo, { branch_prefix: 'features/{app}' });
    llm.reset();
    llm.enqueue('anthropic', toolCall('write_file', { path: 'specs/002-export-notes/spec.md', content: SPEC }), text('Done.'));
    const prefixed = await repo.crow('/speckit.specify Export notes');
    assert.equal(prefixed.code, 0, prefixed.stdout + prefixed.stderr);
    assert.equal(repo.git('branch', '--show-current'), `features/${app}/002-export-notes`, 'branch_prefix is shorthand for PREFIX/{number}-{slug}, its tokens filled');

    repo.git('switch', '--quiet', 'main');
    installGitExtension(repo, { branch_template: '{team}/{number}-{slug}' });
    llm.reset();
    const unknown = await repo.crow('/speckit.specify Import notes');
    assert.equal(unknown.code, 1);
    assert.match(unknown.stdout + unknown.stderr, /The feature's branch cannot be named from branch_template "\{team\}\/\{number\}-\{slug\}" in \.specify\/extensions\/git\/git-config\.yml: \{team\} is not a token Crow can fill \(the git extension defines \{author\}, \{app\}, \{number\}, \{slug\}\)\. Fix it in .*, or pass --no-branch\./);
    assert.ok(!repo.exists('specs/003-import-notes'), 'nothing was made');
    assert.equal(repo.git('branch', '--list', '*{*'), '', 'no branch with braces');
    assert.equal(llm.requestsFor('anthropic').length, 0);

    installGitExtension(repo, { branch_template: '{slug}-{number}' });
    const order = await repo.crow('/speckit.specify Import notes');
    assert.match(order.stdout + order.stderr, /\{slug\} must not come before \{number\}/);
  });

  it("numbers the branch by git-config.yml's branch_numbering over init-options.json, takes GIT_BRANCH_NAME as it is, and keeps a name within GitHub's 244 bytes, saying so", async () => {
    repo = speckitRepo(llm, { git: 'main' });
    const spec = (dir: string) => [toolCall('write_file', { path: `${dir}/spec.md`, content: SPEC }), text('Done.')];
    // The folder follows init-options.json (sequential), the branch the extension's own setting.
    installGitExtension(repo, { branch_numbering: 'timestamp' });
    llm.enqueue('anthropic', ...spec('specs/001-share-notes'));
    const stamped = await repo.crow('/speckit.specify Share notes');
    assert.equal(stamped.code, 0, stamped.stdout + stamped.stderr);
    assert.ok(repo.exists('specs/001-share-notes/spec.md'));
    assert.match(repo.git('branch', '--show-current'), /^\d{8}-\d{6}-share-notes$/);
    assert.match(stamped.stdout, /started git branch \d{8}-\d{6}-share-notes \(numbered timestamp by branch_numbering in \.specify\/extensions\/git\/git-config\.yml\) from main/);

    // The other way round: timestamped folders, sequential branches counted over the folders and the branches.
    repo.git('switch', '--quiet', 'main');
    repo.git('branch', '007-older-work');
    const options = JSON.parse(repo.read('.specify/init-options.json')) as Record<string, unknown>;
    repo.write('.specify/init-options.json', JSON.stringify({ ...options, feature_numbering: 'timestamp' }));
    installGitExtension(repo, { branch_numbering: 'sequential' });
    llm.reset();
    llm.enqueue('anthropic', text('Done.'));
    const sequential = await repo.crow('/speckit.specify Export notes');
    assert.equal(repo.git('branch', '--show-current'), '008-export-notes');
    assert.match(sequential.stdout, /Feature specs\/\d{8}-\d{6}-export-notes \(new, [^)]*\); started git branch 008-export-notes \(numbered sequential by branch_numbering in \.specify\/extensions\/git\/git-config\.yml\)/, 'the folder timestamped, the branch one above 007');

    // GIT_BRANCH_NAME: exactly that name, whatever the template; too long, refused before anything is made.
    repo.git('switch', '--quiet', 'main');
    installGitExtension(repo, { branch_template: '{author}/{number}-{slug}' });
    llm.reset();
    llm.enqueue('anthropic', text('Done.'));
    const exact = await repo.crow('/speckit.specify Import notes', undefined, { GIT_BRANCH_NAME: 'team/JIRA-12-import' });
    assert.equal(repo.git('branch', '--show-current'), 'team/JIRA-12-import');
    assert.match(exact.stdout, /started git branch team\/JIRA-12-import \(by GIT_BRANCH_NAME\)/);
    repo.git('switch', '--quiet', 'main');
    llm.reset();
    const before = repo.git('status', '--porcelain', '--untracked-files=all');
    const long = await repo.crow('/speckit.specify Print notes', undefined, { GIT_BRANCH_NAME: `feat/${'é'.repeat(120)}` });
    assert.equal(long.code, 1);
    assert.match(long.stdout + long.stderr, /GIT_BRANCH_NAME is 245 bytes; a branch name may have 244 at most \(GitHub's limit\)\. Shorten it, or unset it/);
    assert.equal(repo.git('status', '--porcelain', '--untracked-files=all'), before, 'nothing was made');
    assert.equal(llm.requestsFor('anthropic').length, 0);

    // A long namespace: the feature's part of the name is shortened to fit, and the run says by how much.
    const namespace = `teams/${'platform-'.repeat(25)}x`;
    installGitExtension(repo, { branch_prefix: namespace });
    llm.enqueue('anthropic', text('Done.'));
    const fitted = await repo.crow('/speckit.specify --short-name search-every-note-quickly Search notes');
    const branch = repo.git('branch', '--show-current');
    assert.ok(Buffer.byteLength(branch) <= 244 && Buffer.byteLength(branch) >= 240, `${Buffer.byteLength(branch)} bytes`);
    assert.ok(branch.startsWith(`${namespace}/0`) && !branch.endsWith('-'), branch);
    assert.match(fitted.stdout, /\(by branch_prefix "teams\/platform-[^"]+" in [^;]+;(?: [^;]+;)? shortened from 2\d\d to 24\d bytes: GitHub allows 244\)/);
  });

  it("composes the spec and plan templates as Spec Kit's presets say: wrap, append and prepend over the core, and refuses a wrap with nowhere to put it", async () => {
    repo = speckitRepo(llm, { scripts: false });
    const preset = (id: string, priority: number, templates: [name: string, strategy: string, text: string][]) => {
      repo.write(
        `.specify/presets/${id}/preset.yml`,
        ['schema_version: "1.0"', 'preset: {id: ' + id + ', name: ' + id + ', version: "1.0.0"}', 'provides:', '  templates:', ...templates.map(([name, strategy]) => `    - {type: template, name: ${name}, file: templates/${name}.md, strategy: ${strategy}}`), ''].join('\n'),
      );
      for (const [name, , text] of templates) repo.write(`.specify/presets/${id}/templates/${name}.md`, text);
      const path = '.specify/presets/.registry';
      const registry = repo.exists(path) ? (JSON.parse(repo.read(path)) as { presets: Record<string, unknown> }) : { presets: {} };
      registry.presets[id] = { version: '1.0.0', enabled: true, priority, registered_commands: {} };
      repo.write(path, JSON.stringify(registry));
    };
    preset('frame', 5, [['spec-template', 'wrap', '<!-- FRAME -->\n{CORE_TEMPLATE}\n## Sign-off (FRAME)\n'], ['plan-template', 'prepend', '## Plan preface (PREFACE)\n']]);
    preset('legal', 10, [['spec-template', 'append', '## Legal review (LEGAL)\n']]);
    const core = repo.read('.specify/templates/spec-template.md');
    llm.enqueue('anthropic', text('Not yet.'));
    await repo.crow('/speckit.specify Share notes --no-branch');
    assert.equal(repo.read('specs/001-share-notes/spec.md'), `<!-- FRAME -->\n${core}\n\n## Legal review (LEGAL)\n\n## Sign-off (FRAME)\n`, 'the lower preset appends to the core, the higher one wraps both');

    repo.write('.specify/feature.json', '{"feature_directory": "specs/001-share-notes"}\n');
    repo.write('specs/001-share-notes/spec.md', SPEC);
    llm.reset();
    llm.enqueue('anthropic', text('Planned.'));
    await repo.crow('/speckit.plan');
    const plan = repo.read('specs/001-share-notes/plan.md');
    const corePlan = repo.read('.specify/templates/plan-template.md').split('\n')[0]!;
    assert.ok(plan.startsWith('## Plan preface (PREFACE)\n') && plan.includes(corePlan) && plan.indexOf(corePlan) > 0, plan.slice(0, 300));

    preset('frame', 5, [['plan-template', 'wrap', '## No placeholder here\n']]);
    repo.write('specs/002-export/spec.md', SPEC);
    llm.reset();
    const refused = await repo.crow('/speckit.plan --feature specs/002-export');
    assert.equal(refused.code, 1);
    assert.match(refused.stdout + refused.stderr, /\.specify\/presets\/frame\/templates\/plan-template\.md wraps plan-template\.md \(strategy: wrap in preset frame's preset\.yml\) but has no \{CORE_TEMPLATE\}[^.]*\. Add it, or disable the preset \(specify preset disable frame\)\./);
    assert.ok(!repo.exists('specs/002-export/plan.md'));
    assert.equal(llm.requestsFor('anthropic').length, 0);
  });

  it("resolves a preset's override of an extension command (speckit.git.commit) as it resolves Crow's own: replaced, or wrapped around the extension's text", async () => {
    repo = speckitRepo(llm, { git: 'main' });
    installGitExtension(repo);
    installPreset(repo, 'house', [{ name: 'speckit.git.commit', text: '---\ndescription: house commit\n---\nCommit the house way (HOUSE-COMMIT): $ARGUMENTS\n' }]);
    llm.enqueue('anthropic', text('Committed.'));
    const replaced = await repo.crow('/speckit.git.commit after the plan');
    assert.equal(replaced.code, 0, replaced.stdout + replaced.stderr);
    assert.match(replaced.stdout, /\/speckit\.git\.commit: preset house's version \(\.specify\/presets\/house\/commands\/speckit\.git\.commit\.md\), not extension git's own\./);
    const prompt = requestTexts(llm)[0]!;
    assert.match(prompt, /Commit the house way \(HOUSE-COMMIT\): after the plan/);
    assert.doesNotMatch(prompt, /Do the git commit step/, "the extension's own text is not sent");

    installPreset(repo, 'house', [{ name: 'speckit.git.commit', text: 'BEFORE-WRAP\n{CORE_TEMPLATE}\nAFTER-WRAP\n', strategy: 'wrap' }]);
    llm.reset();
    llm.enqueue('anthropic', text('Committed.'));
    const wrapped = await repo.crow('/speckit.git.commit now');
    assert.equal(wrapped.code, 0, wrapped.stdout + wrapped.stderr);
    assert.match(wrapped.stdout, /\/speckit\.git\.commit: extension git's own, with preset house's wrap/);
    assert.match(requestTexts(llm)[0]!, /BEFORE-WRAP\\n[^"]*Do the git commit step for: now[\s\S]*AFTER-WRAP/);
  });
});
