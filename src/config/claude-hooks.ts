/**
 * Claude Code's hooks, brought over: the `hooks` of a settings.json whose
 * meaning Crow shares (command hooks on PreToolUse, PostToolUse,
 * UserPromptSubmit and Stop), with its tool names in matchers turned into
 * Crow's. What has no Crow meaning (other events, prompt or agent hooks,
 * async hooks, tools Crow lacks) is skipped and said so, never guessed at.
 */
import { readFileSync } from 'node:fs';
import { DEFAULT_HOOK_TIMEOUT_SEC, type HookEvent, type HookSettings, TOOL_EVENTS } from './hook-settings';

/** Claude Code's event names and Crow's. */
const CLAUDE_EVENTS: Readonly<Record<string, HookEvent>> = {
  PreToolUse: 'pre_tool_use',
  PostToolUse: 'post_tool_use',
  UserPromptSubmit: 'user_prompt_submit',
  Stop: 'stop',
};

/** Claude Code's tool names and the Crow tool each stands for. */
const CLAUDE_TOOLS: Readonly<Record<string, string>> = {
  Bash: 'bash',
  Write: 'write_file',
  Edit: 'edit_file',
  MultiEdit: 'edit_file',
  Read: 'read_file',
  Glob: 'glob',
  Grep: 'grep',
  LS: 'list_directory',
  WebFetch: 'web_fetch',
  WebSearch: 'web_search',
  Task: 'task',
  Agent: 'task',
  TodoWrite: 'todo_write',
};

/** The name a Claude Code hook is given for a Crow tool (its input's tool_name): Claude Code's where it has one. */
const CLAUDE_NAME_OF: Readonly<Record<string, string>> = {
  bash: 'Bash',
  write_file: 'Write',
  edit_file: 'Edit',
  read_file: 'Read',
  glob: 'Glob',
  grep: 'Grep',
  list_directory: 'LS',
  web_fetch: 'WebFetch',
  web_search: 'WebSearch',
  task: 'Task',
  todo_write: 'TodoWrite',
};

/** Crow's event for a Claude Code event name, when Crow has it. */
export function claudeEventName(name: string): HookEvent | undefined {
  return CLAUDE_EVENTS[name];
}

/** Claude Code's name of a Crow event, as a Claude Code hook reads it in hook_event_name. */
export function claudeEventOf(event: HookEvent): string {
  return Object.keys(CLAUDE_EVENTS).find((name) => CLAUDE_EVENTS[name] === event)!;
}

/** The Crow tool a Claude Code tool name stands for, when it is one. */
export function claudeToolCrowName(name: string): string | undefined {
  return Object.hasOwn(CLAUDE_TOOLS, name) ? CLAUDE_TOOLS[name] : undefined;
}

/** A Crow tool's name as a Claude Code hook reads it: Claude Code's own where there is one (MCP tools are named alike). */
export function claudeToolName(tool: string): string {
  return CLAUDE_NAME_OF[tool] ?? tool;
}

/** The hooks Crow takes from one settings.json, and what it says about the rest. */
export interface ClaudeHooks {
  hooks: HookSettings[];
  notices: string[];
}

/** Reads the hooks of one Claude Code settings.json; a file that does not exist has none. */
export function readClaudeHooks(file: string): ClaudeHooks {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { hooks: [], notices: [] };
    return skippedFile(file, `cannot be read (${(err as Error).message})`);
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (err) {
    return skippedFile(file, `is not valid JSON (${(err as Error).message})`);
  }
  if (!isObject(data)) return skippedFile(file, 'does not hold a JSON object');
  if (data.disableAllHooks === true) return { hooks: [], notices: [`${file} sets "disableAllHooks": true, so none of its hooks run.`] };
  if (data.hooks === undefined) return { hooks: [], notices: [] };
  if (!isObject(data.hooks)) return skippedFile(file, 'has "hooks" that is not an object of events');
  const found = new Reading(file);
  for (const [name, groups] of Object.entries(data.hooks)) found.event(name, groups);
  return found.result();
}

function skippedFile(file: string, problem: string): ClaudeHooks {
  return { hooks: [], notices: [`Claude Code settings ${file} ${problem}: none of its hooks run. Fix it, or remove it from claude_hooks in config.toml.`] };
}

/** One file being read: the hooks taken and the reasons for what was skipped. */
class Reading {
  private readonly hooks: HookSettings[] = [];
  private readonly skipped: string[] = [];

  constructor(private readonly file: string) {}

