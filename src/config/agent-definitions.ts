/**
 * Agent definitions: markdown files with YAML frontmatter. A base agent's
 * body is its system prompt (a handlebars template); an ACP agent composes
 * base agents under a control flow and its body is free notes for people.
 * Parsing is per file and collects every problem, so one bad file never
 * hides the others.
 */
import * as z from 'zod';
import { onFirstUse } from '../vocabulary/first-use';
import type { ControlFlow, HandoffPrompt } from './control-flow';
import { isMcpEntry } from './mcp-entries';
import type { PermissionCategory } from '../vocabulary/permission-types';
import { type DefinitionError, problemsFromZod } from './config-problems';
import { didYouMean } from '../vocabulary/did-you-mean';
import { ACPAgentSchema, flowOf } from './flow-definition';
import { splitFrontmatter, type MarkdownFile } from './markdown-files';
import { definedOnly, permissionSettings } from './provider-config';
import type { PermissionSettings } from './settings';
import { ApiKeyEnv, NameSchema, PermissionCategorySchema, PermissionsSchema } from './settings-file';
import { templateSyntaxError } from './template-text';
import { type DefinitionHint, translateAgentForms } from './agent-frontmatter-forms';
import { seedTomlFields } from './seed-toml-agents';

/** primary: driven by a person; subagent: run by another agent's task tool; reviewer: a coagent that judges work. */
export const AGENT_ROLES = ['primary', 'subagent', 'reviewer'] as const;
export type AgentRole = (typeof AGENT_ROLES)[number];

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

export const BaseAgentSchema = onFirstUse(() =>
  z
    .object({
      name: NameSchema().optional(),
      description: z.string().optional(),
      /** A provider name from the settings; default: the default provider. */
      provider: z.string().min(1).optional(),
      /** Default: the provider's default model (the settings' model for the default provider). */
      model: z.string().min(1).optional(),
      role: z.enum(AGENT_ROLES).optional(),
      temperature: z.number().min(0).max(2).optional(),
      max_tokens: z.number().int().positive().optional(),
      /** Built-in tool names, and mcp:SERVER or mcp:SERVER:TOOL for MCP tools; default: all of them. */
      tools: z.array(z.string().min(1)).optional(),
      permissions: PermissionsSchema().optional(),
      /** Categories that always ask first, whatever the permissions say (deny still denies). */
      requires_approval: z.array(PermissionCategorySchema()).optional(),
      max_iterations: z.number().int().positive().optional(),
      doom_loop_threshold: z.number().int().min(2).optional(),
      /** Subagents: seconds to wait for the approval requires_approval asks for; no answer denies. */
      approval_timeout: z.number().int().positive().optional(),
      /** Subagents: evaluate each attempt against reflection_criteria and retry with the critique. */
      enable_reflection: z.boolean().optional(),
      max_retries: z.number().int().min(0).max(5).optional(),
      reflection_criteria: z.string().min(1).optional(),
      /**
       * Subagents run by another ACP agent over stdio: its command line
       * ("crow acp", "node /opt/agent.js --acp"), split like a shell splits
       * simple quoting, run without a shell. The agent's own settings (model,
       * tools, body) are then its business, not ours.
       */
      acp_command: z.string().min(1).optional(),
      /** More arguments after acp_command, for ones awkward to quote in one line. */
      acp_args: z.array(z.string()).optional(),
      /**
       * Names of our environment variables the command also gets (e.g. its API
       * key); values are copied from the environment, never written here.
       */
      acp_env: z.array(z.string().regex(ENV_NAME, 'a variable name: the value is copied from the environment, never written here')).optional(),
      /** Subagents run by an ACP agent on a WebSocket (e.g. one crow acp-bridge serves). */
      acp_url: z.url({ protocol: /^wss?$/, error: 'a ws:// or wss:// URL' }).optional(),
      /**
       * With acp_url: the name of our environment variable holding the token
       * the server asks for (crow acp-bridge prints one at start, or reads it
       * from --token-file); sent as an Authorization: Bearer header.
       */
      acp_token_env: ApiKeyEnv().optional(),
      enabled: z.boolean().optional(),
    })
    .strict(),
);

type BaseAgentFields = z.infer<ReturnType<typeof BaseAgentSchema>>;

