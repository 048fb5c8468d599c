/**
 * What Spec Kit 1.0.1's installers add to a `specify init --integration
 * claude` project (test/fixtures/speckit/specify-1.0), laid out where and
 * in the shape they write it (read from github/spec-kit's
 * src/specify_cli/extensions and presets; the texts are ours):
 *
 * - `--extension git` (`specify extension add git`): the extension folder
 *   `.specify/extensions/git/` (extension.yml, git-config.yml, commands/),
 *   its entry in `.specify/extensions/.registry` (JSON), and its hooks
 *   merged into `.specify/extensions.yml` (`installed`, `settings`, `hooks`:
 *   one entry per event with extension, command, enabled, optional,
 *   priority, prompt, description, condition).
 * - `--preset ID` (`specify preset add`): the preset folder
 *   `.specify/presets/ID/` (preset.yml whose `provides.templates` lists
 *   `type: command` entries, and their files), its entry in
 *   `.specify/presets/.registry` (priority, enabled, registered_commands),
 *   and each command rendered into the integration's folder
 *   (`.claude/skills/speckit-NAME/SKILL.md` for Claude).
 */
import type { SpeckitRepo } from './speckit-repo';

/** The git extension's hooks by event: its command and whether it is optional (as its extension.yml declares them). */
const GIT_HOOKS: [event: string, command: string, optional: boolean][] = [
  ['before_constitution', 'speckit.git.initialize', false],
  ['before_specify', 'speckit.git.feature', false],
  ...['clarify', 'plan', 'tasks', 'implement', 'checklist', 'analyze', 'taskstoissues'].map((e): [string, string, boolean] => [`before_${e}`, 'speckit.git.commit', true]),
  ...['constitution', 'specify', 'clarify', 'plan', 'tasks', 'implement', 'checklist', 'analyze', 'taskstoissues'].map((e): [string, string, boolean] => [`after_${e}`, 'speckit.git.commit', true]),
];

const GIT_COMMANDS = ['feature', 'validate', 'remote', 'initialize', 'commit'];

/** `specify extension add git`, with `gitConfig` as the person edited `.specify/extensions/git/git-config.yml`. */
export function installGitExtension(repo: SpeckitRepo, gitConfig: Record<string, string> = {}): void {
  const config = { branch_numbering: 'sequential', branch_template: '', branch_prefix: '', init_commit_message: '[Spec Kit] Initial commit', ...gitConfig };
  repo.write(
    '.specify/extensions/git/extension.yml',
    [
      'schema_version: "1.0"',
      'extension: {id: git, name: "Git Branching Workflow", version: "1.0.0", description: "Branches and commits for features"}',
      'provides:',
      '  commands:',
      ...GIT_COMMANDS.map((name) => `    - {name: speckit.git.${name}, file: commands/speckit.git.${name}.md, description: "git ${name}"}`),
      'hooks:',
      ...GIT_HOOKS.map(([event, command, optional]) => `  ${event}: {command: ${command}, optional: ${optional}}`),
      '',
    ].join('\n'),
  );
  for (const name of GIT_COMMANDS) {
    repo.write(`.specify/extensions/git/commands/speckit.git.${name}.md`, `---\ndescription: "git ${name}"\n---\n\nDo the git ${name} step for: $ARGUMENTS\n`);
  }
  repo.write(
    '.specify/extensions/git/git-config.yml',
    `# Git extension settings (edited by the person)\n${Object.entries(config).map(([key, value]) => `${key}: ${JSON.stringify(value)}`).join('\n')}\n`,
  );
  repo.write(
    '.specify/extensions/.registry',
    `${JSON.stringify({ schema_version: '1.0', extensions: { git: { version: '1.0.0', source: 'bundled', enabled: true, priority: 10, registered_commands: { claude: GIT_COMMANDS.map((n) => `speckit.git.${n}`) }, installed_at: '2026-11-30T00:00:00+00:00' } } }, null, 2)}\n`,
  );
  const hooks = GIT_HOOKS.map(([event, command, optional]) =>
    [
      `  ${event}:`,
      `  - extension: git`,
      `    command: ${command}`,
      `    enabled: true`,
      `    optional: ${optional}`,
      `    priority: 10`,
      `    prompt: "Run ${command}?"`,
      `    description: "git step ${event}"`,
      `    condition: null`,
    ].join('\n'),
  );
  repo.write('.specify/extensions.yml', ['installed:', '- git', 'settings:', '  auto_execute_hooks: true', 'hooks:', ...hooks, ''].join('\n'));
}

export interface PresetCommand {
  name: string;
  /** The command file's text, frontmatter included. */
  text: string;
  strategy?: 'replace' | 'prepend' | 'append' | 'wrap';
  /** Where the manifest says the file is (default commands/NAME.md). */
  file?: string;
}

/** `specify preset add ID --priority P` for a preset whose commands replace or compose with core ones. */
export function installPreset(repo: SpeckitRepo, id: string, commands: PresetCommand[], options: { priority?: number; enabled?: boolean } = {}): void {
  const entries = commands.map((c) => {
    const file = c.file ?? `commands/${c.name}.md`;
    repo.write(`.specify/presets/${id}/${file}`, c.text);
    return [
      `    - type: "command"`,
      `      name: "${c.name}"`,
      `      file: "${file}"`,
      `      description: "${id}'s ${c.name}"`,
      `      replaces: "${c.name}"`,
      ...(c.strategy ? [`      strategy: "${c.strategy}"`] : []),
    ].join('\n');
  });
  repo.write(
    `.specify/presets/${id}/preset.yml`,
    ['schema_version: "1.0"', 'preset:', `  id: "${id}"`, `  name: "${id}"`, '  version: "1.0.0"', 'requires:', '  speckit_version: ">=0.6.0"', 'provides:', '  templates:', ...entries, ''].join('\n'),
  );
  const registryPath = '.specify/presets/.registry';
  const registry: { presets: Record<string, unknown> } = repo.exists(registryPath) ? (JSON.parse(repo.read(registryPath)) as { presets: Record<string, unknown> }) : ({ schema_version: '1.0', presets: {} } as { presets: Record<string, unknown> });
  registry.presets[id] = {
    version: '1.0.0',
    source: 'bundled',
    enabled: options.enabled ?? true,
    priority: options.priority ?? 10,
    registered_commands: { claude: commands.map((c) => c.name) },
    installed_at: '2026-11-30T00:00:00+00:00',
  };
  repo.write(registryPath, `${JSON.stringify(registry, null, 2)}\n`);
  for (const c of commands) repo.write(`.claude/skills/${c.name.replace(/\./g, '-')}/SKILL.md`, c.text.replace(/^---\n/, `---\nname: ${c.name.replace(/\./g, '-')}\n`));
}
