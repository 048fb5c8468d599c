/**
 * What the chat view shows of a run: AgentEvents become TranscriptEvents
 * (the view's own, JSON-only vocabulary in webview/chat/protocol.ts), with a
 * badge for who acts, capped texts and a meter of tokens and cost. Plain
 * Node; the chat participant reuses it.
 */
import { type AgentEvent, endedShort, unreachable } from '../../../engine/events';
import { t } from '../l10n';
import { screenText } from '../../../engine/output-tail';
import { stepText } from '../../../engine/tool-progress';
import { oneLine } from '../../../vocabulary/text';
import { userText } from '../../../session/history';
import { INTERRUPTED } from '../../../host/stored-prompts';
import type { PermissionPolicy } from '../../../vocabulary/permission-types';
import type { TodoItem } from '../../../tools/todos';
import type { ToolResult } from '../../../tools/tool';
import { appliedPath } from '../../../host/apply-code';
import type { Actor, ErrorHint, PlanEntry, PromptStatus, TranscriptEvent } from '../../../../webview/chat/protocol';
import { callOutcome, callWords, deniedBy } from '../../../vocabulary/tool-story';

/** Arguments and outputs beyond this are cut: the trace keeps the rest. */
export const MAX_CARD_CHARS = 8_000;

export interface TranscriptOptions {
  /**
   * Showing a stored prompt again: its prompt_start shows the person's
   * message, which live the view showed when it was sent.
   */
  replaying?: boolean;
}

export function capText(text: string, max = MAX_CARD_CHARS): string {
  return text.length > max ? `${text.slice(0, max)}\n… (${text.length - max} more characters; the full text is in the trace)` : text;
}

/** Arguments as the card shows them: pretty JSON, or the raw text a model produced when it was not JSON. */
export function argumentsText(args: unknown): string {
  return capText(typeof args === 'string' ? args : JSON.stringify(args, null, 2));
}

/** What a card shows of a finished tool call: its error first, then its output as a terminal would show it. */
export function toolOutput(result: Pick<ToolResult, 'output' | 'error'>): string {
  const parts = [result.error !== undefined ? `Error: ${result.error}` : '', screenText(result.output)].filter((part) => part.trim() !== '');
  return capText(parts.join('\n\n'));
}

/** The first file a unified diff changes, workspace-relative. */
export function diffPath(unified: string): string | undefined {
  const header = /^\+\+\+ (?:b\/)?(.+)$/m.exec(unified)?.[1] ?? /^--- (?:a\/)?(.+)$/m.exec(unified)?.[1];
  return header === undefined || header === '/dev/null' ? undefined : header.trim();
}

export function planEntries(items: readonly TodoItem[]): PlanEntry[] {
  return items.map(({ content, status }) => ({ content, status }));
}

/**
 * Translates one prompt's events, live or stored (the same way both times).
 * `handle` returns the events to show (often none); text arrives as
 * deltas, a complete block only when its deltas never came. Who is the
 * primary and who reviews comes with prompt_start. Tokens and cost are the
 * session host's to count.
 */
export class TranscriptTranslator {
  private readonly streamed = new Set<string>();
  private primary: string | undefined;
  private coagent: string | undefined;
  /** The text since the prompt's last tool call: an ending that only repeats it (a built-in command's answer) says nothing more. */
  private answer = '';
  /** Calls shown as prose, not as cards (task_complete: its summary is the answer). */
  private readonly unshown = new Set<string>();
  /** A task_complete call's summary was shown: its task_complete event (in an unreviewed run) is not news. */
  private summaryShown = false;
  /** The answer or the reviewer's approval was shown: a completed ending ("builder completed the task.") adds nothing. */
  private concluded = false;
  /** What the reviewer said in its running review: a verdict whose summary only repeats it shows no second copy. */
  private reviewSaid = '';

  constructor(private readonly options: TranscriptOptions = {}) {}

  actor(agent: string): Actor {
    if (agent === this.primary) return { agent, role: 'primary' };
    if (agent === this.coagent) return { agent, role: 'reviewer' };
    return { agent, role: 'subagent' };
  }