  event(name: string, groups: unknown): void {
    const event = claudeEventName(name);
    if (!event) return void this.skipped.push(`${name} hooks (Crow has no such event; it has ${Object.keys(CLAUDE_EVENTS).join(', ')})`);
    if (!Array.isArray(groups)) return void this.skipped.push(`${name}: not a list of matcher groups`);
    for (const group of groups) this.group(name, event, group);
  }

  result(): ClaudeHooks {
    if (this.skipped.length === 0) return { hooks: this.hooks, notices: [] };
    const took = `${this.hooks.length} hook${this.hooks.length === 1 ? '' : 's'} taken`;
    return { hooks: this.hooks, notices: [`Claude Code hooks in ${this.file}: ${took}; skipped: ${this.skipped.join('; ')}.`] };
  }

  private group(name: string, event: HookEvent, group: unknown): void {
    if (!isObject(group) || !Array.isArray(group.hooks)) return void this.skipped.push(`a ${name} entry without a "hooks" list`);
    const matcher = TOOL_EVENTS.has(event) ? this.matcher(name, group.matcher) : undefined;
    if (matcher === null) return;
    for (const hook of group.hooks) this.hook(name, event, matcher, hook);
  }

  /** Crow's matcher for a Claude Code one (undefined: every tool), or null when none of the tools it names exists in Crow. */
  private matcher(name: string, matcher: unknown): string | undefined | null {
    if (matcher === undefined || matcher === '' || matcher === '*' || matcher === '.*') return undefined;
    if (typeof matcher !== 'string') return void this.skipped.push(`a ${name} entry whose matcher is not text`), null;
    const { crow, missing } = translateMatcher(matcher);
    if (missing.length > 0) this.skipped.push(`${missing.join(', ')} in the matcher ${JSON.stringify(matcher)} of ${name} (no such Crow tool)`);
    return crow.length > 0 ? crow.join('|') : null;
  }

  private hook(name: string, event: HookEvent, matcher: string | undefined, hook: unknown): void {
    if (!isObject(hook)) return void this.skipped.push(`a ${name} hook that is not an object`);
    if (hook.type !== 'command') return void this.skipped.push(`a ${JSON.stringify(hook.type)} hook on ${name} (Crow runs command hooks only)`);
    if (typeof hook.command !== 'string' || hook.command.trim() === '') return void this.skipped.push(`a ${name} hook without a command`);
    const command = JSON.stringify(hook.command);
    if (hook.async === true) return void this.skipped.push(`the async ${name} hook ${command} (Crow waits for every hook)`);
    if (hook.if !== undefined) return void this.skipped.push(`the ${name} hook ${command}, whose "if" condition Crow cannot check`);
    if (hook.once === true) return void this.skipped.push(`the ${name} hook ${command}, marked "once" (Crow runs a hook every time)`);
    if (hook.shell !== undefined && hook.shell !== 'bash' && hook.shell !== 'sh') return void this.skipped.push(`the ${name} hook ${command} for ${JSON.stringify(hook.shell)} (Crow runs hooks with /bin/sh)`);
    const timeout = typeof hook.timeout === 'number' && hook.timeout > 0 ? hook.timeout : DEFAULT_HOOK_TIMEOUT_SEC;
    this.hooks.push({ event, command: hook.command, ...(matcher !== undefined ? { matcher } : {}), timeoutSec: timeout, source: this.file, claude: true });
  }
}

/**
 * A Claude Code matcher (exact names or regular expressions, joined by
 * `|`) as Crow tool names: each name Claude Code has becomes Crow's, an
 * MCP tool (`mcp__server__tool`, also as a pattern) stays as it is, and a
 * pattern takes every Claude Code tool it matches whole. What stands for no
 * Crow tool is `missing`.
 */
export function translateMatcher(matcher: string): { crow: string[]; missing: string[] } {
  const crow = new Set<string>();
  const missing: string[] = [];
  for (const part of matcher.split('|').map((alternative) => alternative.trim())) {
    const named = claudeToolCrowName(part);
    if (named !== undefined) crow.add(named);
    else if (part.startsWith('mcp__')) crow.add(part);
    else {
      const matched = matchingTools(part);
      if (matched.length > 0) matched.forEach((tool) => crow.add(tool));
      else missing.push(part);
    }
  }
  return { crow: [...crow], missing };
}

/** The Crow tools whose Claude Code names a pattern matches whole; none when it is not a valid pattern. */
function matchingTools(pattern: string): string[] {
  let test: RegExp;
  try {
    test = new RegExp(`^(?:${pattern})$`);
  } catch {
    return [];
  }
  return Object.keys(CLAUDE_TOOLS).filter((name) => test.test(name)).map((name) => CLAUDE_TOOLS[name]!);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
