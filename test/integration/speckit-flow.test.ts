import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { sessionsCommand } from '../../src/adapters/cli/sessions-command';
import { FakeLlmServer } from '../../testkit/fake-llm-server';
import { fakeIO } from '../support/fake-io';
import { completes, FIXTURES, PLAN, requestText, SPEC, type SpeckitProject, speckitProject, TASKS, writes } from '../support/speckit';

describe('speckit: the whole flow through the fake LLM server', () => {
  let server: FakeLlmServer;
  let project: SpeckitProject;

  before(async () => (server = await FakeLlmServer.start()));
  after(() => server.close());
  beforeEach(() => server.reset());
  afterEach(() => project.dispose());

  it('constitution → specify → plan → tasks → implement in a project without Spec Kit, each file in its place', async () => {
    project = speckitProject(server);
    const constitution = '# Photos Constitution\n\n### I. Tests first\nEvery change MUST come with a test.\n';
    server.enqueue('openai', ...writes('.specify/memory/constitution.md', constitution));
    const first = await project.command('speckit.constitution', 'tests first, small modules');
    assert.equal(first.result.status, 'needs_input', first.result.message);
    assert.equal(project.read('.specify/memory/constitution.md'), constitution);
    for (const name of ['constitution', 'spec', 'plan', 'tasks', 'checklist']) assert.ok(existsSync(join(project.root, `.specify/templates/${name}-template.md`)), `${name} template laid out`);
    assert.match(requestText(server, 0), /tests first, small modules/);
    assert.match(requestText(server, 0), /\[PRINCIPLE_1_NAME\]/, 'our constitution template is in the prompt');

    const dir = 'specs/001-photo-albums-grouped-date';
    server.enqueue('openai', ...writes(`${dir}/spec.md`, SPEC));
    const specified = await project.command('speckit.specify', 'Photo albums grouped by date');
    assert.equal(specified.result.status, 'needs_input', specified.result.message);
    assert.match(specified.result.message, new RegExp(`Specified ${dir}: wrote spec\\.md`));
    assert.equal(project.read(`${dir}/spec.md`), SPEC);
    assert.deepEqual(JSON.parse(project.read('.specify/feature.json')), { feature_directory: dir });
    const specPrompt = requestText(server, 2);
    assert.match(specPrompt, /Photo albums grouped by date/);
    assert.match(specPrompt, /Every change MUST come with a test/, 'the constitution travels with the prompt');
    assert.match(specPrompt, /User Story 1 - \[Short title\] \(Priority: P1\)/, 'our spec template');
    assert.ok(specified.events.some((e) => e.type === 'text_delta' && e.agent === 'speckit' && e.delta.includes(`Feature ${dir} (new, number 001)`)));

    server.enqueue(
      'openai',
      { blocks: [
        { type: 'tool_call', name: 'write_file', arguments: { path: `${dir}/plan.md`, content: PLAN } },
        { type: 'tool_call', name: 'write_file', arguments: { path: `${dir}/research.md`, content: '# Research\n' } },
      ] },
      { blocks: [{ type: 'text', text: 'Planned.' }] },
    );
    const planned = await project.command('speckit.plan', 'TypeScript, no framework');
    assert.match(planned.result.message, new RegExp(`Planned ${dir}: wrote plan\\.md, research\\.md`));
    assert.match(requestText(server, 4), /The library MUST group photos into one album per day/, 'the spec travels with the prompt');

    server.enqueue('openai', ...writes(`${dir}/tasks.md`, TASKS));
    const tasked = await project.command('speckit.tasks');
    assert.match(tasked.result.message, /3 tasks in 2 phases; they are the session's plan now/);
    assert.deepEqual(project.session.todos.list().map((t) => [t.id, t.status, t.priority]), [
      ['T001', 'pending', 'medium'],
      ['T002', 'pending', 'high'],
      ['T003', 'pending', 'high'],
    ]);

    server.enqueue(
      'openai',
      { blocks: [{ type: 'tool_call', name: 'write_file', arguments: { path: 'src/albums/index.ts', content: 'export {};\n' } }] },
      completes('Created src/albums/index.ts.'),
      completes('Approved T001.'),
      completes('Grouped.'),
      completes('Approved T002.'),
      completes('Sorted.'),
      completes('Approved T003.'),
    );
    const implemented = await project.command('speckit.implement');
    assert.equal(implemented.result.status, 'completed', implemented.result.message);
    assert.match(implemented.result.message, new RegExp(`Implemented ${dir}: 3 tasks approved and ticked`));
    assert.equal(project.read(`${dir}/tasks.md`), TASKS.replace(/- \[ \]/g, '- [X]'));
    assert.ok(existsSync(join(project.root, 'src/albums/index.ts')));
    assert.deepEqual(project.session.todos.list().map((t) => t.status), ['completed', 'completed', 'completed']);
    const workerPrompt = requestText(server, 8);
    for (const part of [/Carry out task T001/, /Every change MUST come with a test/, /The library MUST group photos/, /Constitution Check/]) assert.match(workerPrompt, part);

    const meta = project.store.meta(project.session.id);
    assert.equal(meta.feature, dir);
    assert.deepEqual(
      meta.artifacts!.map((a) => [a.command, a.folder, a.files]),
      [
        ['speckit.constitution', undefined, ['.specify/memory/constitution.md', ...['checklist', 'constitution', 'plan', 'spec', 'tasks'].map((n) => `.specify/templates/${n}-template.md`)]],
        ['speckit.specify', dir, ['.specify/feature.json', `${dir}/spec.md`]],
        ['speckit.plan', dir, [`${dir}/plan.md`, `${dir}/research.md`]],
        ['speckit.tasks', dir, [`${dir}/tasks.md`]],
        ['speckit.implement', dir, [`${dir}/tasks.md`, 'src/albums/index.ts']],
      ],
    );
    const loaded = project.store.load(project.session.id);
    assert.equal(loaded.artifacts.feature, dir, 'a resumed session keeps its feature');
    assert.deepEqual(loaded.artifacts.list(), project.session.artifacts.list());
    const io = fakeIO({ env: { XDG_DATA_HOME: join(project.data, 'data') } });
    assert.equal(await sessionsCommand(['show', project.session.id], io), 0);
    assert.match(io.out(), new RegExp(`Feature: ${dir}\\nArtifacts:\\n`));
    assert.match(io.out(), new RegExp(`/speckit\\.plan  \\S+ \\S+  ${dir}: plan\\.md, research\\.md`));
  });

  it('works unchanged in a project made by `specify init`: its templates, its numbering, its tasks.md updated in place', async () => {
    project = speckitProject(server, { copyFrom: join(FIXTURES, 'specify-init') });
    const templates = readFileSync(join(FIXTURES, 'specify-init/.specify/templates/spec-template.md'), 'utf8');
    const dir = 'specs/003-export-notes-markdown-files';
    server.enqueue('openai', ...writes(`${dir}/spec.md`, SPEC));
    const specified = await project.command('speckit.specify', 'Export notes as Markdown files --no-branch');
    assert.match(specified.result.message, new RegExp(`Specified ${dir}`), specified.result.message);
    assert.match(requestText(server, 0), /acme spec template v2/, "the project's own template");
    assert.match(requestText(server, 0), /Tests MUST be written and seen failing/, "the project's constitution");
    assert.equal(readFileSync(join(FIXTURES, 'specify-init/.specify/templates/spec-template.md'), 'utf8'), templates);
    assert.ok(!existsSync(join(project.root, '.specify/templates/overrides')), 'nothing of ours laid over theirs');
    assert.deepEqual(project.store.meta(project.session.id).artifacts![0]!.files, ['.specify/feature.json', `${dir}/spec.md`]);

    server.enqueue('openai', ...writes(`${dir}/plan.md`, PLAN));
    await project.command('speckit.plan');
    assert.match(requestText(server, 2), /acme plan template v2/);

    const before = project.read('specs/002-password-reset/tasks.md');
    server.enqueue('openai', completes('Tokens issued.'), completes('Approved.'), completes('Verified.'), completes('Approved.'));
    const implemented = await project.command('speckit.implement', '002');
    assert.equal(implemented.result.status, 'completed', implemented.result.message);
    assert.match(requestText(server, 4), /Carry out task T002 of the feature in specs\/002-password-reset/, 'resumes after the ticked T001');
    assert.equal(project.read('specs/002-password-reset/tasks.md'), before.replace('- [ ] T002', '- [X] T002').replace('- [ ] T003', '- [X] T003'));
    assert.equal(project.store.meta(project.session.id).feature, 'specs/002-password-reset');
  });

  it("starts the feature's git branch when speckit.create_branch asks for one, carrying uncommitted work along untouched", async () => {
    project = speckitProject(server, { git: true, settings: '[speckit]\ncreate_branch = true\n' });
    project.write('notes.txt', 'uncommitted\n');
    server.enqueue('openai', ...writes('specs/001-photo-albums/spec.md', SPEC));
    const { result, events } = await project.command('speckit.specify', 'Photo albums');
    assert.match(result.message, /Specified specs\/001-photo-albums/, result.message);
    const said = events.filter((e) => e.type === 'text_delta' && e.agent === 'speckit').map((e) => (e as { delta: string }).delta).join('');
    assert.match(said, /started git branch 001-photo-albums from main, your uncommitted changes untouched/);
    const git = (...args: string[]) => execFileSync('git', args, { cwd: project.root }).toString().trim();
    assert.equal(git('branch', '--show-current'), '001-photo-albums');
    assert.equal(project.read('notes.txt'), 'uncommitted\n');
    assert.match(git('status', '--porcelain'), /\?\? notes\.txt/);
  });

  it('works on the seed variant .specify/specs/NNN-name and numbers after it', async () => {
    project = speckitProject(server);
    project.write('.specify/specs/004-first/spec.md', SPEC);
    server.enqueue('openai', ...writes('.specify/specs/005-second-thing/spec.md', SPEC));
    const specified = await project.command('speckit.specify', 'Second thing --no-branch');
    assert.match(specified.result.message, /Specified \.specify\/specs\/005-second-thing/, specified.result.message);
  });

  it('/speckit.clarify asks and stops for the answer; /speckit.checklist writes checklists/DOMAIN.md; both name the feature', async () => {
    project = speckitProject(server);
    project.write('specs/001-a/spec.md', SPEC);
    project.write('specs/002-b/spec.md', SPEC);
    project.write('.specify/feature.json', '{"feature_directory": "specs/001-a"}');
    server.enqueue('openai', { blocks: [{ type: 'text', text: 'Question 1 of 3: by which date? A) taken B) imported' }] });
    const clarified = await project.command('speckit.clarify', '001 focus on dates');
    assert.equal(clarified.result.status, 'needs_input');
    assert.match(clarified.result.message, /Clarifying specs\/001-a: no answers recorded yet/);
    const prompt = requestText(server, 0);
    assert.match(prompt, /focus on dates/);
    assert.doesNotMatch(prompt, /001 focus/, 'the feature reference is taken out of the text');
    assert.match(prompt, /### Session \d{4}-\d{2}-\d{2}/);

    server.enqueue('openai', ...writes('specs/001-a/checklists/ux.md', '# UX Checklist\n\n- [ ] CHK001 Is the empty library described?\n'));
    const checked = await project.command('speckit.checklist', 'ux');
    assert.match(checked.result.message, /Checklist for specs\/001-a: wrote checklists\/ux\.md/, 'the feature the last command named, as recorded in feature.json');
    assert.match(requestText(server, 1), /Checklists there now: none/);
  });

  it('says what to do when a step is missing or the agent wrote nothing', async () => {
    project = speckitProject(server);
    const none = await project.command('speckit.plan');
    assert.equal(none.result.status, 'error');
    assert.match(none.result.message, /No current feature: .* Start one with \/speckit\.specify/);
    assert.equal(server.requests.length, 0, 'no model call');

    project.write('specs/001-a/spec.md', SPEC);
    project.write('.specify/feature.json', '{"feature_directory": "specs/001-a"}');
    const noPlan = await project.command('speckit.tasks');
    assert.match(noPlan.result.message, /specs\/001-a \(from \.specify\/feature\.json\) has no plan\.md yet: run \/speckit\.plan first/);

    server.enqueue('openai', { blocks: [{ type: 'text', text: 'I would rather not.' }] });
    const lazy = await project.command('speckit.specify', 'Something --no-branch');
    assert.equal(lazy.result.status, 'error');
    assert.match(lazy.result.message, /specs\/002-something\/spec\.md still holds the template: build did not write the spec/);

    const empty = await project.command('speckit.specify', '');
    assert.match(empty.result.message, /Describe the feature to specify/);
  });

  it('stops /speckit.tasks on a broken tasks.md with its line numbers, and keeps the plan list as it was', async () => {
    project = speckitProject(server);
    project.write('specs/001-a/spec.md', SPEC);
    project.write('specs/001-a/plan.md', PLAN);
    project.write('.specify/feature.json', '{"feature_directory": "specs/001-a"}');
    server.enqueue('openai', ...writes('specs/001-a/tasks.md', '# Tasks\n\n## Phase 1: Setup\n\n- [ ] T001 Do it\n- [ ] Do more\n'));
    const { result } = await project.command('speckit.tasks');
    assert.equal(result.status, 'error');
    assert.match(result.message, /specs\/001-a\/tasks\.md:6: a checkbox without a task id/);
    assert.deepEqual(project.session.todos.list(), []);
  });

  it('/speckit.analyze reports code findings and the model judgement, and changes no file even when the model tries', async () => {
    project = speckitProject(server);
    project.write('specs/001-a/spec.md', SPEC);
    project.write('specs/001-a/plan.md', PLAN);
    project.write('specs/001-a/tasks.md', TASKS.replace(' (FR-002)', ''));
    project.write('.specify/feature.json', '{"feature_directory": "specs/001-a"}');
    project.write('.specify/memory/constitution.md', '# C\n\n### I. Tests\nTests MUST come first.\n');
    server.enqueue(
      'openai',
      { blocks: [{ type: 'tool_call', name: 'write_file', arguments: { path: 'specs/001-a/spec.md', content: 'changed' } }] },
      { blocks: [{ type: 'text', text: '## Specification Analysis Report\n\n| F2 | Ambiguity | LOW | spec.md | "newest first" by which date? | Say taken date. |' }] },
    );
    const { result, events } = await project.command('speckit.analyze');
    assert.equal(result.status, 'needs_input', result.message);
    assert.equal(project.read('specs/001-a/spec.md'), SPEC, 'the write was refused');
    assert.match(JSON.stringify(server.requestsFor('openai')[1]!.body.messages), /policy denies write/);
    assert.match(result.message, /Analyzed specs\/001-a: 1 finding \(1 high\) from the automatic checks; no file was changed/);
    const said = events.filter((e) => e.type === 'text_delta' && e.agent === 'speckit').map((e) => (e as { delta: string }).delta).join('');
    assert.match(said, /\| F1 \| Coverage \| HIGH \| spec\.md:L\d+ \| FR-002 has no task citing it\. \|/);
    assert.match(requestText(server, 0), /F1 HIGH Coverage at spec\.md:L\d+: FR-002 has no task citing it/);
  });
});
