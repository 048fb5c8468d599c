import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AgentRegistry } from '../../../src/config/agent-registry';
import { formatProblem } from '../../../src/config/config-problems';

const BUILTIN_ACP = ['build', 'build-criteria', 'build-judged', 'build-loop', 'build-prompted', 'build-verified', 'judge-attempts', 'pair', 'pair-chat', 'plan', 'task-pair'];
const BUILTIN_BASE = ['attempt-judge', 'builder', 'code-reviewer', 'documentation-writer', 'explorer', 'judge', 'planner', 'reviewer', 'test-generator', 'verifier', 'worker'];

describe('agent registry', () => {
  let home: string;
  let project: string;
  let env: NodeJS.ProcessEnv;
  const write = (root: string, relative: string, text: string): string => {
    const path = join(root, relative);
    mkdirSync(join(path, '..'), { recursive: true });
    writeFileSync(path, text);
    return path;
  };
  const userFile = (relative: string, text: string): string => write(join(home, 'crow-agent', 'agents'), relative, text);
  const projectFile = (relative: string, text: string): string => write(join(project, '.crow', 'agents'), relative, text);
  const load = (): ReturnType<typeof AgentRegistry.load> => AgentRegistry.load(project, env);

  beforeEach(() => {
    home = mkdtempSync(join(tmpdir(), 'crow-reg-home-'));
    project = mkdtempSync(join(tmpdir(), 'crow-reg-proj-'));
    env = { XDG_CONFIG_HOME: home };
  });
  afterEach(() => {
    rmSync(home, { recursive: true, force: true });
    rmSync(project, { recursive: true, force: true });
  });

  it('ships the built-in agents, each with a description', () => {
    const { registry, errors } = load();
    assert.deepEqual(errors, []);
    assert.deepEqual(registry.acpAgents().map((a) => a.name), BUILTIN_ACP);
    assert.deepEqual(registry.baseAgents().map((a) => a.name), BUILTIN_BASE);
    for (const agent of registry.list()) assert.ok(agent.description.length > 10, `${agent.name} has a description`);
    assert.deepEqual(registry.baseAgent('judge')?.tools, ['task_complete', 'todo_read', 'think']);
    assert.equal(registry.baseAgent('planner')?.tools?.some((t) => ['write_file', 'edit_file', 'bash'].includes(t)), false);
    assert.equal(registry.get('pair')?.kind, 'acp');
    assert.equal(registry.get('builder')?.kind, 'base');
  });

  it('lets global override built-in and, in a trusted folder, project override global, by name', () => {
    userFile('base/builder.md', '---\nname: builder\ndescription: global builder\nmodel: global-model\n---\n');
    userFile('acp/build.md', '---\ndescription: global build\nprimary: builder\nflow: loop\n---\n');
    const mine = projectFile('acp/mine.md', '---\nname: build\ndescription: project build\nprimary: builder\nflow: static\n---\n');
    const untrusted = load();
    assert.equal(untrusted.registry.acpAgent('build')?.description, 'global build', 'an untrusted folder does not replace the user\'s own');
    assert.deepEqual(untrusted.errors.map((error) => [error.file, error.field]), [[mine, 'name']]);
    assert.match(untrusted.errors[0]!.message, /replaces your own agent "build" .*yours is used; trust this folder \(crow trust\)/);
    const { registry, errors } = AgentRegistry.load(project, env, { trusted: true });
    assert.deepEqual(errors, []);
    assert.equal(registry.baseAgent('builder')?.model, 'global-model');
    assert.equal(registry.acpAgent('build')?.description, 'project build');
    assert.equal(registry.acpAgent('build')?.flow.kind, 'static');
    assert.equal(registry.acpAgents().length, BUILTIN_ACP.length);
  });

  it('hides an agent marked enabled: false, and names it when another agent needs it', () => {
    projectFile('acp/pair-chat.md', '---\ndescription: off\nprimary: builder\nflow: hitl\nenabled: false\n---\n');
    projectFile('base/judge.md', '---\ndescription: off\nenabled: false\n---\n');
    const { registry, errors } = load();
    assert.equal(registry.acpAgent('pair-chat'), undefined);
    assert.equal(registry.baseAgent('judge'), undefined);
    assert.equal(registry.acpAgent('build-judged'), undefined);
    assert.equal(errors.length, 1);
    assert.match(formatProblem(errors[0]!), /build-judged\.md: field "coagent": base agent "judge" is disabled/);
  });

  it('checks what ACP agents refer to', () => {
    projectFile('acp/a.md', '---\ndescription: typo\nprimary: bulder\nflow: hitl\n---\n');
    projectFile('acp/b.md', '---\ndescription: no reviewer\nprimary: builder\nflow: smart\n---\n');
    projectFile('acp/c.md', '---\ndescription: idle reviewer\nprimary: builder\ncoagent: reviewer\nflow: static\n---\n');
    projectFile('base/mute.md', '---\ndescription: cannot approve\ntools: [read_file]\n---\n');
    projectFile('acp/d.md', '---\ndescription: mute reviewer\nprimary: builder\ncoagent: mute\nflow: judge\n---\n');
    const { registry, errors } = load();
    const lines = errors.map(formatProblem);
    assert.match(lines[0]!, /a\.md: field "primary": unknown base agent "bulder" \(did you mean "builder"\?\)/);
    assert.match(lines[1]!, /b\.md: field "coagent": a smart flow needs a coagent/);
    assert.match(lines[2]!, /c\.md: field "coagent": a static flow has no coagent/);
    assert.match(lines[3]!, /d\.md: field "coagent": coagent "mute" lacks the task_complete tool/);
    assert.equal(lines.length, 4);
    for (const name of ['a', 'b', 'c', 'd']) assert.equal(registry.acpAgent(name), undefined);
    assert.ok(registry.baseAgent('mute'));
  });

  it('collects the problems of every file: one bad file does not hide the others', () => {
    const broken = projectFile('base/broken.md', '---\nname: broken\nmax_iterations: lots\n---\n');
    const typo = projectFile('base/typo.md', '---\nname: typo\ntools: [grpe]\n---\n');
    projectFile('base/fine.md', '---\nname: fine\ndescription: fine\n---\n');
    const noFrontmatter = userFile('acp/notes.md', 'no frontmatter here\n');
    const { registry, errors } = load();
    assert.deepEqual(errors.map((e) => [e.file, e.field]), [
      [broken, 'max_iterations'],
      [typo, 'tools[0]'],
      [noFrontmatter, undefined],
    ]);
    assert.match(errors[1]!.message, /unknown tool "grpe" \(did you mean "grep"\?\)/);
    assert.ok(registry.baseAgent('fine'));
    assert.equal(registry.acpAgents().length, BUILTIN_ACP.length);
  });

  it('rejects two definitions of one name in one folder', () => {
    projectFile('base/one.md', '---\nname: twin\n---\n');
    const second = projectFile('base/two.md', '---\nname: twin\n---\n');
    const { errors } = load();
    assert.deepEqual(errors.map((e) => [e.file, e.field]), [[second, 'name']]);
  });

  it('names base agents whose provider the settings do not know', () => {
    const file = projectFile('base/local.md', '---\nprovider: ollma\nmodel: m\n---\n');
    const { registry } = load();
    assert.deepEqual(registry.baseAgent('local')?.untrusted, { provider: 'ollma', model: 'm' }, 'an untrusted folder\'s agent runs on the default provider');
    assert.equal(registry.baseAgent('local')?.provider, undefined);
    const problems = registry.providerProblems(['anthropic', 'openai', 'ollama']);
    assert.deepEqual(problems.map((p) => [p.file, p.field]), [[file, 'provider']]);
    assert.match(problems[0]!.message, /unknown provider "ollma" \(did you mean "ollama"\?\)/);
  });
});
