import {
  type ACPAgentDefinition,
  type AgentDefinition,
  type BaseAgentDefinition,
  type DefinitionOrigin,
  parseACPAgent,
  parseBaseAgent,
  type Parsed,
} from './agent-definitions';
import type { DefinitionError } from './config-problems';
import { didYouMean } from '../vocabulary/did-you-mean';
import { BUILTIN_TOOL_NAMES, TASK_COMPLETE } from '../vocabulary/tool-names';
import { coagentCanTerminate } from './control-flow';
import { agentNamed } from './agent-aliases';
import { builtinDefinitions } from './builtin-snapshot';
import { findPackageRoot, layerFolders, type MarkdownFile, readDefinitionFiles } from './markdown-files';

export interface LoadedAgents {
  registry: AgentRegistry;
  /** Every problem found, per file; the agents they concern are left out of the registry. */
  errors: DefinitionError[];
}

/**
 * The agents a workspace can use: built-in definitions (agents/ in the
 * package), then ~/.config/crow-agent/agents/, then .crow/agents/, each in
 * base/ and acp/. A later definition replaces an earlier one of the same
 * name; `enabled: false` hides it.
 */
export class AgentRegistry {
  private constructor(
    private readonly acp: ReadonlyMap<string, ACPAgentDefinition>,
    private readonly base: ReadonlyMap<string, BaseAgentDefinition>,
  ) {}

  /**
   * Reads the definitions of `workspaceRoot`. Unless `trusted`, the
   * project's own definitions (`.crow/agents/`) cannot run another agent's
   * process or URL (acp_command, acp_url) nor replace one of the user's own
   * definitions (both reported as problems); one naming another provider
   * than `defaultProvider` runs on the default one, its own provider and
   * model set aside (see BaseAgentDefinition.untrusted); and their
   * permissions only narrow the settings' (see agentPolicy). See
   * agent-trust.ts for what trusting adds.
   */
  static load(
    workspaceRoot: string,
    env: NodeJS.ProcessEnv = process.env,
    options: { builtinRoot?: string; trusted?: boolean; defaultProvider?: string } = {},
  ): LoadedAgents {
    const errors: DefinitionError[] = [];
    const builtinRoot = options.builtinRoot ?? findPackageRoot();
    const untrusted = options.trusted === true ? undefined : { defaultProvider: options.defaultProvider };
    const stored = builtinDefinitions(builtinRoot, __dirname);
    const read = <T extends AgentDefinition>(relative: string, parse: (file: MarkdownFile) => Parsed<T>): Map<string, T> =>
      collect(layerFolders(relative, workspaceRoot, env, builtinRoot), parse, errors, untrusted, (file) => {
        const definition = stored<T>(file);
        return definition ? { definition, problems: [] } : parse(file);
      });
    const allBase = read('agents/base', AGENT_PARSERS['agents/base']);
    const allAcp = read('agents/acp', AGENT_PARSERS['agents/acp']);
    const base = enabledOnly(allBase);
    const acp = new Map<string, ACPAgentDefinition>();
    for (const agent of enabledOnly(allAcp).values()) {
      const problems = referenceProblems(agent, base, allBase);
      if (problems.length === 0) acp.set(agent.name, agent);
      errors.push(...problems);
    }
    return { registry: new AgentRegistry(acp, base), errors };
  }

  /** ACP agents first (what users pick), then base agents. */
  list(): AgentDefinition[] {
    return [...this.acp.values(), ...this.base.values()];
  }

  /** An ACP agent of that name, else a base agent of that name (a seed's name for a built-in agent included). */
  get(name: string): AgentDefinition | undefined {
    const known = this.named(name);
    return this.acp.get(known) ?? this.base.get(known);
  }

  /** The agent `name` is here: itself when defined, else the agent a seed's name for it stands for (see agent-aliases.ts). */
  named(name: string): string {
    return agentNamed(name, (candidate) => this.acp.has(candidate) || this.base.has(candidate));
  }

  acpAgents(): ACPAgentDefinition[] {
    return [...this.acp.values()];
  }

  baseAgents(): BaseAgentDefinition[] {
    return [...this.base.values()];
  }

  /** An ACP agent whose primary and coagent are known, enabled base agents. */
  acpAgent(name: string): ACPAgentDefinition | undefined {
    return this.acp.get(this.named(name));
  }

  baseAgent(name: string): BaseAgentDefinition | undefined {
    return this.base.get(name);
  }

  /** Base agents naming a provider the settings do not know. */
  providerProblems(providers: readonly string[]): DefinitionError[] {
    return this.baseAgents().flatMap((agent) => {
      const named = agent.provider ?? agent.untrusted?.provider;
      if (named === undefined || providers.includes(named)) return [];
      const guess = didYouMean(named, providers);
      const hint = guess ? ` (did you mean "${guess}"?)` : '';
      return [{ file: agent.file, field: 'provider', message: `unknown provider "${named}"${hint}. Known providers: ${providers.join(', ')}.` }];
    });
  }
}

/**
 * The definitions of all folders by name, later folders winning; two files
 * of one name in one folder is an error. `untrusted` (the folder is not
 * trusted): the project's definitions get what AgentRegistry.load says.
 */
