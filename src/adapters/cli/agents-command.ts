import { defaultAgentName } from '../../agents/assemble';
import { describeFlow, type HandoffPrompt } from '../../config/control-flow';
import { agentPolicy } from '../../agents/definition-agent';
import { sandboxSetup } from '../../tools/sandbox-setup';
import { type ACPAgentDefinition, type AgentDefinition, type BaseAgentDefinition, builtinSystemTemplate } from '../../config/agent-definitions';
import { AgentRegistry } from '../../config/agent-registry';
import { SEED_AGENT_ALIASES } from '../../config/agent-aliases';
import { type DefinitionError, formatProblem } from '../../config/config-problems';
import { didYouMean } from '../../vocabulary/did-you-mean';
import { agentModel, resolveSettings } from '../../config/provider-config';
import { ConfigError, type Settings } from '../../config/settings';
import { SlashCommands } from '../../config/slash-commands';
import { commandArgs, workspaceFolder } from './cli-args';
import { UsageError, type CliIO } from './cli-io';
import { trustedFolder } from './folder-trust-notice';

export const AGENTS_HELP = `Usage: crow agents <command> [--cwd DIR]

Commands:
  list          the agents you can pick, and the base agents they are made of
  show NAME     one agent's definition: file, flow, provider and model, tools, prompt
  validate      check every agent definition and slash command; exit 1 on any problem

Agents are markdown files with YAML frontmatter: built in, then
~/.config/crow-agent/agents/{base,acp}/, then .crow/agents/{base,acp}/
(a later one replaces an earlier one of the same name; enabled: false hides one).

Options:
  --cwd DIR     workspace root (default: the current folder)
  -h, --help    show this help`;

export async function agentsCommand(argv: string[], io: CliIO): Promise<number> {
  const { values, positionals } = commandArgs('agents', argv, { cwd: { type: 'string' } });
  const [command, ...rest] = positionals;
  if (values.help) {
    io.stdout.write(`${AGENTS_HELP}\n`);
    return 0;
  }
  if (command === undefined) throw new UsageError('crow agents needs a command: list, show NAME or validate (see crow agents --help).');
  const root = workspaceFolder(io.cwd, values.cwd);
  const trusted = await trustedFolder(root, io);
  const { registry, errors } = AgentRegistry.load(root, io.env, { trusted });
  switch (command) {
    case 'list':
      if (rest.length > 0) throw new UsageError('Usage: crow agents list');
      listAgents(registry, resolveSettings(root, {}, io.env, { trusted }), io);
      if (errors.length > 0) io.stderr.write(`crow: ${errors.length} problem(s) in agent definitions; run "crow agents validate".\n`);
      return 0;
    case 'show':
      if (rest.length !== 1) throw new UsageError('Usage: crow agents show NAME');
      showAgent(registry, rest[0]!, resolveSettings(root, {}, io.env, { trusted }), io);
      return 0;
    case 'validate':
      if (rest.length > 0) throw new UsageError('Usage: crow agents validate');
      return validateAgents(root, registry, errors, io, trusted);
    default:
      throw new UsageError(`Unknown agents command "${command}". Use list, show or validate (see crow agents --help).`);
  }
}

function listAgents(registry: AgentRegistry, settings: Settings, io: CliIO): void {
  const out = (line: string): boolean => io.stdout.write(`${line}\n`);
  const acp = registry.acpAgents();
  const width = Math.max(...acp.map((agent) => agent.name.length)) + 2;
  const fallback = defaultAgentName(settings);
  out('Agents (crow run --agent NAME):');
  for (const agent of acp) {
    out(`  ${agent.name.padEnd(width)}${agent.description}${agent.name === fallback ? ' (default)' : ''}`);
    out(`  ${''.padEnd(width)}${composition(agent)} · ${describeFlow(agent.flow)}`);
  }
  const base = registry.baseAgents();
  const baseWidth = Math.max(...base.map((agent) => agent.name.length)) + 2;
  out('');
  out('Base agents:');
  for (const agent of base) {
    out(`  ${agent.name.padEnd(baseWidth)}${agent.role.padEnd(10)}${modelOf(agent, settings).padEnd(34)}${toolsOf(agent)}`);
  }
}

function showAgent(registry: AgentRegistry, name: string, settings: Settings, io: CliIO): void {
  const agent = registry.get(name);
  if (!agent) {
    const names = registry.list().map((definition) => definition.name);
    const guess = didYouMean(name, names);
    throw new UsageError(`Unknown agent "${name}".${guess ? ` Did you mean "${guess}"?` : ''} See crow agents list.`);
  }
  const lines = agent.kind === 'acp' ? acpDetails(agent, registry, settings) : baseDetails(agent, settings);
  const alias = agent.name !== name && Object.hasOwn(SEED_AGENT_ALIASES, name) ? SEED_AGENT_ALIASES[name] : undefined;
  if (alias) lines.unshift(['name', `"${name}" is ${alias.seed} name for ${agent.name}`]);
  io.stdout.write(`${lines.map(([label, value]) => `${`${label}:`.padEnd(16)}${value}`).join('\n')}\n`);
}

