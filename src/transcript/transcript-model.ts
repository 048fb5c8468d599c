/**
 * The one reducer from a session's AgentEvents to transcript entries, live
 * or replayed from the stored events (the same way both times). It decides
 * what a person sees and in which words; the doors (VS Code's chat, ACP's
 * session updates, the CLI) draw the entries it returns.
 */
import { type AgentEvent, endedShort, unreachable } from '../engine/events';
import { stepText } from '../engine/tool-progress';
import { appliedPath } from '../host/apply-code';
import type { UserBlock } from '../llm/types';
import { userText } from '../session/history';
import type { ToolKind } from '../tools/tool';
import { INTERRUPTED } from '../vocabulary/interruption';
import { callOutcome, callWords, type CallWords, deniedBy } from '../vocabulary/tool-story';
import { english, type Translate } from '../vocabulary/translate';
import type { Actor, CallStatus, TranscriptEntry } from './entries';
import { budgetHint, errorHint, interruptedHint, noKeyText } from './failure-words';
import { callTitle, compactionWords, endedTitle, doomLoopWords, handoffWords, retryWords, reviewRound, reviewStartWords, verdictWords } from './words';

export interface TranscriptModelOptions {
  /** A stored session shown again: each prompt opens with what the person sent (live, the door showed it when sent). */
  replaying?: boolean;
  /** The display language (VS Code's `t`); English when absent. */
  t?: Translate;
}

/** The person's message as shown; an Apply's (a button, not typed) as a quiet line in their words (`action`). */
export function promptWords(text: string, t: Translate = english): { text: string; action?: true } {
  const applied = appliedPath(text);
  if (applied !== undefined) return { text: t('Applied a code block to {0}', applied), action: true };
  // An attempt applied from the attempts card (src/attempts/apply-attempt.ts words its prompt).
  const attempt = /^Apply attempt (\d)$/.exec(text)?.[1];
  if (attempt !== undefined) return { text: t('Applied attempt {0}', attempt), action: true };
  return { text };
}

/** A helper's start, step or end, on the card of the task call that runs it. */
function helperEntry(event: Extract<AgentEvent, { type: 'subagent_start' | 'subagent_progress' | 'subagent_end' }>, parent: Actor): TranscriptEntry {
  const { callId, subagent } = event;
  if (event.type === 'subagent_start') return { type: 'subagent', parent, callId, subagent, state: 'started', text: event.task };
  if (event.type === 'subagent_progress') return { type: 'subagent', parent, callId, subagent, state: 'progress', text: event.text };
  return { type: 'subagent', parent, callId, subagent, state: 'ended', text: event.summary, status: event.status };
}

/** The calls that end a task: no card, their summary is the answer. */
const FINISHING = 'task_complete';

/**
 * Reduces one session's events, prompt after prompt. `handle` returns the
 * entries an event adds (often none). Text arrives as deltas; a complete
 * block is an entry only when its deltas never came. Who is the primary and
 * who reviews comes with prompt_start.
 */
export class TranscriptModel {
  private readonly t: Translate;
  private readonly streamed = new Set<string>();
  private primary: string | undefined;
  private coagent: string | undefined;
  /** The text since the prompt's last tool call: an ending that only repeats it (a built-in command's answer) says nothing more. */
  private answer = '';
  /** Calls shown as prose, not as cards (task_complete: its summary is the answer). */
  private readonly unshown = new Set<string>();
  /** Each running call's words and kind, for its end. */
  private readonly calls = new Map<string, { words: CallWords; kind: ToolKind }>();
  /** A task_complete call's summary was shown: its task_complete event (in an unreviewed run) is not news. */
  private summaryShown = false;
  /** The answer or the reviewer's approval was shown: a completed ending ("builder completed the task.") adds nothing. */
  private concluded = false;
  /** What the reviewer said in its running review: a verdict whose summary only repeats it shows no second copy. */
  private reviewSaid = '';

  constructor(private readonly options: TranscriptModelOptions = {}) {
    this.t = options.t ?? english;
  }

  /** Who speaks the answer of the prompt under way (named by its prompt_start). */
  get primaryAgent(): string | undefined {
    return this.primary;
  }

  actor(agent: string): Actor {
    if (agent === this.primary) return { agent, role: 'primary' };
    if (agent === this.coagent) return { agent, role: 'reviewer' };
    return { agent, role: 'subagent' };
  }