  /**
   * The summary an agent ended its work with (task_complete), as prose: the
   * primary's is its answer; the reviewer's is its verdict's text, shown there.
   */
  private summary(agent: string, text: string): TranscriptEvent[] {
    if (agent === this.coagent || text.trim() === '') return [];
    this.concluded = true;
    this.summaryShown = true;
    const delta = `${this.answer.trim() === '' ? '' : '\n\n'}${capText(text.trim())}`;
    this.answer += delta;
    return [{ type: 'text_delta', actor: this.actor(agent), delta }];
  }

  /** Text an agent said: the prompt's answer so far, and the reviewer's words in its review. */
  private heard(agent: string, text: string): void {
    this.answer += text;
    if (agent === this.coagent) this.reviewSaid += text;
  }

  handle(event: AgentEvent): TranscriptEvent[] {
    switch (event.type) {
      case 'prompt_start':
        this.primary = event.primary;
        this.coagent = event.coagent;
        this.concluded = false;
        return this.options.replaying ? [promptMessage(userText(event.content))] : [];
      case 'context':
        return [{ type: 'context', agent: event.agent, used: event.used, window: event.window }];
      case 'checkpoint': {
        const { id, kind, callId } = event.checkpoint;
        if (callId !== undefined && this.unshown.has(callId)) return [];
        return [{ type: 'checkpoint', id, kind, ...(callId !== undefined ? { callId } : {}) }];
      }
      // Live too: the view showed it as queued, not in the transcript, until an agent took it.
      case 'steer':
        return [{ type: 'user_message', text: userText(event.content), steered: true }];
      case 'plan':
        return [{ type: 'plan', entries: planEntries(event.items) }];
      case 'text_delta':
      case 'thinking_delta': {
        const block = event.type === 'text_delta' ? 'text' : 'thinking';
        this.streamed.add(`${block}:${event.agent}`);
        if (block === 'text') this.heard(event.agent, event.delta);
        return [{ type: event.type, actor: this.actor(event.agent), delta: event.delta }];
      }
      case 'text_complete':
      case 'thinking_complete': {
        const block = event.type === 'text_complete' ? 'text' : 'thinking';
        if (this.streamed.delete(`${block}:${event.agent}`) || event.text === '') return [];
        if (block === 'text') this.heard(event.agent, event.text);
        return [{ type: block === 'text' ? 'text_delta' : 'thinking_delta', actor: this.actor(event.agent), delta: event.text }];
      }
      case 'tool_call_start':
        if (event.tool === 'task_complete') {
          this.unshown.add(event.callId);
          return [];
        }
        this.answer = '';
        return [
          {
            type: 'tool_start',
            actor: this.actor(event.agent),
            callId: event.callId,
            tool: event.tool,
            kind: event.kind,
            title: event.summary.trim(),
            argumentsText: argumentsText(event.arguments),
            words: callWords(event.tool, event.arguments, event.summary.trim(), t),
          },
        ];
      case 'tool_progress':
        return this.unshown.has(event.callId) ? [] : [toolProgress(event)];
      case 'tool_call_end':
        if (this.unshown.delete(event.callId)) return event.result.status === 'success' ? this.summary(event.agent, event.result.output) : [];
        return [toolEnd(event.callId, event.result, event.durationMs, event.tool)];
      case 'usage':
      case 'subagent_usage':
        return [];
      case 'notice':
        return [event.action ? { type: 'notice', level: event.level, text: event.message, action: event.action } : notice(event.level, event.message)];
      case 'retry':
        // Retries of one request are one line, updated in place.
        // The reason last, after a colon: it has brackets of its own, and brackets around it read as a puzzle.
        return [{ type: 'notice', level: 'info', text: t`The provider failed; retry ${event.attempt} in ${seconds(event.delayMs)}: ${oneLine(event.reason, 120)}`, replaces: 'retry' }];
      case 'doom_loop':
        return [notice('warning', t`${event.agent} called ${event.tool} the same way ${event.repeats} times in a row and was stopped.`)];
      case 'compaction':
        return [notice('info', t`${event.agent}'s history was compacted to fit its context window (${event.tokensBefore} \u2192 ${event.tokensAfter} tokens, ${event.how}).`)];
      case 'coagent_start':
        this.reviewSaid = '';
        return [{ type: 'review_start', reviewer: this.actor(event.agent), primary: this.actor(event.primary), round: event.round }];
      case 'coagent_end':
        if (event.verdict === 'approved') this.concluded = true;
        const summary = event.summary.trim() === this.reviewSaid.trim() ? '' : capText(event.summary);
        return [{ type: 'verdict', reviewer: this.actor(event.agent), round: event.round, verdict: event.verdict, summary }];
      case 'handoff':
        return [{ type: 'handoff', from: this.actor(event.agent), to: this.actor(event.to), purpose: event.purpose, text: capText(event.text) }];
      case 'subagent_start':
        return [{ type: 'subagent', callId: event.callId, subagent: event.subagent, state: 'started', text: capText(event.task) }];
      case 'subagent_progress':
        return [{ type: 'subagent', callId: event.callId, subagent: event.subagent, state: 'progress', text: event.text }];
      case 'subagent_end':
        return [{ type: 'subagent', callId: event.callId, subagent: event.subagent, state: 'ended', text: `${event.status}: ${capText(event.summary)}` }];
      case 'task_complete': {
        // Shown already from its call, as a rule; a run that reports it without one shows it here.
        const shown = this.summaryShown;
        this.summaryShown = false;
        return shown ? [] : this.summary(event.agent, event.summary);
      }
      case 'run_complete': {
        const hint =
          event.status === 'error' ? errorHint(event.message)
          : event.status === 'budget' ? budgetHint(event.message)
          : event.message === INTERRUPTED ? { text: t('Crow stopped (or the window was reloaded) while this ran. Resume sends the agents back to it, with everything done so far.'), resume: true }
          : undefined;
        const repeats = event.message.trim() === this.answer.trim() || (event.status === 'completed' && this.concluded);
        const message = hint?.setup ? noKeyText(event.message) : repeats ? '' : event.message;
        this.answer = '';
        return [{ type: 'prompt_end', status: event.status as PromptStatus, message, ...(hint ? { hint } : {}), ...(event.changes ? { changes: event.changes } : {}) }];
      }
      // Errors and cancels end the run, whose run_complete says so in words: one message, not two.
      case 'turn_complete':
        return endedShort(event.reason) ? [notice('warning', `${event.agent}: ${event.message}`)] : [];
      case 'error':
      case 'cancelled':
      case 'turn_start':
      case 'files_changed':
        return [];
      default:
        return unreachable(event);
    }
  }
}