function acpDetails(agent: ACPAgentDefinition, registry: AgentRegistry, settings: Settings): [string, string][] {
  const member = (name: string): string => `${name} (${modelOf(registry.baseAgent(name)!, settings)})`;
  const lines: [string, string][] = [
    ['agent', agent.name],
    ['file', agent.file],
    ['description', agent.description],
    ['flow', describeFlow(agent.flow)],
    ['primary', member(agent.primary)],
  ];
  if (agent.coagent !== undefined) lines.push(['coagent', member(agent.coagent)]);
  if (agent.flow.kind === 'coagent') lines.push(['handoff', describeHandoff(agent.handoff)]);
  lines.push(...notes(agent));
  return lines;
}

function describeHandoff(handoff: HandoffPrompt | undefined): string {
  switch (handoff?.kind) {
    case undefined:
      return 'the review-handoff template';
    case 'template':
      return handoff.inline !== undefined ? 'a template written in the definition' : `the ${handoff.template ?? 'review-handoff'} template`;
    case 'static':
      return 'a fixed text, then the review-handoff template';
    case 'generated':
      return "written for each task by the reviewer's model";
  }
}

function baseDetails(agent: BaseAgentDefinition, settings: Settings): [string, string][] {
  const policy = agentPolicy(agent, settings, sandboxSetup(settings).active);
  const rules = Object.entries(policy.rules).map(([category, rule]) => `${category} ${rule}`);
  const allowed = policy.allowCommands.length > 0 ? `; commands allowed: ${policy.allowCommands.join(', ')}` : '';
  const optional = (label: string, value: number | undefined): [string, string][] => (value !== undefined ? [[label, String(value)]] : []);
  return [
    ['base agent', agent.name],
    ['file', agent.file],
    ['description', agent.description],
    ['role', agent.role],
    ['model', modelOf(agent, settings)],
    ...optional('temperature', agent.temperature),
    ...optional('max_tokens', agent.maxTokens ?? settings.maxOutputTokens),
    ...optional('max_iterations', agent.maxIterations ?? settings.maxIterations),
    ...optional('doom_loop', agent.doomLoopThreshold ?? settings.doomLoopThreshold),
    ['tools', toolsOf(agent)],
    ['permissions', `${rules.join(', ')}${allowed}`],
    ['system prompt', agent.systemPrompt === '' ? `the built-in "${builtinSystemTemplate(agent.role)}" template` : agent.file.endsWith('.toml') ? `[prompt] system of ${agent.file}` : `the body of ${agent.file}`],
    ...notes(agent),
  ];
}

/** What seed-style fields of a definition were read as. */
function notes(agent: AgentDefinition): [string, string][] {
  return (agent.hints ?? []).map((hint): [string, string] => ['note', `${hint.field}: ${hint.message}`]);
}

function validateAgents(root: string, registry: AgentRegistry, errors: DefinitionError[], io: CliIO, trusted: boolean): number {
  const problems = [...errors, ...providerProblems(root, registry, io.env, trusted)];
  const { commands, errors: commandErrors } = SlashCommands.load(root, io.env);
  problems.push(...commandErrors, ...commands.agentProblems(registry.acpAgents().map((agent) => agent.name)));
  for (const problem of problems) io.stdout.write(`${formatProblem(problem)}\n`);
  for (const hint of registry.list().flatMap((agent) => agent.hints ?? [])) io.stdout.write(`note: ${formatProblem(hint)}\n`);
  if (problems.length > 0) {
    io.stdout.write(`${problems.length} problem${problems.length === 1 ? '' : 's'} found.\n`);
    return 1;
  }
  const count = `${registry.acpAgents().length} agents, ${registry.baseAgents().length} base agents and ${commands.list().length} commands`;
  io.stdout.write(`All ${count} are valid.\n`);
  return 0;
}

function providerProblems(root: string, registry: AgentRegistry, env: NodeJS.ProcessEnv, trusted: boolean): DefinitionError[] {
  try {
    return registry.providerProblems(Object.keys(resolveSettings(root, {}, env, { trusted }).providers));
  } catch (err) {
    if (err instanceof ConfigError) return [{ file: 'config.toml', message: err.message }];
    throw err;
  }
}

function composition(agent: ACPAgentDefinition): string {
  return agent.coagent !== undefined ? `${agent.primary} + ${agent.coagent}` : agent.primary;
}

function modelOf(agent: BaseAgentDefinition, settings: Settings): string {
  const { provider, model } = agentModel(settings, agent);
  return `${provider}/${model ?? '(no default model)'}`;
}

function toolsOf(agent: BaseAgentDefinition): string {
  return agent.tools ? agent.tools.join(', ') : 'all tools';
}