  handle(event: AgentEvent): TranscriptEntry[] {
    switch (event.type) {
      case 'prompt_start':
        this.primary = event.primary;
        this.coagent = event.coagent;
        this.concluded = false;
        return [{ ...this.prompt(event.content), ...(this.options.replaying ? {} : { sent: true }), ...(event.coagent !== undefined ? { reviewer: this.actor(event.coagent) } : {}) }];
      case 'steer':
        return [{ type: 'prompt', content: event.content, text: userText(event.content), steered: { agent: event.agent } }];
      case 'context':
        return [{ type: 'context', agent: event.agent, used: event.used, window: event.window }];
      case 'checkpoint': {
        const { callId } = event.checkpoint;
        return callId !== undefined && this.unshown.has(callId) ? [] : [{ type: 'checkpoint', checkpoint: event.checkpoint }];
      }
      case 'plan':
        return [{ type: 'plan', items: event.items }];
      case 'text_delta':
      case 'thinking_delta':
      case 'text_complete':
      case 'thinking_complete':
        return this.said(event);
      case 'tool_call_start':
      case 'tool_progress':
      case 'tool_call_end':
        return this.call(event);
      case 'usage':
        return [{ type: 'cost', actor: this.actor(event.agent), usage: event.usage, model: event.model, costUsd: event.costUsd, context: event.context, subagent: false }];
      case 'subagent_usage':
        return [{ type: 'cost', actor: this.actor(event.agent), usage: event.usage, model: event.model, costUsd: event.costUsd, subagent: true }];
      case 'notice':
        return [{ type: 'notice', level: event.level, text: event.message, about: 'host', title: event.title, action: event.action }];
      case 'retry':
      case 'doom_loop':
      case 'compaction':
        return [this.workNotice(event)];
      case 'coagent_start':
      case 'coagent_end':
      case 'handoff':
        return this.review(event);
      case 'subagent_start':
      case 'subagent_progress':
      case 'subagent_end':
        return [helperEntry(event, this.actor(event.agent))];
      case 'task_complete': {
        // Shown already from its call, as a rule; a run that reports it without one shows it here.
        const shown = this.summaryShown;
        this.summaryShown = false;
        return [{ type: 'task_complete', actor: this.actor(event.agent), summary: event.summary }, ...(shown ? [] : this.summary(event.agent, event.summary))];
      }
      case 'run_complete':
        return [this.promptEnd(event)];
      case 'turn_complete': {
        const ended: TranscriptEntry = { type: 'turn_end', actor: this.actor(event.agent), reason: event.reason, message: event.message };
        if (!endedShort(event.reason)) return [ended];
        return [ended, { type: 'notice', level: 'warning', text: `${event.agent}: ${event.message}`, about: 'ended_short', actor: this.actor(event.agent) }];
      }
      case 'error':
        return [{ type: 'stopped', actor: this.actor(event.agent), why: 'error', message: event.message }];
      case 'cancelled':
        return [{ type: 'stopped', actor: this.actor(event.agent), why: 'cancelled' }];
      case 'turn_start':
        return [{ type: 'turn_start', actor: this.actor(event.agent) }];
      case 'files_changed':
        return [{ type: 'files_changed', actor: this.actor(event.agent), files: event.files }];
      default:
        return unreachable(event);
    }
  }

  /** Text and thinking: the deltas, and a complete block only when its deltas never came. */
  private said(event: Extract<AgentEvent, { type: 'text_delta' | 'thinking_delta' | 'text_complete' | 'thinking_complete' }>): TranscriptEntry[] {
    const block = event.type === 'text_delta' || event.type === 'text_complete' ? 'text' : 'thinking';
    const key = `${block}:${event.agent}`;
    let text: string;
    if (event.type === 'text_delta' || event.type === 'thinking_delta') {
      this.streamed.add(key);
      text = event.delta;
    } else {
      if (this.streamed.delete(key) || event.text === '') return [];
      text = event.text;
    }
    if (block === 'text') this.heard(event.agent, text);
    return [{ type: block, actor: this.actor(event.agent), delta: text }];
  }

  /** A tool call's start, progress and end; the call that ends the task is no card (its summary is the answer). */
  private call(event: Extract<AgentEvent, { type: 'tool_call_start' | 'tool_progress' | 'tool_call_end' }>): TranscriptEntry[] {
    if (event.type === 'tool_call_end') {
      if (this.unshown.delete(event.callId)) return event.result.status === 'success' ? this.summary(event.agent, event.result.output) : [];
      return [this.toolEnd(event)];
    }
    if (event.type === 'tool_progress') {
      if (this.unshown.has(event.callId)) return [];
      const step = stepText(event.step);
      const { callId, tool, elapsedMs } = event;
      const tail = event.tail !== undefined ? { tail: event.tail, lines: event.lines } : {};
      return [{ type: 'tool_progress', actor: this.actor(event.agent), callId, tool, elapsedMs, ...tail, ...(step !== '' ? { step } : {}) }];
    }
    if (event.tool === FINISHING) {
      this.unshown.add(event.callId);
      return [];
    }
    this.answer = '';
    const summary = event.summary.trim();
    const words = callWords(event.tool, event.arguments, summary, this.t);
    this.calls.set(event.callId, { words, kind: event.kind });
    const { callId, tool, kind, locations } = event;
    return [{ type: 'tool_start', actor: this.actor(event.agent), callId, tool, kind, title: callTitle(words, false), words, summary, arguments: event.arguments, locations }];
  }