/** A running call as its card shows it: time so far, the end of its output, the tool's step in words. */
export function toolProgress(event: Extract<AgentEvent, { type: 'tool_progress' }>): TranscriptEvent {
  const said = stepText(event.step);
  return {
    type: 'tool_progress',
    callId: event.callId,
    elapsedMs: event.elapsedMs,
    ...(event.tail !== undefined ? { tail: capText(event.tail), lines: event.lines } : {}),
    ...(said !== '' ? { step: said } : {}),
  };
}

export function toolEnd(callId: string, result: Pick<ToolResult, 'status' | 'output' | 'error' | 'metadata'>, durationMs: number, tool = ''): TranscriptEvent {
  const unified = result.metadata.diff;
  const path = unified !== undefined ? diffPath(unified) : undefined;
  const outcome = callOutcome(tool, result, t);
  const denied = deniedBy(result);
  return {
    type: 'tool_end',
    callId,
    status: result.status === 'success' ? 'completed' : result.status === 'cancelled' ? 'cancelled' : 'failed',
    // The tool's own time: the wait for an approval is shown apart.
    durationMs: result.metadata.durationMs ?? durationMs,
    ...(result.metadata.waitedMs !== undefined ? { waitedMs: result.metadata.waitedMs } : {}),
    ...(result.metadata.approval !== undefined ? { approval: result.metadata.extra['editedArguments'] !== undefined ? 'allow_edited' : result.metadata.approval } : {}),
    ...(result.metadata.setupMs !== undefined ? { setupMs: result.metadata.setupMs } : {}),
    ...(typeof result.metadata.extra['exitCode'] === 'number' ? { exitCode: result.metadata.extra['exitCode'] } : {}),
    ...(result.metadata.extra['sandboxed'] === true ? { sandboxed: true } : {}),
    output: toolOutput(result),
    files: result.metadata.filesModified,
    ...(unified !== undefined && path !== undefined ? { diff: { path, unified: capText(unified, 4 * MAX_CARD_CHARS) } } : {}),
    ...(outcome !== undefined ? { outcome } : {}),
    ...(denied !== undefined ? { denied } : {}),
  };
}

