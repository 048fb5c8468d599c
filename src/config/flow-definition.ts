/**
 * The frontmatter of an ACP agent definition and the ControlFlow it
 * describes: a named flow or an autonomy level, with only the parameters
 * that flow uses.
 */
import * as z from 'zod';
import { onFirstUse } from '../vocabulary/first-use';
import { type ControlFlow, controlFlowForLevel, type ControlFlowKind, type HandoffPrompt, LOOP_WITH_COAGENT, PRESETS } from './control-flow';
import type { DefinitionError } from './config-problems';
import { NameSchema } from './settings-file';
import { templateSyntaxError } from './template-text';

export const FLOW_NAMES = ['hitl', 'loop', 'static', 'generated', 'judge', 'verify', 'smart', 'chat'] as const;
type FlowName = (typeof FLOW_NAMES)[number];

/** The levels of seed 001 behind the single-agent flow names; the coagent names are seed 000's presets. */
const LEVEL_OF: Record<Exclude<FlowName, keyof typeof PRESETS>, number> = { hitl: -1, loop: 0, static: 1, generated: 2 };

/** How the reviewer is briefed: a prompts/ template by name or written in place, a fixed text, or a generator prompt. */
const HandoffSchema = onFirstUse(() =>
  z
    .object({
      template: NameSchema().optional(),
      /** A handlebars template written here (seed 000's [handoff] type = "template"), with the same variables as review-handoff. */
      inline: z.string().min(1).optional(),
      static: z.string().min(1).optional(),
      generated: z.string().min(1).optional(),
    })
    .strict(),
);

export const ACPAgentSchema = onFirstUse(() =>
  z
    .object({
      name: NameSchema().optional(),
      /** One line for a picker. */
      description: z.string().min(1),
      /** Base agent names. */
      primary: NameSchema(),
      coagent: NameSchema().optional(),
      flow: z.enum(FLOW_NAMES).optional(),
      level: z.number().int().min(-1).max(5).optional(),
      max_turns: z.number().int().positive().optional(),
      max_rounds: z.number().int().positive().optional(),
      follow_up: z.string().min(1).optional(),
      generator_prompt: z.string().min(1).optional(),
      handoff: HandoffSchema().optional(),
      /** Default: the flow preset's (judge none, verify read_only, smart and chat full). */
      coagent_tools: z.enum(['none', 'read_only', 'full']).optional(),
      /** Coagent flows: false lets the coagent review but not end the task (default true). */
      can_terminate: z.boolean().optional(),
      enabled: z.boolean().optional(),
      /** false: offered in no picker (ACP modes, the chat), run only by name (crow run --agent, --judge). Default true. */
      pickable: z.boolean().optional(),
    })
    .strict(),
);

type ACPAgentData = z.infer<ReturnType<typeof ACPAgentSchema>>;

/** The flows each parameter belongs to. */
const PARAMETER_FLOWS: Record<'max_turns' | 'max_rounds' | 'follow_up' | 'generator_prompt' | 'handoff' | 'coagent_tools' | 'can_terminate', ControlFlowKind[]> = {
  max_turns: ['loop', 'static', 'generated'],
  max_rounds: ['coagent'],
  follow_up: ['static'],
  generator_prompt: ['generated'],
  handoff: ['coagent'],
  coagent_tools: ['coagent'],
  can_terminate: ['coagent'],
};

const FLOW_WORDS: Record<ControlFlowKind, string> = {
  hitl: 'hitl',
  loop: 'loop',
  static: 'static',
  generated: 'generated',
  coagent: 'coagent flows (judge, verify, smart, chat, loop with a coagent)',
};

export type ComposedFlow = { flow: ControlFlow; handoff?: HandoffPrompt } | { problems: DefinitionError[] };

export function flowOf(file: string, data: ACPAgentData): ComposedFlow {
  if (data.flow !== undefined && data.level !== undefined) {
    return { problems: [{ file, field: 'level', message: 'give either flow or level, not both.' }] };
  }
  if (data.flow === undefined && data.level === undefined) {
    return { problems: [{ file, field: 'flow', message: `missing: one of ${FLOW_NAMES.join(', ')} (or level: -1 to 5).` }] };
  }
  // Seed 000's Loop(n) is the loop flow with a coagent: n rounds of work and review.
  const withCoagent = data.flow === 'loop' && data.coagent !== undefined;
  const base = withCoagent ? LOOP_WITH_COAGENT : data.flow !== undefined ? namedFlow(data.flow) : controlFlowForLevel(data.level!);
  const problems = misplacedParameters(file, data, base.kind);
  const handoff = data.handoff && handoffOf(file, data.handoff, problems);
  if (problems.length > 0) return { problems };
  return { flow: withParameters(base, data), ...(handoff ? { handoff } : {}) };
}

function namedFlow(name: FlowName): ControlFlow {
  return name in PRESETS ? PRESETS[name as keyof typeof PRESETS] : controlFlowForLevel(LEVEL_OF[name as keyof typeof LEVEL_OF]);
}

function misplacedParameters(file: string, data: ACPAgentData, kind: ControlFlowKind): DefinitionError[] {
  return Object.entries(PARAMETER_FLOWS).flatMap(([field, kinds]) => {
    if (data[field as keyof typeof PARAMETER_FLOWS] === undefined || kinds.includes(kind)) return [];
    const hint = field === 'max_turns' && kind === 'coagent' ? ' Coagent flows count review rounds: use max_rounds.' : '';
    const message = `applies to ${kinds.map((k) => FLOW_WORDS[k]).join(', ')}, not to a ${FLOW_WORDS[kind]} flow.${hint}`;
    return [{ file, field, message }];
  });
}

function withParameters(base: ControlFlow, data: ACPAgentData): ControlFlow {
  switch (base.kind) {
    case 'hitl':
      return base;
    case 'loop':
      return { kind: 'loop', maxTurns: data.max_turns ?? base.maxTurns };
    case 'static':
      return { kind: 'static', maxTurns: data.max_turns ?? base.maxTurns, ...(data.follow_up ? { message: data.follow_up } : {}) };
    case 'generated':
      return {
        kind: 'generated',
        maxTurns: data.max_turns ?? base.maxTurns,
        ...(data.generator_prompt ? { generatorPrompt: data.generator_prompt } : {}),
      };
    case 'coagent':
      return {
        ...base,
        tools: data.coagent_tools ?? base.tools,
        maxRounds: data.max_rounds ?? base.maxRounds,
        ...(data.can_terminate === false ? { canTerminate: false } : {}),
      };
  }
}

function handoffOf(file: string, handoff: z.infer<ReturnType<typeof HandoffSchema>>, problems: DefinitionError[]): HandoffPrompt | undefined {
  const given = Object.keys(handoff);
  if (given.length !== 1) {
    const message = 'give exactly one of template (a prompt name), inline (a template written here), static (a text) or generated (a generator prompt).';
    problems.push({ file, field: 'handoff', message });
    return undefined;
  }
  if (handoff.template !== undefined) return { kind: 'template', template: handoff.template };
  if (handoff.inline !== undefined) {
    const syntax = templateSyntaxError(handoff.inline);
    if (syntax === undefined) return { kind: 'template', inline: handoff.inline };
    problems.push({ file, field: 'handoff.inline', message: `not a valid handlebars template: ${syntax}` });
    return undefined;
  }
  if (handoff.static !== undefined) return { kind: 'static', text: handoff.static };
  return { kind: 'generated', generatorPrompt: handoff.generated! };
}
