/**
 * The user's hooks for one prompt (see config/hook-settings.ts): each event
 * runs the hooks that listen to it, one after another in the order they are
 * configured, each as a child process (tools/hook-process.ts) given the
 * event as JSON on stdin, each a span of the trace. What a hook decides
 * comes back to the engine (tools/hooks.ts); what the person should know
 * (a rewrite, a block, a failure, a timeout) is told as a notice.
 */
import { resolve } from 'node:path';
import { claudeEventOf, claudeToolName } from '../config/claude-hooks';
import { type HookEvent, type HookSettings, matcherTest } from '../config/hook-settings';
import { secretVariableNames, withoutSecrets } from '../config/secret-variables';
import type { Settings } from '../config/settings';
import type { NoticeLevel } from '../engine/events';
import type { Span } from '../telemetry/span';
import { runHookProcess } from '../tools/hook-process';
import type { CallAfterword, CallVerdict, HookedCall, HookedResult, Hooks, PromptVerdict, RunEnding } from '../tools/hooks';
import type { UndoRecorder } from '../tools/undo-recorder';
import { clip } from '../vocabulary/text';
import { type HookOutcome, readHookOutcome } from './hook-output';

/** Tools whose `path` names one file: their hooks also get `file_path`, absolute, as Claude Code's file tools have it. */
const FILE_TOOLS: ReadonlySet<string> = new Set(['read_file', 'write_file', 'edit_file']);

export interface HookRunnerOptions {
  hooks: readonly HookSettings[];
  /** The workspace root: every hook's working folder. */
  root: string;
  /** The session the person drives. */
  sessionId: string;
  /** The environment hooks start from; secrets are taken out. */
  env: NodeJS.ProcessEnv;
  /** Variables hooks never see besides those isSecretVariable knows (see secretVariableNames). */
  hidden: readonly string[];
  /** Tells the person something about a hook. */
  notify(level: NoticeLevel, message: string): void;
  /** Takes known secrets out of what a hook is given. */
  redact<T>(value: T): T;
  /** Time between SIGTERM and SIGKILL for a hook that has to be stopped. */
  killGraceMs?: number;
  /**
   * The prompt's undo recording: what a hook changes while the agents work
   * (a formatter after an edit, say) is recorded as a command's changes, so
   * undo puts it back too. A user_prompt_submit hook runs before the
   * prompt's record begins: what it does is part of the state before.
   */
  undo?: UndoRecorder;
}

/** The hooks of `settings` for one prompt, the variables the settings name as secret kept from them; none when no hook is configured. */
export function promptHooks(settings: Settings | undefined, options: Omit<HookRunnerOptions, 'hooks' | 'hidden'>): HookRunner | undefined {
  if (!settings?.hooks?.length) return undefined;
  return new HookRunner({ ...options, hooks: settings.hooks, hidden: secretVariableNames(settings) });
}

interface Ran {
  hook: HookSettings;
  outcome: HookOutcome;
}

export class HookRunner implements Hooks {
  private readonly matchers = new Map<HookSettings, (tool: string) => boolean>();

  constructor(private readonly options: HookRunnerOptions) {
    for (const hook of options.hooks) this.matchers.set(hook, matcherTest(hook.matcher));
  }

  has(event: HookEvent): boolean {
    return this.options.hooks.some((hook) => hook.event === event);
  }

  async beforeCall(call: HookedCall, signal: AbortSignal, span: Span | undefined): Promise<CallVerdict> {
    let args = call.arguments;
    let rewrittenBy: string | undefined;
    let rule: 'allow' | 'ask' | undefined;
    const notes: string[] = [];
    for (const hook of this.listening('pre_tool_use', call.tool)) {
      const { outcome } = await this.run(hook, this.callInput(hook, { ...call, arguments: args }), signal, span, call.tool);
      if (outcome.decision === 'cancelled') return { run: false, reason: 'Cancelled while a pre_tool_use hook ran.', cancelled: true };
      if (outcome.stop !== undefined) return { run: false, reason: `Not run: ${name(hook)} stopped the run: ${outcome.stop}`, stop: outcome.stop };
      if (outcome.blocked !== undefined) return { run: false, reason: `Not run: ${name(hook)} denied it: ${outcome.blocked}` };
      if (outcome.updatedInput !== undefined) {
        const before = args;
        args = fromHookInput(call.tool, outcome.updatedInput, this.options.root);
        rewrittenBy = name(hook);
        this.options.notify('warning', `${capital(name(hook))} changed the arguments of ${who(call)}${call.tool} call: ${json(before)} → ${json(args)}`);
      }
      if (outcome.rule === 'ask' || (outcome.rule === 'allow' && rule === undefined)) rule = outcome.rule;
      if (outcome.context !== undefined) notes.push(`[${capital(name(hook))} adds: ${outcome.context}]`);
    }
    return {
      run: true,
      ...(rewrittenBy !== undefined ? { arguments: JSON.stringify(args), rewrittenBy } : {}),
      ...(rule !== undefined ? { rule } : {}),
      notes: rewrittenBy !== undefined ? [`[${capital(rewrittenBy)} changed this call's arguments to ${json(args)}.]`, ...notes] : notes,
    };
  }

