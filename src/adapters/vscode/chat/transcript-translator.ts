/**
 * What the chat view shows of a run: the transcript model's entries
 * (src/transcript/) become TranscriptEvents (the view's own, JSON-only
 * vocabulary in webview/chat/protocol.ts), with capped texts. The model
 * decides what is shown and in which words; this only shapes it for the
 * view. Plain Node; the chat participant reuses it.
 */
import type { AgentEvent } from '../../../engine/events';
import { unreachable } from '../../../engine/events';
import { t } from '../l10n';
import { screenText } from '../../../engine/output-tail';
import type { PermissionPolicy } from '../../../vocabulary/permission-types';
import type { TodoItem } from '../../../tools/todos';
import type { ToolResult } from '../../../tools/tool';
import type { ErrorHint, PlanEntry, PromptStatus, TranscriptEvent } from '../../../../webview/chat/protocol';
import { callOutcome, callWords, deniedBy } from '../../../vocabulary/tool-story';
import { TranscriptModel, promptWords } from '../../../transcript/transcript-model';
import { helperStatusWords } from '../../../transcript/words';
import type { TranscriptEntry } from '../../../transcript/entries';
import { budgetHint as budgetWords, errorHint as errorWords, noKeyText } from '../../../transcript/failure-words';

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
 * Translates one session's events, live or stored (the same way both
 * times), through the transcript model. `handle` returns the events to show
 * (often none). Tokens and cost are the session host's to count.
 */
export class TranscriptTranslator {
  private readonly model: TranscriptModel;

  constructor(options: TranscriptOptions = {}) {
    this.model = new TranscriptModel({ replaying: options.replaying, t });
  }

  handle(event: AgentEvent): TranscriptEvent[] {
    return this.model.handle(event).flatMap(viewEvents);
  }
}

/** One entry of the transcript as the view's events (none for what the view does not draw). */
function viewEvents(entry: TranscriptEntry): TranscriptEvent[] {
  switch (entry.type) {
    // Live too: the view showed a steered message as queued, not in the transcript, until an agent took it.
    case 'prompt':
      if (entry.steered) return [{ type: 'user_message', text: entry.text, steered: true }];
      return entry.sent ? [] : [{ type: 'user_message', text: entry.text, ...(entry.action ? { action: true } : {}) }];
    case 'context':
      return [{ type: 'context', agent: entry.agent, used: entry.used, window: entry.window }];
    case 'checkpoint': {
      const { id, kind, callId } = entry.checkpoint;
      return [{ type: 'checkpoint', id, kind, ...(callId !== undefined ? { callId } : {}) }];
    }
    case 'plan':
      return [{ type: 'plan', entries: planEntries(entry.items) }];
    case 'text':
      return [{ type: 'text_delta', actor: entry.actor, delta: entry.delta }];
    case 'thinking':
      return [{ type: 'thinking_delta', actor: entry.actor, delta: entry.delta }];
    case 'summary':
      return [{ type: 'text_delta', actor: entry.actor, delta: `${entry.separated ? '\n\n' : ''}${capText(entry.text)}` }];
    case 'tool_start':
      return [
        {
          type: 'tool_start',
          actor: entry.actor,
          callId: entry.callId,
          tool: entry.tool,
          kind: entry.kind,
          title: entry.summary,
          argumentsText: argumentsText(entry.arguments),
          words: entry.words,
        },
      ];
    case 'tool_progress':
      return [
        {
          type: 'tool_progress',
          callId: entry.callId,
          elapsedMs: entry.elapsedMs,
          ...(entry.tail !== undefined ? { tail: capText(entry.tail), lines: entry.lines } : {}),
          ...(entry.step !== undefined ? { step: entry.step } : {}),
        },
      ];
    case 'tool_end':
      return [endCard(entry)];
    case 'notice':
      if (entry.action) return [{ type: 'notice', level: entry.level, text: entry.text, action: entry.action }];
      return [{ type: 'notice', level: entry.level, text: entry.text, ...(entry.replaces ? { replaces: entry.replaces } : {}) }];
    case 'review_start':
      return [{ type: 'review_start', reviewer: entry.reviewer, primary: entry.primary, round: entry.round }];
    case 'verdict':
      return [{ type: 'verdict', reviewer: entry.reviewer, round: entry.round, verdict: entry.verdict, summary: entry.summary === '' ? '' : capText(entry.summary) }];
    case 'handoff':
      return [{ type: 'handoff', from: entry.from, to: entry.to, purpose: entry.purpose, text: capText(entry.text) }];
    case 'subagent': {
      const text = entry.state === 'ended' ? `${helperStatusWords(entry.status, t)}: ${capText(entry.text)}` : entry.state === 'started' ? capText(entry.text) : entry.text;
      return [{ type: 'subagent', callId: entry.callId, subagent: entry.subagent, state: entry.state, text }];
    }
    case 'prompt_end':
      return [{ type: 'prompt_end', status: entry.status as PromptStatus, message: entry.said, ...(entry.hint ? { hint: entry.hint } : {}), ...(entry.changes ? { changes: entry.changes } : {}) }];
    // Tokens and cost are the meter's (the session host counts them); errors and cancels end the run, whose end says so in words.
    case 'cost':
    case 'task_complete':
    case 'turn_start':
    case 'turn_end':
    case 'files_changed':
    case 'stopped':
      return [];
    default:
      return unreachable(entry);
  }
}