/** How to reach a subagent that is another ACP agent: its command over stdio, or a WebSocket URL. */
export type ExternalAgent = { command: string[]; env: string[] } | { url: string; tokenEnv?: string };

/** Which layer a definition came from: the package, the user's config folder, or the project's `.crow/`. */
export type DefinitionOrigin = 'builtin' | 'user' | 'project';

interface DefinitionCommon {
  name: string;
  description: string;
  enabled: boolean;
  /** Set by the registry; a project's definitions may only narrow permissions until the folder is trusted. */
  origin?: DefinitionOrigin;
  /** The file it came from, named in every error about it. */
  file: string;
  /** What seed-style fields were read as (see agent-frontmatter-forms.ts); shown by crow agents validate and show. */
  hints?: DefinitionHint[];
}

export interface BaseAgentDefinition extends DefinitionCommon {
  kind: 'base';
  role: AgentRole;
  /**
   * Set when the file names no role (a seed 002 or Claude Code agent, written
   * before roles): it is a primary, and `task` may hand it jobs as well.
   */
  roleUnset?: true;
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
  /** Set when another ACP agent does the work (role subagent only). */
  external?: ExternalAgent;
  /**
   * What an untrusted project's definition names but does not get: another
   * provider than the default (and its model). Set by the registry; the
   * agent runs on the default provider until the folder is trusted.
   */
  untrusted?: { provider: string; model?: string };
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
  /** Offered in no picker: run only by name (see ACPAgentSchema's pickable). */
  unpickable?: true;
}

export type AgentDefinition = BaseAgentDefinition | ACPAgentDefinition;

/** The prompts/ template a base agent with an empty body gets. */
/** Whether `task` may hand `agent` a job: a subagent, or an agent whose file names no role. */
export function takesTasks(agent: Pick<BaseAgentDefinition, 'role' | 'roleUnset'>): boolean {
  return agent.role === 'subagent' || agent.roleUnset === true;
}

export function builtinSystemTemplate(role: AgentRole): 'system' | 'reviewer' {
  return role === 'reviewer' ? 'reviewer' : 'system';
}

export type Parsed<T> = { definition: T; problems: [] } | { definition?: undefined; problems: DefinitionError[] };

/** Parses a base agent file; `knownTools` undefined skips checking tool names (reading a file only for what it asks). */
export function parseBaseAgent(file: MarkdownFile, knownTools: readonly string[] | undefined): Parsed<BaseAgentDefinition> {
  const split = fieldsOf(file, 'base');
  if ('problems' in split) return { problems: split.problems };
  const forms = translateAgentForms(file.path, split.data);
  forms.hints.unshift(...split.hints);
  const parsed = BaseAgentSchema().safeParse(forms.data);
  if (!parsed.success) return { problems: [...forms.problems, ...problemsFromZod(file.path, parsed.error, BaseAgentSchema(), forms.data)] };
  const data = parsed.data;
  const reach = externalAgent(file.path, data);
  const problems = [...forms.problems, ...(knownTools ? unknownTools(file.path, data.tools ?? [], knownTools) : []), ...reach.problems];
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
      ...(data.role === undefined ? { roleUnset: true as const } : {}),
      enabled: data.enabled ?? true,
      file: file.path,
      systemPrompt: split.body,
      ...definedOnly({
        hints: forms.hints.length > 0 ? forms.hints : undefined,
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
        external: reach.external,
      }),
    },
  };
}