/** The person's message of a prompt; an Apply's (a button, not typed) as a quiet line in their words. */
export function promptMessage(text: string): TranscriptEvent {
  const applied = appliedPath(text);
  if (applied !== undefined) return { type: 'user_message', text: t`Applied a code block to ${applied}`, action: true };
  // An attempt applied from the attempts card (src/attempts/apply-attempt.ts words its prompt).
  const attempt = /^Apply attempt (\d)$/.exec(text)?.[1];
  if (attempt !== undefined) return { type: 'user_message', text: t`Applied attempt ${attempt}`, action: true };
  return { type: 'user_message', text };
}

/**
 * What an empty session says Crow does, as the permissions in force have
 * it: whether it asks before changing files and before running commands
 * (sandboxed commands run unasked while the sandbox contains them).
 */
export function welcomeText(policy: PermissionPolicy, sandboxed: boolean): string {
  const { write, execute } = policy.rules;
  const files = write === 'allow' ? t('changes files without asking') : write === 'deny' ? t('does not change files') : t('asks before changing files');
  let commands = t('asks before running commands');
  if (execute === 'deny') commands = t('does not run commands');
  else if (execute === 'allow' && policy.executeBySandbox) {
    if (sandboxed) commands = t('runs commands in a sandbox without asking (they can write only inside this workspace, with no network and no API keys)');
  } else if (execute === 'allow') commands = t('runs commands without asking');
  return t`Ask Crow to read, change or explain the code of this workspace. It ${files} and ${commands}.`;
}

/** The card of a prompt that failed before it ran: the error, what to do about it, and for a missing key the set-up's words. */
export function errorEnd(message: string): Extract<TranscriptEvent, { type: 'prompt_end' }> {
  const hint = errorHint(message);
  return { type: 'prompt_end', status: 'error', message: hint?.setup ? noKeyText(message) : message, ...(hint ? { hint } : {}) };
}

/** A prompt that found no key, said in the set-up's words (the engine's text tells a terminal user which variable to set). */
function noKeyText(message: string): string {
  const provider = /No API key for provider "([^"]+)"/.exec(message)?.[1];
  return provider !== undefined ? t`Crow has no key for ${provider} yet.` : t('Crow has no key for this provider yet.');
}

/** What to do about a prompt's error, when its text says what kind it is. */
export function errorHint(message: string): ErrorHint | undefined {
  if (/No API key for provider/.test(message)) {
    return { text: t('Set it up below: add a key, use a model VS Code already has, or a server of your own. No reload needed.'), setup: true };
  }
  if (/ECONNREFUSED|ENOTFOUND|EAI_AGAIN|fetch failed|connection error|could not connect|socket hang up|timed? ?out/i.test(message)) {
    return { text: t('The provider did not answer. Is the server running, and is its base URL right?'), setting: 'crow.baseUrls' };
  }
  if (/\b401\b|\b403\b|api[ _-]?key|authentication|unauthori[sz]ed/i.test(message)) {
    return { text: t('The provider refused the API key. Set it again with "Crow: Set API Key".') };
  }
  if (/\b404\b|model.*(not found|does not exist|unknown)|unknown model/i.test(message)) {
    return { text: t('The provider does not know this model. Pick another one, or check the model name.'), setting: 'crow.model' };
  }
  return undefined;
}

/** The setting of the limit a run stopped at, from the config key its message names. */
export function budgetHint(message: string): ErrorHint {
  const key = /limits\.(max_\w+)/.exec(message)?.[1];
  const setting = key ? `crow.limits.${key.replace(/_(\w)/g, (_, letter: string) => letter.toUpperCase())}` : 'crow.limits';
  return { text: t('Raise the limit, then continue.'), setting };
}

export function notice(level: 'info' | 'warning' | 'error', text: string): TranscriptEvent {
  return { type: 'notice', level, text };
}

function seconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(1))} s`;
}
