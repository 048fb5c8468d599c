/**
 * Hooks: commands the user has run at four points of a run (before and
 * after a tool call, when a prompt is sent, when a run is about to end),
 * given the event as JSON on stdin and answering by exit code and JSON on
 * stdout. This is their vocabulary; hook-config.ts reads them from
 * config.toml, claude-hooks.ts from Claude Code's settings.json.
 */

export const HOOK_EVENTS = ['pre_tool_use', 'post_tool_use', 'user_prompt_submit', 'stop'] as const;
export type HookEvent = (typeof HOOK_EVENTS)[number];

/** The events about one tool call: the only ones a matcher applies to. */
export const TOOL_EVENTS: ReadonlySet<HookEvent> = new Set(['pre_tool_use', 'post_tool_use']);

/** Seconds a hook may run when its entry does not say. */
export const DEFAULT_HOOK_TIMEOUT_SEC = 60;

/** A hook as Crow runs it, wherever it was configured. */
export interface HookSettings {
  event: HookEvent;
  /** Run by `/bin/sh -c` in the workspace root. */
  command: string;
  /** A regular expression the whole tool name must match (`bash`, `edit_file|write_file`, `mcp__github__.*`); absent: every tool. Tool events only. */
  matcher?: string;
  timeoutSec: number;
  /** The file it is configured in (a config.toml or a Claude Code settings.json), named in messages and the trace. */
  source: string;
  /** Brought from Claude Code's settings.json: its input names events and tools as Claude Code does (PreToolUse, Bash). */
  claude?: boolean;
}

export function isHookEvent(value: string): value is HookEvent {
  return (HOOK_EVENTS as readonly string[]).includes(value);
}

/** Whether a hook applies to a call of `tool`: it has no matcher (or "" or "*"), or its matcher matches the whole name. */
export function matcherTest(matcher: string | undefined): (tool: string) => boolean {
  if (matcher === undefined || matcher === '' || matcher === '*') return () => true;
  const pattern = new RegExp(`^(?:${matcher})$`);
  return (tool) => pattern.test(tool);
}

/** What a hook does, as a person deciding whether to trust it reads it: all of it, never cut. */
export function hookText(hook: { event: string; command: string; matcher?: string | undefined }): string {
  const which = hook.matcher !== undefined && hook.matcher !== '' && hook.matcher !== '*' ? ` for tools matching ${JSON.stringify(hook.matcher)}` : '';
  return `runs ${JSON.stringify(hook.command)} on ${hook.event}${which}`;
}
