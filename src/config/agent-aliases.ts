/**
 * The names the seeds give Crow's built-in ACP agents: seed 000's agent
 * names (BUILD-HITL, BUILD-SMART, …) and seed 003's mode ids (react, dual,
 * …). A name that is defined is always that definition (a user's own
 * BUILD-SMART.toml wins); otherwise the seed's name stands for the agent
 * below, so `crow run --agent BUILD-SMART`, `session/set_mode` with "dual"
 * and `default_agent = "react"` work as the seeds wrote them.
 */

/** Each seed name, the built-in agent it is, and where the name comes from. */
export const SEED_AGENT_ALIASES: Readonly<Record<string, { agent: string; seed: string }>> = {
  'BUILD-HITL': { agent: 'build', seed: "seed 000's agent" },
  'BUILD-LOOP': { agent: 'build-loop', seed: "seed 000's agent" },
  'BUILD-JUDGE': { agent: 'build-judged', seed: "seed 000's agent" },
  'BUILD-SMART': { agent: 'pair', seed: "seed 000's agent" },
  'TASK-SMART': { agent: 'task-pair', seed: "seed 000's agent" },
  PLAN: { agent: 'plan', seed: "seed 000's agent" },
  react: { agent: 'build', seed: "seed 003's mode" },
  prompted: { agent: 'build-prompted', seed: "seed 003's mode" },
  judge: { agent: 'build-judged', seed: "seed 003's mode" },
  verified: { agent: 'build-verified', seed: "seed 003's mode" },
  dual: { agent: 'pair', seed: "seed 003's mode" },
};

/** The agent `name` is: itself when `defined` says so, else the agent a seed's name stands for, else `name` unchanged. */
export function agentNamed(name: string, defined: (name: string) => boolean): string {
  if (defined(name)) return name;
  const alias = Object.hasOwn(SEED_AGENT_ALIASES, name) ? SEED_AGENT_ALIASES[name] : undefined;
  return alias && defined(alias.agent) ? alias.agent : name;
}