  /** A notice about the work: a retry (one line, updated in place), a stuck loop, a compaction. */
  private workNotice(event: Extract<AgentEvent, { type: 'retry' | 'doom_loop' | 'compaction' }>): TranscriptEntry {
    const t = this.t;
    const actor = this.actor(event.agent);
    if (event.type === 'retry') return { type: 'notice', level: 'info', text: retryWords(event.attempt, event.delayMs, event.reason, t), about: 'retry', replaces: 'retry', actor };
    if (event.type === 'doom_loop') return { type: 'notice', level: 'warning', text: doomLoopWords(event.agent, event.tool, event.repeats, t), about: 'doom_loop', actor };
    return { type: 'notice', level: 'info', text: compactionWords(event.agent, event.tokensBefore, event.tokensAfter, event.how, t), about: 'compaction', actor };
  }

  /** A review's start and verdict, and a message between agents, in a person's words. */
  private review(event: Extract<AgentEvent, { type: 'coagent_start' | 'coagent_end' | 'handoff' }>): TranscriptEntry[] {
    const t = this.t;
    if (event.type === 'handoff') {
      return [{ type: 'handoff', from: this.actor(event.agent), to: this.actor(event.to), purpose: event.purpose, text: event.text, words: handoffWords(event.purpose, t) }];
    }
    const reviewer = this.actor(event.agent);
    const primary = this.actor(event.primary);
    if (event.type === 'coagent_start') {
      this.reviewSaid = '';
      return [{ type: 'review_start', reviewer, primary, round: event.round, roundText: reviewRound(event.round, t), text: reviewStartWords(t) }];
    }
    if (event.verdict === 'approved') this.concluded = true;
    // What the reviewer said in its review already is not shown a second time.
    const summary = event.summary.trim() === this.reviewSaid.trim() ? '' : event.summary;
    return [{ type: 'verdict', reviewer, primary, round: event.round, verdict: event.verdict, ...verdictWords(event.verdict, t), summary }];
  }

  private prompt(content: UserBlock[]): Extract<TranscriptEntry, { type: 'prompt' }> {
    return { type: 'prompt', content, ...promptWords(userText(content), this.t) };
  }

  /** Text an agent said: the prompt's answer so far, and the reviewer's words in its review. */
  private heard(agent: string, text: string): void {
    this.answer += text;
    if (agent === this.coagent) this.reviewSaid += text;
  }

  /**
   * The summary an agent ended its work with (task_complete), as prose: the
   * primary's is its answer; the reviewer's is its verdict's text, shown there.
   */
  private summary(agent: string, text: string): TranscriptEntry[] {
    if (agent === this.coagent || text.trim() === '') return [];
    this.concluded = true;
    this.summaryShown = true;
    const separated = this.answer.trim() !== '';
    this.answer += `${separated ? '\n\n' : ''}${text.trim()}`;
    return [{ type: 'summary', actor: this.actor(agent), text: text.trim(), separated }];
  }

  private toolEnd(event: Extract<AgentEvent, { type: 'tool_call_end' }>): TranscriptEntry {
    const { callId, tool, result, durationMs } = event;
    const call = this.calls.get(callId);
    this.calls.delete(callId);
    const words = call?.words ?? callWords(tool, {}, '', this.t);
    const outcome = callOutcome(tool, result, this.t);
    const denied = deniedBy(result);
    const status: CallStatus = result.status === 'success' ? 'completed' : result.status === 'cancelled' ? 'cancelled' : 'failed';
    return {
      type: 'tool_end',
      actor: this.actor(event.agent),
      callId,
      tool,
      kind: call?.kind,
      title: endedTitle(words, status, denied !== undefined, this.t),
      words,
      status,
      ...(outcome !== undefined ? { outcome } : {}),
      ...(denied !== undefined ? { denied } : {}),
      result,
      durationMs,
    };
  }

  private promptEnd(event: Extract<AgentEvent, { type: 'run_complete' }>): TranscriptEntry {
    const t = this.t;
    const hint =
      event.status === 'error' ? errorHint(event.message, t)
      : event.status === 'budget' ? budgetHint(event.message, t)
      : event.message === INTERRUPTED ? interruptedHint(t)
      : undefined;
    const repeats = event.message.trim() === this.answer.trim() || (event.status === 'completed' && this.concluded);
    const said = hint?.setup ? noKeyText(event.message, t) : repeats ? '' : event.message;
    this.answer = '';
    return { type: 'prompt_end', status: event.status, message: event.message, said, ...(hint ? { hint } : {}), ...(event.changes ? { changes: event.changes } : {}) };
  }
}