  async afterCall(call: HookedCall, result: HookedResult, signal: AbortSignal, span: Span | undefined): Promise<CallAfterword> {
    const notes: string[] = [];
    const response = { success: true, output: result.output, files_modified: result.filesModified };
    for (const hook of this.listening('post_tool_use', call.tool)) {
      const { outcome } = await this.run(hook, { ...this.callInput(hook, call), tool_response: response }, signal, span, call.tool);
      if (outcome.decision === 'cancelled') break;
      if (outcome.blocked !== undefined) notes.push(`[${capital(name(hook))} says: ${outcome.blocked}]`);
      if (outcome.context !== undefined) notes.push(`[${capital(name(hook))} adds: ${outcome.context}]`);
      if (outcome.stop !== undefined) return { notes, stop: `${capital(name(hook))} stopped the run: ${outcome.stop}` };
    }
    return { notes };
  }

  async promptSubmitted(prompt: { agent: string; text: string }, signal: AbortSignal, span: Span | undefined): Promise<PromptVerdict> {
    const context: string[] = [];
    for (const hook of this.listening('user_prompt_submit')) {
      const { outcome } = await this.run(hook, { ...this.common(hook, prompt.agent), prompt: prompt.text }, signal, span);
      if (outcome.decision === 'cancelled') break;
      const refusal = outcome.stop ?? outcome.blocked;
      if (refusal !== undefined) {
        const blocked = `${capital(name(hook))} blocked this prompt, so it was not sent to the model: ${refusal}`;
        this.options.notify('warning', blocked);
        return { blocked, context };
      }
      if (outcome.context !== undefined) context.push(outcome.context);
    }
    return { context };
  }

  async stopping(ending: RunEnding, signal: AbortSignal, span: Span | undefined): Promise<{ continueWith?: string }> {
    const input = { stop_hook_active: ending.active, last_assistant_message: ending.lastMessage, status: ending.status, message: ending.message };
    for (const hook of this.listening('stop')) {
      const { outcome } = await this.run(hook, { ...this.common(hook, ending.agent), ...input }, signal, span);
      if (outcome.decision === 'cancelled' || outcome.stop !== undefined) return {};
      if (outcome.blocked === undefined) continue;
      if (ending.active) {
        this.options.notify(
          'warning',
          `${capital(name(hook))} asked once more to go on (${outcome.blocked}), but a run goes on only once after a stop hook: it ends here. ` +
            'A hook can read "stop_hook_active" to tell the second time apart.',
        );
        return {};
      }
      this.options.notify('warning', `${capital(name(hook))} sent the agents back to work: ${outcome.blocked}`);
      return { continueWith: outcome.blocked };
    }
    return {};
  }

  private listening(event: HookEvent, tool?: string): HookSettings[] {
    return this.options.hooks.filter((hook) => hook.event === event && (tool === undefined || this.matchers.get(hook)!(tool)));
  }

  /** Runs one hook; tells the person what went wrong with it; records its span. */
  private async run(hook: HookSettings, input: Record<string, unknown>, signal: AbortSignal, parent: Span | undefined, tool?: string): Promise<Ran> {
    const span = parent?.child('hook', `hook ${hook.event} ${clip(hook.command, 60)}`, {
      agent: typeof input.agent === 'string' ? input.agent : '',
      attributes: {
        'crow.hook.event': hook.event,
        'crow.hook.command': hook.command,
        'crow.hook.source': hook.source,
        'crow.hook.timeout_s': hook.timeoutSec,
        ...(hook.matcher !== undefined ? { 'crow.hook.matcher': hook.matcher } : {}),
        ...(tool !== undefined ? { 'crow.hook.tool': tool } : {}),
      },
    });
    const started = performance.now();
    const watch = hook.event === 'user_prompt_submit' ? undefined : await this.options.undo?.beforeCommand(signal).catch(() => undefined);
    const run = await runHookProcess(hook.command, {
      cwd: this.options.root,
      env: { ...withoutSecrets(this.options.env, this.options.hidden), CROW_PROJECT_DIR: this.options.root, CLAUDE_PROJECT_DIR: this.options.root },
      input: JSON.stringify(this.options.redact(input)),
      timeoutMs: hook.timeoutSec * 1000,
      signal,
      ...(this.options.killGraceMs !== undefined ? { killGraceMs: this.options.killGraceMs } : {}),
    });
    // Recorded whatever the hook's outcome: a hook that failed may have changed files too.
    await watch?.changedFiles(signal).catch(() => undefined);
    const outcome = readHookOutcome(hook.event, run, hook.timeoutSec);
    this.tell(hook, outcome, tool);
    span?.set({
      'crow.hook.decision': outcome.decision,
      'crow.hook.duration_ms': Math.round(performance.now() - started),
      ...(outcome.exitCode !== undefined ? { 'crow.hook.exit_code': outcome.exitCode } : {}),
      ...(outcome.blocked !== undefined ? { 'crow.hook.reason': clip(outcome.blocked, 2_000) } : {}),
      ...(outcome.context !== undefined ? { 'crow.hook.context': clip(outcome.context, 2_000) } : {}),
    });
    span?.end(outcome.decision === 'cancelled' ? 'cancelled' : outcome.failure !== undefined ? 'error' : 'ok', outcome.failure);
    return { hook, outcome };
  }