/** The acp_* fields as an ExternalAgent; they only make sense together in the ways checked here. */
function externalAgent(file: string, data: BaseAgentFields): { external?: ExternalAgent; problems: DefinitionError[] } {
  const fail = (field: string, message: string) => ({ problems: [{ file, field, message }] });
  const { acp_command: command, acp_url: url } = data;
  if (command === undefined) {
    const stray = (['acp_args', 'acp_env'] as const).find((field) => data[field] !== undefined);
    if (stray !== undefined) return fail(stray, `${stray} only goes with acp_command.`);
    if (url === undefined && data.acp_token_env !== undefined) return fail('acp_token_env', 'acp_token_env only goes with acp_url.');
    if (url === undefined) return { problems: [] };
  }
  const field = command !== undefined ? 'acp_command' : 'acp_url';
  const role = data.role ?? 'primary';
  if (role !== 'subagent') return fail(field, `an external ACP agent can only be a subagent: set "role: subagent" (the role here is ${role}).`);
  if (command !== undefined && url !== undefined) return fail('acp_url', 'acp_command and acp_url exclude each other: reach the agent by its command or by its URL.');
  if (url !== undefined) return { external: { url, ...definedOnly({ tokenEnv: data.acp_token_env }) }, problems: [] };
  if (data.acp_token_env !== undefined) return fail('acp_token_env', 'acp_token_env only goes with acp_url: a command gets its variables through acp_env.');
  const words = splitCommandLine(command!);
  if (typeof words === 'string') return fail('acp_command', words);
  return { external: { command: [...words, ...(data.acp_args ?? [])], env: data.acp_env ?? [] }, problems: [] };
}

/** Characters a shell would give a meaning; the command runs without one, so they are refused unquoted. */
const SHELL_SYNTAX = /[|&;<>()$`]/;

/**
 * The words of a simple command line, split as a POSIX shell would: blanks
 * separate words, '...' is literal, "..." keeps blanks (a backslash escapes
 * " \ $ and ` in it), a backslash outside quotes escapes any character.
 * Nothing is expanded. Returns what is wrong instead when it cannot split.
 */
function splitCommandLine(line: string): string[] | string {
  const words: string[] = [];
  let word: string | undefined;
  let quote: '"' | "'" | undefined;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (quote === "'") {
      if (c === "'") quote = undefined;
      else word += c;
    } else if (quote === '"') {
      if (c === '"') quote = undefined;
      else if (c === '\\' && '"\\$`'.includes(line[i + 1] ?? '')) word += line[++i];
      else word += c;
    } else if (c === "'" || c === '"') {
      quote = c;
      word ??= '';
    } else if (c === '\\' && i + 1 < line.length) {
      word = (word ?? '') + line[++i];
    } else if (/\s/.test(c)) {
      if (word !== undefined) words.push(word);
      word = undefined;
    } else if (SHELL_SYNTAX.test(c)) {
      return `"${c}" would need a shell, and the command runs without one: quote it, or run the shell yourself (acp_command: sh, acp_args: ["-c", "..."]).`;
    } else {
      word = (word ?? '') + c;
    }
  }
  if (quote !== undefined) return `the ${quote} quote opened in the command line is never closed.`;
  if (word !== undefined) words.push(word);
  return words.length > 0 ? words : 'the command line is empty.';
}

export function parseACPAgent(file: MarkdownFile): Parsed<ACPAgentDefinition> {
  const split = fieldsOf(file, 'acp');
  if ('problems' in split) return { problems: split.problems };
  const parsed = ACPAgentSchema().safeParse(split.data);
  if (!parsed.success) return { problems: problemsFromZod(file.path, parsed.error, ACPAgentSchema(), split.data) };
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
      ...definedOnly({ coagent: data.coagent, handoff: composed.handoff, hints: split.hints.length > 0 ? split.hints : undefined }),
      ...(data.pickable === false ? { unpickable: true as const } : {}),
    },
  };
}

/** A definition's fields and body: a markdown file's frontmatter, or a seed 000 TOML file's tables read as those fields. */
function fieldsOf(file: MarkdownFile, kind: 'base' | 'acp'): { data: Record<string, unknown>; body: string; hints: DefinitionHint[] } | { problems: DefinitionError[] } {
  if (file.toml) return seedTomlFields(file, kind);
  const split = splitFrontmatter(file.path, file.text);
  return 'problems' in split ? split : { ...split, hints: [] };
}

function unknownTools(file: string, tools: readonly string[], knownTools: readonly string[]): DefinitionError[] {
  return tools.flatMap((tool, i) => {
    if (knownTools.includes(tool) || isMcpEntry(tool)) return [];
    const guess = didYouMean(tool, knownTools);
    const message = `unknown tool "${tool}"${guess ? ` (did you mean "${guess}"?)` : ''}. Known tools: ${knownTools.join(', ')}; MCP tools: mcp:SERVER or mcp:SERVER:TOOL.`;
    return [{ file, field: `tools[${i}]`, message }];
  });
}
