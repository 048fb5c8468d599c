/**
 * How an ACP agent drives its base agents: the autonomy levels of seed 001
 * (-1 HITL … 5 full coagent) and the named patterns of seed 000 (Judge,
 * Smart, Chat, Loop with a maximum), as one type. Every flow has a maximum.
 */

/** What tools a reviewer gets. `read_only`: reading, searching and running checks, but no file edits. */
export type CoagentTools = 'none' | 'read_only' | 'full';

/**
 * How the reviewer is briefed, which selects its handoff template:
 * judge — evaluate only, approve or send back; verify — check the claims by
 * reading and running things; smart — approve, fix it yourself, or send back;
 * chat — a back-and-forth between peers until the reviewer is satisfied;
 * loop — one of a fixed number of review rounds (seed 000's Loop(n)).
 */
export type ReviewStyle = 'judge' | 'verify' | 'smart' | 'chat' | 'loop';

export type ControlFlow =
  /** -1: the primary takes one turn; control returns to the human. */
  | { kind: 'hitl' }
  /** 0: the primary takes turns until it calls task_complete. */
  | { kind: 'loop'; maxTurns: number }
  /** 1: after each turn the primary gets a fixed follow-up message. */
  | { kind: 'static'; message?: string; maxTurns: number }
  /** 2: after each turn a generator writes the follow-up (criteria and next steps) from the task and progress. */
  | { kind: 'generated'; generatorPrompt?: string; maxTurns: number }
  /**
   * 3-5: a coagent reviews each turn; only it may call task_complete.
   * `fixedRounds` (seed 000's Loop(n)): every one of the maxRounds rounds
   * runs, and the task is done after the last, not stopped at a limit.
   * `canTerminate: false`: the coagent reviews but may not end the task (it
   * gets no task_complete); the primary's task_complete ends it once the
   * coagent has reviewed at least one round (in a fixed loop, the rounds do).
   */
  | { kind: 'coagent'; tools: CoagentTools; style: ReviewStyle; maxRounds: number; fixedRounds?: boolean; canTerminate?: boolean };

export type ControlFlowKind = ControlFlow['kind'];

/** How the reviewer's brief is written: a template (default `review-handoff`), a fixed text, or generated. */
export type HandoffPrompt =
  | { kind: 'template'; template?: string; inline?: string }
  | { kind: 'static'; text: string }
  | { kind: 'generated'; generatorPrompt: string };


export const DEFAULT_MAX_TURNS = 10;
export const DEFAULT_MAX_ROUNDS = 5;
export const DEFAULT_LOOP_ROUNDS = 3;

/** The flow for an autonomy level of seed 001. */
export function controlFlowForLevel(level: number): ControlFlow {
  switch (level) {
    case -1:
      return { kind: 'hitl' };
    case 0:
      return { kind: 'loop', maxTurns: DEFAULT_MAX_TURNS };
    case 1:
      return { kind: 'static', maxTurns: DEFAULT_MAX_TURNS };
    case 2:
      return { kind: 'generated', maxTurns: DEFAULT_MAX_TURNS };
    case 3:
      return PRESETS.judge;
    case 4:
      return PRESETS.verify;
    case 5:
      return PRESETS.smart;
    default:
      throw new Error(`Unknown autonomy level ${level}: use -1 (HITL) to 5 (full coagent).`);
  }
}

/** Seed 000's named coagent patterns. */
export const PRESETS = {
  judge: { kind: 'coagent', tools: 'none', style: 'judge', maxRounds: DEFAULT_MAX_ROUNDS },
  verify: { kind: 'coagent', tools: 'read_only', style: 'verify', maxRounds: DEFAULT_MAX_ROUNDS },
  smart: { kind: 'coagent', tools: 'full', style: 'smart', maxRounds: DEFAULT_MAX_ROUNDS },
  chat: { kind: 'coagent', tools: 'full', style: 'chat', maxRounds: 2 * DEFAULT_MAX_ROUNDS },
} as const satisfies Record<string, ControlFlow>;

/** Seed 000's Loop(n): `flow: loop` with a coagent, n rounds of work and review. */
export const LOOP_WITH_COAGENT = { kind: 'coagent', tools: 'full', style: 'loop', maxRounds: DEFAULT_LOOP_ROUNDS, fixedRounds: true } as const satisfies ControlFlow;

/** Whether the flow's coagent may end the task (it then needs task_complete). */
export function coagentCanTerminate(flow: ControlFlow): boolean {
  return flow.kind === 'coagent' && flow.canTerminate !== false;
}

/** A short phrase for pickers and logs, e.g. "reviewed (smart, full tools, ≤5 rounds)". */
export function describeFlow(flow: ControlFlow): string {
  switch (flow.kind) {
    case 'hitl':
      return 'one turn, then back to you';
    case 'loop':
      return `loops until task_complete (≤${flow.maxTurns} turns)`;
    case 'static':
      return `prompted to continue after each turn (≤${flow.maxTurns} turns)`;
    case 'generated':
      return `generated follow-ups after each turn (≤${flow.maxTurns} turns)`;
    case 'coagent': {
      const ends = flow.canTerminate === false ? ', the reviewer cannot end the task' : '';
      const tools = `reviewer tools: ${flow.tools.replace('_', '-')}`;
      if (flow.fixedRounds) return `${flow.maxRounds} rounds of work and review (loop, ${tools}${ends})`;
      return `reviewed (${flow.style}, ${tools}, ≤${flow.maxRounds} rounds${ends})`;
    }
  }
}