function endCard(entry: Extract<TranscriptEntry, { type: 'tool_end' }>): TranscriptEvent {
  const { result } = entry;
  const unified = result.metadata.diff;
  const path = unified !== undefined ? diffPath(unified) : undefined;
  return {
    type: 'tool_end',
    callId: entry.callId,
    status: entry.status,
    // The tool's own time: the wait for an approval is shown apart.
    durationMs: result.metadata.durationMs ?? entry.durationMs,
    ...(result.metadata.waitedMs !== undefined ? { waitedMs: result.metadata.waitedMs } : {}),
    ...(result.metadata.approval !== undefined ? { approval: result.metadata.extra['editedArguments'] !== undefined ? 'allow_edited' : result.metadata.approval } : {}),
    ...(result.metadata.setupMs !== undefined ? { setupMs: result.metadata.setupMs } : {}),
    ...(typeof result.metadata.extra['exitCode'] === 'number' ? { exitCode: result.metadata.extra['exitCode'] } : {}),
    ...(result.metadata.extra['sandboxed'] === true ? { sandboxed: true } : {}),
    output: toolOutput(result),
    files: result.metadata.filesModified,
    ...(unified !== undefined && path !== undefined ? { diff: { path, unified: capText(unified, 4 * MAX_CARD_CHARS) } } : {}),
    ...(entry.outcome !== undefined ? { outcome: entry.outcome } : {}),
    ...(entry.denied !== undefined ? { denied: entry.denied } : {}),
  };
}

/** A finished call's card from its result alone (a call told outside a run's events). */
export function toolEnd(callId: string, result: Pick<ToolResult, 'status' | 'output' | 'error' | 'metadata'>, durationMs: number, tool = ''): TranscriptEvent {
  const words = callWords(tool, {}, '', t);
  const outcome = callOutcome(tool, result, t);
  const denied = deniedBy(result);
  const status = result.status === 'success' ? 'completed' : result.status === 'cancelled' ? 'cancelled' : 'failed';
  const full = { ...result, metadata: { ...result.metadata } } as ToolResult;
  return endCard({ type: 'tool_end', actor: { agent: '', role: 'primary' }, callId, tool, title: '', words, status, result: full, durationMs, ...(outcome !== undefined ? { outcome } : {}), ...(denied !== undefined ? { denied } : {}) });
}

/** The person's message of a prompt; an Apply's (a button, not typed) as a quiet line in their words. */
export function promptMessage(text: string): TranscriptEvent {
  const said = promptWords(text, t);
  return { type: 'user_message', text: said.text, ...(said.action ? { action: true } : {}) };
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
  return { type: 'prompt_end', status: 'error', message: hint?.setup ? noKeyText(message, t) : message, ...(hint ? { hint } : {}) };
}

/** What to do about a prompt's error, when its text says what kind it is (the model's words, in the display language). */
export function errorHint(message: string): ErrorHint | undefined {
  return errorWords(message, t);
}

/** The setting of the limit a run stopped at, from the config key its message names. */
export function budgetHint(message: string): ErrorHint {
  return budgetWords(message, t);
}

export function notice(level: 'info' | 'warning' | 'error', text: string): TranscriptEvent {
  return { type: 'notice', level, text };
}
