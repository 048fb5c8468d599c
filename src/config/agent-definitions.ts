/**
 * Agent definitions: markdown files with YAML frontmatter. A base agent's
 * body is its system prompt (a handlebars template); an ACP agent composes
 * base agents under a control flow and its body is free notes for people.
 * Parsing is per file and collects every problem, so one bad file never
 * hides the others.
 */
import { z } from 'zod';
import type { HandoffPrompt } from '../agents/coagent-flow';
import type { ControlFlow } from '../agents/control-flow';
import type { PermissionCategory } from '../tools/permissions';
import { type DefinitionError, problemsFromZod } from './config-problems';
import { didYouMean } from './did-you-mean';
import { ACPAgentSchema, flowOf } from './flow-definition';
import { splitFrontmatter, type MarkdownFile } from './markdown-files';
import { definedOnly, permissionSettings, type PermissionSettings } from './provider-config';
import { NameSchema, PermissionCategorySchema, PermissionsSchema } from './settings-file';
import { templateSyntaxError } from './template-text';

/** primary: driven by a person; subagent: run by another agent's task tool; reviewer: a coagent that judges work. */
export const AGENT_ROLES = ['primary', 'subagent', 'reviewer'] as const;
export type AgentRole = (typeof AGENT_ROLES)[number];

const BaseAgentSchema = z
  .object({
    name: NameSchema.optional(),
    description: z.string().optional(),
    /** A provider name from the settings; default: the default provider. */
    provider: z.string().min(1).optional(),
    /** Default: the provider's default model (the settings' model for the default provider). */
    model: z.string().min(1).optional(),
    role: z.enum(AGENT_ROLES).optional(),
    temperature: z.number().min(0).max(2).optional(),
    max_tokens: z.number().int().positive().optional(),
    /** Built-in tool names; default: all of them. */
    tools: z.array(z.string().min(1)).optional(),
    permissions: PermissionsSchema.optional(),
    /** Categories that always ask first, whatever the permissions say (deny still denies). */
    requires_approval: z.array(PermissionCategorySchema).optional(),
    max_iterations: z.number().int().positive().optional(),
    doom_loop_threshold: z.number().int().min(2).optional(),
    /** Subagents: seconds to wait for the approval requires_approval asks for; no answer denies. */
    approval_timeout: z.number().int().positive().optional(),
    /** Subagents: evaluate each attempt against reflection_criteria and retry with the critique. */
    enable_reflection: z.boolean().optional(),
    max_retries: z.number().int().min(0).max(5).optional(),
    reflection_criteria: z.string().min(1).optional(),
    enabled: z.boolean().optional(),
  })
  .strict();

interface DefinitionCommon {
  name: string;
  description: string;
  enabled: boolean;
  /** The file it came from, named in every error about it. */
  file: string;
}

export interface BaseAgentDefinition extends DefinitionCommon {
  kind: 'base';
  role: AgentRole;
  provider?: string;
  model?: string;
  temperature?: number;
  maxTokens?: number;
  tools?: string[];
  permissions?: PermissionSettings;
  requiresApproval?: PermissionCategory[];
  maxIterations?: number;
  doomLoopThreshold?: number;
  approvalTimeoutSeconds?: number;
  reflection?: { maxRetries: number; criteria?: string };
  /** The body: a handlebars template; '' means the built-in "system" or "reviewer" template by role. */
  systemPrompt: string;
}

export interface ACPAgentDefinition extends DefinitionCommon {
  kind: 'acp';
  /** Base agent names. */
  primary: string;
  coagent?: string;
  flow: ControlFlow;
  handoff?: HandoffPrompt;
}

export type AgentDefinition = BaseAgentDefinition | ACPAgentDefinition;

/** The prompts/ template a base agent with an empty body gets. */
export function builtinSystemTemplate(role: AgentRole): 'system' | 'reviewer' {
  return role === 'reviewer' ? 'reviewer' : 'system';
}

export type Parsed<T> = { definition: T; problems: [] } | { definition?: undefined; problems: DefinitionError[] };

export function parseBaseAgent(file: MarkdownFile, knownTools: readonly string[]): Parsed<BaseAgentDefinition> {
  const split = splitFrontmatter(file.path, file.text);
  if ('problems' in split) return { problems: split.problems };
  const parsed = BaseAgentSchema.safeParse(split.data);
  if (!parsed.success) return { problems: problemsFromZod(file.path, parsed.error, BaseAgentSchema, split.data) };
  const data = parsed.data;
  const problems = [...unknownTools(file.path, data.tools ?? [], knownTools)];
  const syntax = templateSyntaxError(split.body);
  if (syntax !== undefined) {
    problems.push({ file: file.path, field: 'body', message: `the system prompt is not a valid handlebars template: ${syntax}` });
  }
  if (problems.length > 0) return { problems };
  return {
    problems: [],
    definition: {
      kind: 'base',
      name: data.name ?? file.stem,
      description: data.description ?? '',
      role: data.role ?? 'primary',
      enabled: data.enabled ?? true,
      file: file.path,
      systemPrompt: split.body,
      ...definedOnly({
        provider: data.provider,
        model: data.model,
        temperature: data.temperature,
        maxTokens: data.max_tokens,
        tools: data.tools,
        permissions: data.permissions && permissionSettings(data.permissions),
        requiresApproval: data.requires_approval,
        maxIterations: data.max_iterations,
        doomLoopThreshold: data.doom_loop_threshold,
        approvalTimeoutSeconds: data.approval_timeout,
        reflection: data.enable_reflection
          ? { maxRetries: data.max_retries ?? 1, ...definedOnly({ criteria: data.reflection_criteria }) }
          : undefined,
      }),
    },
  };
}

export function parseACPAgent(file: MarkdownFile): Parsed<ACPAgentDefinition> {
  const split = splitFrontmatter(file.path, file.text);
  if ('problems' in split) return { problems: split.problems };
  const parsed = ACPAgentSchema.safeParse(split.data);
  if (!parsed.success) return { problems: problemsFromZod(file.path, parsed.error, ACPAgentSchema, split.data) };
  const data = parsed.data;
  const composed = flowOf(file.path, data);
  if ('problems' in composed) return { problems: composed.problems };
  return {
    problems: [],
    definition: {
      kind: 'acp',
      name: data.name ?? file.stem,
      description: data.description,
      enabled: data.enabled ?? true,
      file: file.path,
      primary: data.primary,
      flow: composed.flow,
      ...definedOnly({ coagent: data.coagent, handoff: composed.handoff }),
    },
  };
}

function unknownTools(file: string, tools: readonly string[], knownTools: readonly string[]): DefinitionError[] {
  return tools.flatMap((tool, i) => {
    if (knownTools.includes(tool)) return [];
    const guess = didYouMean(tool, knownTools);
    const message = `unknown tool "${tool}"${guess ? ` (did you mean "${guess}"?)` : ''}. Known tools: ${knownTools.join(', ')}.`;
    return [{ file, field: `tools[${i}]`, message }];
  });
}