  /** Failures, unusable output and a hook's own message, told to the person. */
  private tell(hook: HookSettings, outcome: HookOutcome, tool: string | undefined): void {
    const { notify } = this.options;
    if (outcome.failure !== undefined) {
      const fix = outcome.decision === 'timeout' ? ` Raise its timeout (timeout_sec; "timeout" in a Claude Code settings.json) in ${hook.source}, or make it faster.` : '';
      notify('warning', `${capital(name(hook))} (${hook.source}) ${outcome.failure}. ${GOES_ON[hook.event](tool)}${fix}`);
    }
    if (outcome.problems.length > 0) {
      notify('warning', `${capital(name(hook))} printed JSON Crow could not fully use: ${outcome.problems.join('; ')}. The rest of it counts; see "Hooks" in the README.`);
    }
    if (outcome.message !== undefined) notify('warning', `${capital(name(hook))}: ${outcome.message}`);
    if (outcome.stop !== undefined && (hook.event === 'pre_tool_use' || hook.event === 'post_tool_use')) notify('warning', `${capital(name(hook))} stopped the run: ${outcome.stop}`);
  }

  /** What every hook reads: Claude Code's fields where they exist, and Crow's agent. */
  private common(hook: HookSettings, agent: string): Record<string, unknown> {
    return { session_id: this.options.sessionId, cwd: this.options.root, hook_event_name: hook.claude ? claudeEventOf(hook.event) : hook.event, agent };
  }

  private callInput(hook: HookSettings, call: HookedCall): Record<string, unknown> {
    return {
      ...this.common(hook, call.agent),
      depth: call.depth,
      tool_name: hook.claude ? claudeToolName(call.tool) : call.tool,
      tool_input: toHookInput(call.tool, call.arguments, this.options.root),
      tool_use_id: call.callId,
    };
  }
}

/** What the run does when a hook of this event fails. */
const GOES_ON: Record<HookEvent, (tool: string | undefined) => string> = {
  pre_tool_use: (tool) => `The ${tool ?? 'tool'} call goes on as if the hook had not run.`,
  post_tool_use: () => 'The call\'s result stands without it.',
  user_prompt_submit: () => 'The prompt is sent without it.',
  stop: () => 'The run ends without it.',
};

/** A file tool's arguments with `file_path`, the absolute path, besides Crow's own `path`. */
export function toHookInput(tool: string, args: Record<string, unknown>, root: string): Record<string, unknown> {
  if (!FILE_TOOLS.has(tool) || typeof args.path !== 'string') return args;
  return { ...args, file_path: resolve(root, args.path) };
}

/** A hook's updatedInput as the tool's arguments: a `file_path` it changed becomes the `path` (absolute paths inside the workspace are fine). */
export function fromHookInput(tool: string, updated: Record<string, unknown>, root: string): Record<string, unknown> {
  if (!FILE_TOOLS.has(tool) || !('file_path' in updated)) return updated;
  const { file_path: filePath, ...rest } = updated;
  if (typeof filePath !== 'string') return rest;
  const same = typeof rest.path === 'string' && resolve(root, rest.path) === resolve(root, filePath);
  return same ? rest : { ...rest, path: filePath };
}

function name(hook: HookSettings): string {
  return `the ${hook.event} hook ${JSON.stringify(clip(hook.command, 80))}`;
}

/** Whose call it is, as a notice says it: a subagent's is named. */
function who(call: HookedCall): string {
  return call.depth > 0 ? `${call.agent}'s ` : 'the ';
}

function capital(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function json(value: unknown): string {
  return clip(JSON.stringify(value), 300);
}