function collect<T extends AgentDefinition>(
  folders: readonly string[],
  parse: (file: MarkdownFile) => Parsed<T>,
  errors: DefinitionError[],
  untrusted: { defaultProvider?: string } | undefined,
  parseBuiltin: (file: MarkdownFile) => Parsed<T> = parse,
): Map<string, T> {
  const byName = new Map<string, T>();
  folders.forEach((folder, layer) => {
    const origin = ORIGINS[layer]!;
    const inFolder = new Map<string, string>();
    for (const file of readDefinitionFiles(folder)) {
      const { definition, problems } = (origin === 'builtin' ? parseBuiltin : parse)(file);
      errors.push(...problems);
      if (!definition) continue;
      definition.origin = origin;
      if (origin === 'project' && untrusted) {
        const refused = untrustedProblem(definition, byName.get(definition.name));
        if (refused) {
          errors.push({ file: file.path, ...refused });
          continue;
        }
        if (definition.kind === 'base') setAsideProvider(definition, untrusted.defaultProvider);
      }
      const other = inFolder.get(definition.name);
      if (other !== undefined) {
        errors.push({ file: file.path, field: 'name', message: `"${definition.name}" is already defined by ${other}; names must be unique.` });
        continue;
      }
      inFolder.set(definition.name, file.path);
      byName.set(definition.name, definition);
    }
  });
  return byName;
}

/** Why an untrusted project may not use `definition` (running another agent, replacing the user's own); undefined when it may. */
function untrustedProblem(definition: AgentDefinition, replaced: AgentDefinition | undefined): { field: string; message: string } | undefined {
  if (definition.kind === 'base' && definition.external) {
    const field = 'url' in definition.external ? 'acp_url' : 'acp_command';
    return { field, message: `runs another agent (${field}), which only a trusted folder may do: trust this folder (crow trust) to use it.` };
  }
  if (replaced?.origin === 'user') {
    return {
      field: 'name',
      message: `replaces your own agent "${definition.name}" (${replaced.file}), which only a trusted folder may do: yours is used; trust this folder (crow trust) to use this one.`,
    };
  }
  return undefined;
}

/** An untrusted definition naming another provider than the default runs on the default: its provider and that provider's model are set aside. */
function setAsideProvider(definition: BaseAgentDefinition, defaultProvider: string | undefined): void {
  const { provider, model } = definition;
  if (provider === undefined || provider === defaultProvider) return;
  definition.untrusted = { provider, ...(model !== undefined ? { model } : {}) };
  delete definition.provider;
  delete definition.model;
}

/** How the definitions of each folder of a layer are parsed (the build's snapshot of the built-in ones uses the same). */
export const AGENT_PARSERS = {
  'agents/base': (file: MarkdownFile): Parsed<BaseAgentDefinition> => parseBaseAgent(file, BUILTIN_TOOL_NAMES),
  'agents/acp': (file: MarkdownFile): Parsed<ACPAgentDefinition> => parseACPAgent(file),
} as const;

/** The layer of each folder layerFolders returns, in its order. */
const ORIGINS: readonly DefinitionOrigin[] = ['builtin', 'user', 'project'];

function enabledOnly<T extends AgentDefinition>(definitions: ReadonlyMap<string, T>): Map<string, T> {
  return new Map([...definitions].filter(([, definition]) => definition.enabled));
}

/** What is wrong with the base agents an ACP agent names. */
function referenceProblems(
  agent: ACPAgentDefinition,
  base: ReadonlyMap<string, BaseAgentDefinition>,
  allBase: ReadonlyMap<string, BaseAgentDefinition>,
): DefinitionError[] {
  const problems: DefinitionError[] = [];
  const problem = (field: string, message: string): number => problems.push({ file: agent.file, field, message });
  const missing = (name: string): string | undefined => {
    if (base.has(name)) return undefined;
    if (allBase.has(name)) return `base agent "${name}" is disabled (enabled: false in ${allBase.get(name)!.file}).`;
    const guess = didYouMean(name, [...base.keys()]);
    return `unknown base agent "${name}"${guess ? ` (did you mean "${guess}"?)` : ''}. Base agents: ${[...base.keys()].join(', ')}.`;
  };
  const primaryProblem = missing(agent.primary);
  if (primaryProblem) problem('primary', primaryProblem);
  if (agent.flow.kind !== 'coagent') {
    if (agent.coagent !== undefined) {
      problem('coagent', `a ${agent.flow.kind} flow has no coagent: remove it, or use a judge, verify, smart or chat flow (or flow: loop, for fixed rounds of work and review).`);
    }
    return problems;
  }
  if (agent.coagent === undefined) {
    problem('coagent', `a ${agent.flow.style} flow needs a coagent: the base agent that reviews the work.`);
    return problems;
  }
  const coagentProblem = missing(agent.coagent);
  if (coagentProblem) problem('coagent', coagentProblem);
  const tools = base.get(agent.coagent)?.tools;
  if (coagentCanTerminate(agent.flow) && tools !== undefined && !tools.includes(TASK_COMPLETE)) {
    problem('coagent', `coagent "${agent.coagent}" lacks the task_complete tool, and only the coagent can end the task: add it to its tools, or set can_terminate: false.`);
  }
  return problems;
}
