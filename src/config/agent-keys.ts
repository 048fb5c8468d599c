/**
 * Settings keys into agent definitions, as seed 000's `crow config`
 * spells them: `agents.base.builder.model.model`,
 * `agents.base.builder.react.max_iterations`,
 * `agents.acp.BUILD-LOOP.control_flow.max_iterations`. Seed 000 kept each
 * agent in a TOML file of sections ([model], [react], [control_flow]);
 * ours are markdown files with one flat frontmatter, so each seed path
 * names one frontmatter field. The field's own name works too
 * (`agents.base.builder.max_iterations`).
 */
import type { ControlFlow } from './control-flow';
import { didYouMean } from '../vocabulary/did-you-mean';
import { ConfigError } from './settings';

export type AgentKind = 'base' | 'acp';

export interface AgentKey {
  kind: AgentKind;
  /** As typed; matched to a definition without regard to case (BUILD-LOOP is build-loop). */
  name: string;
  /** The rest of the key, e.g. ["model", "model"]. */
  path: string[];
}

/** Seed 000's sections and fields of a base agent, and the frontmatter field each is. */
const BASE_SEED_PATHS: Record<string, string> = {
  'agent.name': 'name',
  'agent.description': 'description',
  'agent.role': 'role',
  'model.provider': 'provider',
  'model.model': 'model',
  'model.temperature': 'temperature',
  'model.max_tokens': 'max_tokens',
  'tools.enabled': 'tools',
  'react.max_iterations': 'max_iterations',
  'react.doom_loop_threshold': 'doom_loop_threshold',
};

/** The same for ACP agents; control_flow.max_iterations depends on the flow (see acpField). */
const ACP_SEED_PATHS: Record<string, string> = {
  'agent.name': 'name',
  'agent.description': 'description',
  'composition.primary': 'primary',
  'composition.coagent': 'coagent',
  'control_flow.type': 'flow',
  'control_flow.max_rounds': 'max_rounds',
  'control_flow.can_terminate': 'can_terminate',
  'control_flow.coagent_tools': 'coagent_tools',
};

/** The agent a key under `agents.` points into; undefined for any other key. */
export function agentKeyOf(path: readonly string[]): AgentKey | undefined {
  if (path[0] !== 'agents') return undefined;
  const [, kind, name, ...rest] = path;
  if (kind !== 'base' && kind !== 'acp') {
    throw new ConfigError(`"${path.join('.')}": agent keys are agents.base.NAME.FIELD or agents.acp.NAME.FIELD (e.g. agents.base.builder.model.model).`);
  }
  if (name === undefined || rest.length === 0) {
    throw new ConfigError(`"${path.join('.')}" names no field: e.g. agents.${kind}.${name ?? 'NAME'}.${kind === 'base' ? 'react.max_iterations' : 'control_flow.max_iterations'}.`);
  }
  return { kind, name, path: rest };
}

/**
 * The frontmatter field a key's path names in a definition whose flow is
 * `flow` (ACP agents): seed 000's path or the field itself. A ConfigError
 * naming the paths there are otherwise.
 */
export function frontmatterField(key: AgentKey, fields: readonly string[], flow?: ControlFlow): string {
  const dotted = key.path.join('.');
  if (key.kind === 'acp' && ['control_flow.max_iterations', 'control_flow.max_turns'].includes(dotted)) {
    if (!flow || flow.kind === 'hitl') throw new ConfigError(`${key.name} takes one turn and hands back (hitl): it has no iterations to set.`);
    // Seed 000's Loop { max_iterations } and Chat { max_turns }: our coagent flows count rounds, the others turns.
    return flow.kind === 'coagent' ? 'max_rounds' : 'max_turns';
  }
  const seed = (key.kind === 'base' ? BASE_SEED_PATHS : ACP_SEED_PATHS)[dotted];
  if (seed !== undefined) return seed;
  if (key.path.length === 1 && fields.includes(dotted)) return dotted;
  const known = [...Object.keys(key.kind === 'base' ? BASE_SEED_PATHS : ACP_SEED_PATHS), ...(key.kind === 'acp' ? ['control_flow.max_iterations'] : []), ...fields];
  const guess = didYouMean(dotted, known);
  throw new ConfigError(
    `Unknown field "${dotted}" of ${key.kind === 'base' ? 'base' : 'ACP'} agent ${key.name}.${guess ? ` Did you mean "${guess}"?` : ''} Fields: ${known.join(', ')}.`,
  );
}
