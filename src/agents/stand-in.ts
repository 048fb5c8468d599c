/**
 * A stand-in: an ACP agent's job done by another base agent, named
 * "AGENT@BASE" (no definition's name holds an "@", so it never clashes
 * with one). AGENT gives the job: its flow, its coagent, and its primary's
 * tools; BASE plays the primary and brings who it is: its system prompt,
 * its provider and model, its permissions, and of AGENT's primary's tools
 * only those its own definition lists. The judge of parallel attempts is
 * one: judge-attempts played by the attempts' own reviewer
 * (src/attempts/judge.ts), with judge-attempts' read-only tools.
 *
 * BASE stands in for the role it has in its own compositions: a reviewer's
 * model is the one chosen for the reviewer (--reviewer-model, the roles'
 * pickers), so a stand-in offers and takes the coagent's model choice.
 */
import type { ACPAgentDefinition, BaseAgentDefinition } from '../config/agent-definitions';
import type { AgentRegistry } from '../config/agent-registry';

const MARK = '@';

/** The name of AGENT's job done by base agent BASE. */
export function standInName(agent: string, base: string): string {
  return `${agent}${MARK}${base}`;
}

/** What a name stands for: a defined ACP agent, or a stand-in built from two definitions. */
export interface ResolvedAgent {
  definition: ACPAgentDefinition;
  primary: BaseAgentDefinition;
  /** The role whose model choices the primary takes: its own role in its compositions. */
  primaryRole: 'primary' | 'coagent';
}

/** `name` as an ACP agent the registry defines, or as a stand-in of two it defines; undefined for neither. */
export function resolveAgent(name: string, registry: AgentRegistry): ResolvedAgent | undefined {
  const defined = registry.acpAgent(name);
  if (defined) {
    const primary = registry.baseAgent(defined.primary);
    return primary ? { definition: defined, primary, primaryRole: 'primary' } : undefined;
  }
  const at = name.indexOf(MARK);
  if (at <= 0) return undefined;
  const job = registry.acpAgent(name.slice(0, at));
  const player = registry.baseAgent(name.slice(at + 1));
  const jobPrimary = job ? registry.baseAgent(job.primary) : undefined;
  if (!job || !player || !jobPrimary || player.external) return undefined;
  // The job's tools (all, when its primary lists none), narrowed to those the player may use.
  const tools = jobPrimary.tools === undefined ? player.tools : jobPrimary.tools.filter((tool) => player.tools === undefined || player.tools.includes(tool));
  return {
    definition: { ...job, name, primary: player.name },
    primary: { ...player, ...(tools !== undefined ? { tools } : {}) },
    primaryRole: player.role === 'reviewer' ? 'coagent' : 'primary',
  };
}
