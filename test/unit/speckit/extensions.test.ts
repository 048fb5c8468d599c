/**
 * The pure parts of Spec Kit's extensions as Crow reads them, and what a
 * hostile project may put in them: branch templates, preset manifests and
 * command files, remote URLs, ignore files.
 */
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { authorToken, appToken, readBranchTemplate, renderBranch, templateProblem } from '../../../src/speckit/branch-template';
import { githubRepository, shownUrl } from '../../../src/speckit/github-remote';
import { ignoreFilesNeeded, technologiesIn, withMissing } from '../../../src/speckit/ignore-files';
import { commandLayers, composeLayers } from '../../../src/speckit/preset-commands';
import { fillPlaceholders } from '../../../src/speckit/command-placeholders';
import { tempWorkspace } from '../tools/temp-workspace';

describe('speckit: extensions read as Spec Kit reads them', () => {
  let ws: ReturnType<typeof tempWorkspace> | undefined;
  afterEach(() => ws?.remove());
  const write = (path: string, text: string): void => {
    mkdirSync(dirname(join(ws!.root, path)), { recursive: true });
    writeFileSync(join(ws!.root, path), text);
  };

  it("checks branch templates by the git extension's rules and tokens", () => {
    assert.equal(templateProblem('{author}/{app}/{number}-{slug}'), undefined);
    assert.equal(templateProblem('feat/{number}-{slug}'), undefined);
    assert.match(templateProblem('{team}/{number}-{slug}')!, /^\{team\} is not a token/);
    assert.match(templateProblem('{a}/{b}/{number}-{slug}')!, /^\{a\}, \{b\} are not tokens/);
    assert.match(templateProblem('{{number}}-{slug}')!, /not a token|brace/);
    assert.match(templateProblem('x}/{number}-{slug}')!, /unmatched brace/);
    assert.match(templateProblem('feat/{slug}')!, /must include \{number\}/);
    assert.match(templateProblem('{slug}/{number}-x')!, /\{slug\} must not come before \{number\}/);
    assert.match(templateProblem('{number}/{slug}')!, /last segment must start with \{number\}-/);
    assert.equal(renderBranch('{author}/{app}/{number}-{slug}', { author: 'jane', app: 'web', number: '008', slug: 'guided-tour' }), 'jane/web/008-guided-tour');
    assert.equal(authorToken('Jane Q. Doe', undefined, {}), 'jane-q-doe');
    assert.equal(authorToken(undefined, 'j.doe@example.com', {}), 'j-doe');
    assert.equal(authorToken(undefined, undefined, { USER: 'Ops' }), 'ops');
    assert.equal(authorToken('   ', '', {}), 'unknown');
    assert.equal(authorToken('$(rm -rf /); `x`', undefined, {}), 'rm-rf-x', 'shell text is only letters and dashes in a branch');
    assert.equal(appToken('/home/me/apps/Web App'), 'web-app');
    assert.equal(appToken('/'), 'app');
  });

  it('reads git-config.yml: branch_template over branch_prefix, wrong types ignored, bad YAML a clear error', async () => {
    ws = tempWorkspace({ '.specify/extensions/git/git-config.yml': 'branch_template: "{number}-{slug}"\nbranch_prefix: feat\n' });
    assert.equal((await readBranchTemplate(ws.workspace) as { template: string }).template, '{number}-{slug}');
    write('.specify/extensions/git/git-config.yml', 'branch_template: ""\nbranch_prefix: "feat/"\n');
    assert.equal((await readBranchTemplate(ws.workspace) as { template: string }).template, 'feat/{number}-{slug}');
    write('.specify/extensions/git/git-config.yml', 'branch_template: [1, 2]\nbranch_prefix: 7\n');
    assert.equal((await readBranchTemplate(ws.workspace) as { template: string }).template, '{number}-{slug}');
    write('.specify/extensions/git/git-config.yml', 'branch_template: "{x\n  : ]\n');
    assert.match((await readBranchTemplate(ws.workspace) as { error: string }).error, /git-config\.yml is not valid YAML .* or pass --no-branch/);
  });

  it('resolves preset commands by registry priority and manifest, refusing files outside the preset, floods and wrong types', async () => {
    const manifest = (file: string, extra = '') => `provides:\n  templates:\n    - {type: command, name: speckit.plan, file: "${file}"${extra}}\n`;
    ws = tempWorkspace({
      '.specify/presets/.registry': JSON.stringify({ presets: { a: { priority: 'high' }, b: { priority: 1 }, c: { priority: 2, enabled: false }, '../x': { priority: 0 } } }),
      '.specify/presets/a/commands/speckit.plan.md': 'A',
      '.specify/presets/b/preset.yml': manifest('alt/plan.md'),
      '.specify/presets/b/alt/plan.md': 'B',
      '.specify/presets/b/commands/speckit.plan.md': 'not this one: the manifest names another file',
      '.specify/presets/c/commands/speckit.plan.md': 'C (disabled)',
      '.specify/presets/d/commands/speckit.plan.md': 'D (not in the registry)',
    });
    const layers = await commandLayers(ws.workspace, 'speckit.plan');
    assert.ok(Array.isArray(layers));
    assert.deepEqual(layers.map((l) => [l.origin, l.text]), [['preset b', 'B']]);

    write('.specify/presets/b/preset.yml', manifest('missing.md'));
    assert.deepEqual((await commandLayers(ws.workspace, 'speckit.plan') as { origin: string }[]).map((l) => l.origin), ['preset a'], 'a declared file that is missing skips the preset: no guessing');
    write('.specify/presets/b/preset.yml', manifest('/etc/passwd'));
    assert.match((await commandLayers(ws.workspace, 'speckit.plan') as { error: string }).error, /"\/etc\/passwd" is outside the preset's folder/);
    write('.specify/presets/b/preset.yml', manifest('alt/plan.md', ', strategy: merge'));
    assert.match((await commandLayers(ws.workspace, 'speckit.plan') as { error: string }).error, /strategy "merge" is not one Spec Kit knows/);
    write('.specify/presets/b/preset.yml', 'provides:\n  templates: yes\n');
    assert.match((await commandLayers(ws.workspace, 'speckit.plan') as { error: string }).error, /provides\.templates must be a list/);
    write('.specify/presets/b/preset.yml', `# ${'x'.repeat(300_000)}\n`);
    assert.match((await commandLayers(ws.workspace, 'speckit.plan') as { error: string }).error, /preset\.yml is \d+ bytes, more than the 262144/);
    write('.specify/presets/.registry', '{ not json');
    assert.deepEqual(await commandLayers(ws.workspace, 'speckit.plan'), [], 'an unreadable registry installs nothing');
  });

  it('composes prepend, append and wrap over our prompt, and fills Spec Kit placeholders', () => {
    const layer = (text: string, strategy: 'prepend' | 'append' | 'wrap' | 'replace') => ({ origin: 'preset p', path: 'p.md', text, strategy });
    assert.equal(composeLayers([layer('A', 'append'), layer('P', 'prepend')], 'OURS'), 'P\n\nOURS\n\nA');
    assert.equal(composeLayers([layer('[{CORE_TEMPLATE}]', 'wrap')], 'OURS'), '[OURS]');
    assert.equal(composeLayers([layer('---\nx: 1\n---\nR', 'replace')], 'OURS'), 'R');
    const text = '---\nscripts:\n  sh: scripts/bash/setup-plan.sh --json "{ARGS}"\n  ps: scripts/powershell/setup-plan.ps1 -Json\n---\nRun {SCRIPT}; args: $ARGUMENTS; agent: __AGENT__; next: __SPECKIT_COMMAND_TASKS__';
    assert.equal(fillPlaceholders(text, 'use sqlite', { kind: 'sh', agent: 'claude' }), 'Run .specify/scripts/bash/setup-plan.sh --json "use sqlite"; args: use sqlite; agent: claude; next: /speckit.tasks');
    assert.equal(fillPlaceholders(text, '', { kind: 'ps', agent: 'crow' }).split(';')[0], 'Run .specify/scripts/powershell/setup-plan.ps1 -Json');
    assert.equal(fillPlaceholders('---\nscripts: 5\n---\n{SCRIPT}', 'a', { kind: 'sh', agent: 'c' }), '{SCRIPT}', 'wrong types leave the text as it is');
  });

  it('takes only GitHub remotes, and shows a URL without its credentials', () => {
    assert.equal(githubRepository('https://github.com/acme/notes.git'), 'acme/notes');
    assert.equal(githubRepository('git@github.com:acme/notes.git'), 'acme/notes');
    assert.equal(githubRepository('ssh://git@github.com/acme/notes'), 'acme/notes');
    assert.equal(githubRepository('https://x-access-token:ghp_abc@github.com/acme/notes'), 'acme/notes');
    assert.equal(githubRepository('https://github.com.evil.example/acme/notes'), undefined);
    assert.equal(githubRepository('https://gitlab.com/acme/notes.git'), undefined);
    assert.equal(githubRepository('https://github.com/acme'), undefined);
    assert.equal(githubRepository('https://github.com/acme/notes/extra'), undefined);
    assert.equal(githubRepository('https://github.com/acme/..'), undefined);
    assert.equal(shownUrl('https://user:ghp_secret@github.com/acme/notes'), 'https://github.com/acme/notes');
  });

  it('finds the ignore files a project needs and appends only what is missing, keeping CRLF and every byte', async () => {
    assert.deepEqual(technologiesIn('## Technical Context\n**Language/Version**: Python 3.12, FastAPI\n## Next\nJavaScript elsewhere'), ['Python']);
    assert.deepEqual(technologiesIn('**Language/Version**: Go 1.22'), ['Go']);
    assert.deepEqual(technologiesIn('**Language/Version**: JavaScript'), ['Node.js'], 'JavaScript is not Java');
    ws = tempWorkspace({ '.git/HEAD': 'ref: refs/heads/main\n', '.gitignore': 'venv\r\n__pycache__/\r\n', 'main.tf': '', '.eslintrc.json': '{}' });
    const needed = await ignoreFilesNeeded(ws.workspace, '## Technical Context\nPython\n');
    assert.deepEqual(needed.map((f) => f.path), ['.gitignore', '.eslintignore', '.terraformignore']);
    const gitignore = needed[0]!;
    assert.ok(!gitignore.missing.includes('venv/') && !gitignore.missing.includes('__pycache__/'));
    assert.ok(withMissing(gitignore).startsWith('venv\r\n__pycache__/\r\n\r\n# Added by'), 'CRLF kept');
    assert.ok(!withMissing(gitignore).replace(/\r\n/g, '').includes('\n'), 'no bare LF mixed in');
  });
});
