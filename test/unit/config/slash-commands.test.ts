import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseCommandLine, SlashCommandError, SlashCommands } from '../../../src/config/slash-commands';

describe('slash commands', () => {
  let home: string;
  let project: string;
  let env: NodeJS.ProcessEnv;
  const commandFile = (root: string, name: string, text: string): string => {
    mkdirSync(root, { recursive: true });
    writeFileSync(join(root, `${name}.md`), text);
    return join(root, `${name}.md`);
  };
  const projectCommand = (name: string, text: string): string => commandFile(join(project, '.crow', 'commands'), name, text);
  const userCommand = (name: string, text: string): string => commandFile(join(home, 'crow-agent', 'commands'), name, text);

  beforeEach(() => {
    home = mkdtempSync(join(tmpdir(), 'crow-cmd-home-'));
    project = mkdtempSync(join(tmpdir(), 'crow-cmd-proj-'));
    env = { XDG_CONFIG_HOME: home };
  });
  afterEach(() => {
    rmSync(home, { recursive: true, force: true });
    rmSync(project, { recursive: true, force: true });
  });

  it('ships /review, /test and /explain, each with a description', () => {
    const { commands, errors } = SlashCommands.load(project, env);
    assert.deepEqual(errors, []);
    assert.deepEqual(commands.list().map((c) => c.name), ['explain', 'review', 'test']);
    for (const command of commands.list()) assert.ok(command.description.length > 10);
  });

  it('expands /name args into the prompt and the agent it picks', () => {
    const { commands } = SlashCommands.load(project, env);
    const explained = commands.expand('/explain src/config/paths.ts', { workspaceRoot: project, agentName: 'build' });
    assert.equal(explained.agent, 'plan');
    assert.match(explained.prompt, /^Explain src\/config\/paths\.ts\./);
    const reviewed = commands.expand('/review', { workspaceRoot: project, agentName: 'build' });
    assert.equal(reviewed.agent, undefined);
    assert.match(reviewed.prompt, /^Review the current changes in this repository\./);
  });

  it('renders {{args}} with the prompt context, project commands overriding user ones', () => {
    userCommand('ship', '---\ndescription: user ship\n---\nUser version.\n');
    projectCommand('ship', '---\ndescription: Ship it\nagent: pair\n---\n{{agentName}} ships {{args}} from {{workspaceRoot}}.\n');
    const { commands, errors } = SlashCommands.load(project, env);
    assert.deepEqual(errors, []);
    const expanded = commands.expand('/ship  the release\nnotes ', { workspaceRoot: project, agentName: 'build' });
    assert.deepEqual(expanded, { prompt: `pair ships the release\nnotes from ${project}.\n`, agent: 'pair' });
  });

  it('names an unknown command with a "did you mean"', () => {
    const { commands } = SlashCommands.load(project, env);
    assert.throws(
      () => commands.expand('/reviw please', { workspaceRoot: project, agentName: 'build' }),
      (err: Error) => err instanceof SlashCommandError && /Unknown command "\/reviw"\. Did you mean "\/review"\?/.test(err.message),
    );
    assert.throws(() => commands.expand('review', { workspaceRoot: project, agentName: 'build' }), /not a command/);
  });

  it('reports broken command files and keeps the good ones', () => {
    const unknownField = projectCommand('a', '---\ndescription: a\nagnet: pair\n---\nDo a.\n');
    const empty = projectCommand('b', '---\ndescription: b\n---\n');
    const badTemplate = projectCommand('c', '---\ndescription: c\n---\n{{#if args}}open\n');
    projectCommand('d', '---\ndescription: d\nagent: pairr\n---\nDo d.\n');
    const { commands, errors } = SlashCommands.load(project, env);
    assert.deepEqual(errors.map((e) => [e.file, e.field]), [
      [unknownField, 'agnet'],
      [empty, 'body'],
      [badTemplate, 'body'],
    ]);
    assert.match(errors[0]!.message, /did you mean "agent"\?/);
    assert.ok(commands.get('d'));
    const agentProblems = commands.agentProblems(['pair', 'build', 'build-loop', 'plan']);
    assert.deepEqual(agentProblems.map((p) => p.field), ['agent']);
    assert.match(agentProblems[0]!.message, /unknown agent "pairr" \(did you mean "pair"\?\)/);
  });

  it('parses command lines', () => {
    assert.deepEqual(parseCommandLine('/test'), { name: 'test', args: '' });
    assert.deepEqual(parseCommandLine('  /test unit  only '), { name: 'test', args: 'unit  only' });
    assert.equal(parseCommandLine('test'), undefined);
    assert.equal(parseCommandLine('/ test'), undefined);
  });
});
