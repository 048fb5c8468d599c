/**
 * Where hooks come from: `[[hooks]]` tables of the user's and the project's
 * config.toml, and the Claude Code settings.json files `claude_hooks`
 * lists. What comes from inside the workspace (the project's own entries,
 * any settings.json in the folder, whoever lists it) runs only once the
 * folder is trusted.
 */
import { isAbsolute, join, resolve } from 'node:path';
import { namesWithin } from '../vocabulary/path-semantics';
import { realPathOf } from '../vocabulary/real-paths';
import * as z from 'zod';
import { onFirstUse } from '../vocabulary/first-use';
import { claudeEventName, claudeToolCrowName, readClaudeHooks } from './claude-hooks';
import { DEFAULT_HOOK_TIMEOUT_SEC, HOOK_EVENTS, type HookSettings, isHookEvent, TOOL_EVENTS } from './hook-settings';

const EventSchema = onFirstUse(() =>
  z.string().transform((value, ctx) => {
    if (isHookEvent(value)) return value;
    const crow = claudeEventName(value);
    ctx.addIssue({
      code: 'custom',
      message: crow
        ? `"${value}" is Claude Code's name for this event: write event = "${crow}" (or list the settings.json that has it in claude_hooks).`
        : `unknown hook event "${value}": use one of ${HOOK_EVENTS.join(', ')}.`,
    });
    return z.NEVER;
  })
    // What the JSON Schema of config.toml offers a TOML editor: the events, as the check above takes them.
    .meta({ enum: [...HOOK_EVENTS] }),
);

/** One `[[hooks]]` table of config.toml. */
export const HookEntrySchema = onFirstUse(() =>
  z
    .object({
      /** When it runs: pre_tool_use, post_tool_use, user_prompt_submit or stop. */
      event: EventSchema(),
      /** Run by /bin/sh -c in the workspace root. */
      command: z.string().trim().min(1, 'the command to run (by /bin/sh -c) must not be empty'),
      /** A regular expression the whole tool name must match; tool events only. */
      matcher: z.string().optional(),
      /** Seconds before the hook is stopped; default 60. */
      timeout_sec: z.number().positive().max(3_600, 'at most 3600 seconds').optional(),
    })
    .strict()
    .superRefine((entry, ctx) => {
      if (entry.matcher === undefined) return;
      if (!TOOL_EVENTS.has(entry.event)) {
        ctx.addIssue({ code: 'custom', path: ['matcher'], message: `a ${entry.event} hook has no tool to match: remove matcher (it applies to pre_tool_use and post_tool_use only).` });
        return;
      }
      const problem = matcherProblem(entry.matcher);
      if (problem) ctx.addIssue({ code: 'custom', path: ['matcher'], message: problem });
    }),
);

export type HookEntry = z.output<ReturnType<typeof HookEntrySchema>>;

/** What is wrong with a matcher written for Crow's tool names, or undefined. */
function matcherProblem(matcher: string): string | undefined {
  try {
    new RegExp(matcher);
  } catch (err) {
    return `not a valid regular expression (${(err as Error).message}): write a tool name such as "bash", or several joined by "|".`;
  }
  for (const word of matcher.split('|').map((part) => part.trim())) {
    const crow = claudeToolCrowName(word);
    if (crow !== undefined) return `"${word}" is Claude Code's name for a tool; Crow's is "${crow}" (a matcher is case-sensitive and matches the whole tool name).`;
  }
  return undefined;
}

/** What one config.toml says about hooks. */
export interface HookDocument {
  hooks?: HookEntry[];
  claude_hooks?: string[];
}

/** The config.toml layers hooks are read from, with where each lives. */
export interface HookLayers {
  user: HookDocument;
  userFile: string;
  project: HookDocument;
  projectFile: string;
}

/** Every hook in force, and what the user should be told about Claude Code files (hooks skipped, files unreadable). */
export interface ConfiguredHooks {
  hooks: HookSettings[];
  notices: string[];
}

/**
 * The hooks of a folder, in the order they run: the user's `[[hooks]]`,
 * the project's, then those of each Claude Code settings.json the user
 * lists in `claude_hooks`, then those the project lists. Until the folder
 * is trusted nothing from inside it runs: neither the project's own
 * entries nor any settings.json inside the workspace, whoever lists it.
 */
export function configuredHooks(layers: HookLayers, root: string, env: NodeJS.ProcessEnv, trusted: boolean): ConfiguredHooks {
  const hooks: HookSettings[] = [...entriesOf(layers.user, layers.userFile), ...(trusted ? entriesOf(layers.project, layers.projectFile) : [])];
  const notices: string[] = [];
  for (const file of claudeFiles(layers, root, env, trusted)) {
    const read = readClaudeHooks(file);
    hooks.push(...read.hooks);
    notices.push(...read.notices);
  }
  return { hooks: withoutRepeats(hooks), notices };
}

/** The Claude Code settings files to read, each once: the user's list, then the project's (trusted only); inside the workspace only when trusted. */
export function claudeFiles(layers: HookLayers, root: string, env: NodeJS.ProcessEnv, trusted: boolean): string[] {
  const listed = [...(layers.user.claude_hooks ?? []), ...(trusted ? (layers.project.claude_hooks ?? []) : [])];
  const files = [...new Set(listed.map((path) => claudeFilePath(path, root, env)))];
  return trusted ? files : files.filter((file) => !isInside(root, file));
}

/** A listed settings.json as a path: `~/` is the home folder, a relative path is the workspace's. */
export function claudeFilePath(path: string, root: string, env: NodeJS.ProcessEnv): string {
  if (path === '~' || path.startsWith('~/')) return join(env.HOME ?? '', path.slice(1));
  return isAbsolute(path) ? resolve(path) : resolve(root, path);
}

/** Whether `file` lies inside the folder `root`, both resolved through links (a settings file reached through a link into the workspace is in it). */
export function isInside(root: string, file: string): boolean {
  return (namesWithin(realPathOf(root), realPathOf(file))?.length ?? 0) > 0;
}

function entriesOf(document: HookDocument, source: string): HookSettings[] {
  return (document.hooks ?? []).map((entry) => ({
    event: entry.event,
    command: entry.command,
    ...(entry.matcher !== undefined ? { matcher: entry.matcher } : {}),
    timeoutSec: entry.timeout_sec ?? DEFAULT_HOOK_TIMEOUT_SEC,
    source,
  }));
}

/** The same command on the same event and matcher runs once, as in Claude Code. */
function withoutRepeats(hooks: HookSettings[]): HookSettings[] {
  const seen = new Set<string>();
  return hooks.filter((hook) => {
    const key = `${hook.event}\u0000${hook.matcher ?? ''}\u0000${hook.command}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
