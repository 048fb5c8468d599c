import { estimateTokens, underReports } from '../llm/token-estimate';
import type { ContextOverflow, LlmRequest, Provider, Usage } from '../llm/types';
import type { HistoryEntry } from '../session/history';
import { InternalSession } from '../session/internal-session';
import type { Span } from '../telemetry/span';
import { ContextGauge } from './context-gauge';
import type { Emit } from './model-call';
import { nextCall, toollessCall } from './model-call';
import type { Budget } from '../vocabulary/budget';

/**
 * Keeping a session inside its model's context window without changing the
 * session: first old tool outputs are trimmed, then, if that is not enough,
 * the older history is summarised by the model into a compaction entry. The
 * full history stays in the session (and on disk) for the trace.
 */
export interface CompactionSettings {
  /** The model's context window in tokens. */
  contextWindow: number;
  /** Compact when a request is estimated above this share of the window. Default 0.8. */
  threshold?: number;
  /** Compact on its own as the window fills, and after a server refused a prompt as too long (default); false: only when asked (/compact). */
  auto?: boolean;
  /**
   * Renders the request to summarise (the agent reads it as a user message;
   * `asked` is given when a person asked for the compaction, with what they
   * want the summary to focus on) and the note the model reads afterwards.
   */
  prompts: { instructions(asked?: { focus?: string }): string; note(summary: string): string };
}


/** What a compaction a person asked for did. */
export interface CompactOutcome {
  compacted: boolean;
  /** Why the summary could not be written, when it failed. */
  error?: string;
}

export interface CompactionScope {
  agent: string;
  provider: Provider;
  /** The prompt's spending limits: a summary that would certainly pass one is not asked for. */
  budget?: Budget;
  session: InternalSession;
  emit: Emit;
  span: Span | undefined;
  signal: AbortSignal;
  settings: CompactionSettings;
}

/**
 * Keeps one agent's requests inside its model's context window: compacts
 * ahead of a call that would not fit, and once more after a server says a
 * prompt did not fit (its window is smaller than Crow was told), learning
 * the window the server stated for the agent's later calls.
 */
export class ContextWindowKeeper {
  /** The window a server stated, in Crow's token estimate, when smaller than the configured one. */
  private learned: number | undefined;
  /** The last request fit() returned, with its estimate (what the gauge checks the server's count against). */
  private fitted: Estimated | undefined;
  private readonly gauge = new ContextGauge();

  constructor(private readonly configured: CompactionSettings) {}

  get settings(): CompactionSettings {
    const { learned, configured } = this;
    return learned !== undefined && learned < configured.contextWindow ? { ...configured, contextWindow: learned } : configured;
  }

  /** Whether the keeper compacts on its own; off, requests go as they are and only compactNow compacts. */
  get auto(): boolean {
    return this.configured.auto !== false;
  }

  /** `build()`'s request, compacted first if it would not fit (unless compaction is off). */
  async fit(scope: Omit<CompactionScope, 'settings'>, build: () => LlmRequest): Promise<LlmRequest> {
    if (!this.auto) return build();
    this.fitted = await fitToWindow({ ...scope, settings: this.settings }, build);
    return this.fitted.request;
  }

  /**
   * What a call of `request` filled of the window (prompt and answer), the
   * server's count cross-checked against the estimate (see ContextGauge,
   * which tells `emit` once when the server under-reports); undefined when
   * the server reported no usage.
   */
  read(request: LlmRequest, usage: Usage, scope: { agent: string; emit: Emit }): number | undefined {
    return this.gauge.read(this.estimate(request), usage, scope);
  }

  /** The tokens of `request`, estimated (as fit last estimated them, when it is the request fit gave). */
  estimate(request: LlmRequest): number {
    return this.fitted?.request === request ? this.fitted.tokens : estimateTokens(request);
  }

  /**
   * Compacts the whole history now, as a person asked (/compact): one
   * summary of everything so far, guided by `focus`. Nothing to summarise,
   * or a failed summary (`error` says why), leaves the history as it was.
   */
  async compactNow(scope: Omit<CompactionScope, 'settings'>, build: () => LlmRequest, focus?: string): Promise<CompactOutcome> {
    const { session } = scope;
    const upTo = session.length;
    if (upTo === 0 || alreadySummarised(session.view().entries, upTo)) return { compacted: false };
    const settings = this.settings;
    const before = estimateTokens(build());
    const asked = focus !== undefined && focus.trim() !== '' ? { focus: focus.trim() } : {};
    let written = await summarise({ ...scope, settings }, upTo, build(), asked);
    // A conversation too long for the server to read whole is summarised from its trimmed view (tool outputs shortened).
    if ('overflow' in written) written = await summarise({ ...scope, settings }, upTo, build(), asked, upTo);
    if ('error' in written) return { compacted: false, error: written.error };
    session.append({ kind: 'compaction', upTo, note: settings.prompts.note(written.summary), at: Date.now() });
    const how = asked.focus !== undefined ? `summarised all ${upTo} entries on request, focused on: ${asked.focus}` : `summarised all ${upTo} entries on request`;
    scope.emit({ type: 'compaction', agent: scope.agent, tokensBefore: before, tokensAfter: estimateTokens(build()), how });
    return { compacted: true };
  }

  /**
   * After a server refused `refused` as too long: the request compacted to
   * the window it stated (or as far as it goes, when it stated none), or
   * undefined when nothing was left to compact.
   */
  async recover(scope: Omit<CompactionScope, 'settings'>, build: () => LlmRequest, refused: LlmRequest, overflow: ContextOverflow): Promise<LlmRequest | undefined> {
    if (!this.auto) return undefined;
    const window = windowInEstimate(overflow, estimateTokens(refused));
    if (window !== undefined) this.learned = Math.min(this.learned ?? Infinity, Math.floor(window));
    const settings = this.settings;
    const limit = window !== undefined ? window * (settings.threshold ?? DEFAULT_COMPACTION_THRESHOLD) : 0;
    const why =
      overflow.windowTokens !== undefined
        ? `the model's server could not fit the prompt in its ${overflow.windowTokens}-token context window (set context_window for this model to match)`
        : "the model's server could not fit the prompt in its context window";
    return (await compact({ ...scope, settings }, build, limit, why))?.request;
  }
}

/**
 * The server's window in Crow's token estimate: the server's own count of
 * the prompt tells how its tokens compare with the estimate, unless it
 * under-reports the prompt (then its tokens are taken as the estimate's).
 * Undefined when the server stated no window.
 */
function windowInEstimate(overflow: ContextOverflow, estimate: number): number | undefined {
  if (overflow.windowTokens === undefined) return undefined;
  const counted = overflow.promptTokens;
  const scale = counted && !underReports(counted, estimate) ? estimate / counted : 1;
  return overflow.windowTokens * scale;
}

/** The share of the window a request may fill before it is compacted. */
export const DEFAULT_COMPACTION_THRESHOLD = 0.8;

/**
 * Makes `build()`'s request fit, compacting the session as needed; returns
 * the request to send. A failed summary leaves the session as it was (the
 * provider then reports the overflow like any other error).
 */
export async function fitToWindow(scope: CompactionScope, build: () => LlmRequest): Promise<Estimated> {
  const limit = scope.settings.contextWindow * (scope.settings.threshold ?? DEFAULT_COMPACTION_THRESHOLD);
  const request = build();
  const tokens = estimateTokens(request);
  if (tokens <= limit) return { request, tokens };
  return (await compact(scope, build, limit)) ?? { request, tokens };
}

/** A request and its estimate (see estimateTokens). */
interface Estimated {
  request: LlmRequest;
  tokens: number;
}

/**
 * Trims old tool outputs, then, if the request is still over `limit` tokens
 * (always, when forced with limit 0), summarises the older history. Returns
 * the new request, or undefined when nothing changed.
 */
async function compact(scope: CompactionScope, build: () => LlmRequest, limit: number, why?: string): Promise<Estimated | undefined> {
  const { session, settings } = scope;
  const before = estimateTokens(build());
  const announce = (request: LlmRequest, how: string): Estimated => {
    const tokens = estimateTokens(request);
    scope.emit({ type: 'compaction', agent: scope.agent, tokensBefore: before, tokensAfter: tokens, how: why ? `${why}; ${how}` : how });
    return { request, tokens };
  };
  const view = session.view();
  const { trimAt, upTo } = why ? afterRefusal(view) : ahead(view);
  const trims = trimAt > 0 && !alreadyTrimmed(view.entries, trimAt);
  if (trims) {
    session.append({ kind: 'trim_tool_outputs', before: trimAt, at: Date.now() });
    const trimmed = build();
    if (limit > 0 && estimateTokens(trimmed) <= limit) return announce(trimmed, 'trimmed old tool outputs');
  }
  const written = upTo > 0 && !alreadySummarised(view.entries, upTo) ? await summarise(scope, upTo, build()) : undefined;
  if (written && 'summary' in written) {
    session.append({ kind: 'compaction', upTo, note: settings.prompts.note(written.summary), at: Date.now() });
    return announce(build(), `summarised ${upTo} earlier entries`);
  }
  return trims ? announce(build(), 'trimmed old tool outputs') : undefined;
}

/** The model's view of a history: the index it begins at (the last compaction's cut), and the entries from there. */
type View = { from: number; entries: readonly HistoryEntry[] };

/**
 * Where to cut ahead of a call, as indexes into the whole history: the
 * newest 30% of what the model reads (by size) keeps its tool outputs, the
 * newest 25% is not summarised. 0 when the view has no cut to make.
 */
function ahead({ from, entries }: View): { trimAt: number; upTo: number } {
  return { trimAt: at(from, boundaryBefore(entries, keepFrom(entries, 0.3))), upTo: at(from, boundaryBefore(entries, keepFrom(entries, 0.25))) };
}

/**
 * Where to cut after a server refused the prompt as too long, whatever the
 * sizes: every tool output but those of the last step is trimmed, and
 * everything before the prompt the user is on is summarised.
 */
function afterRefusal(view: View): { trimAt: number; upTo: number } {
  const { from, entries } = view;
  const lastPrompt = entries.findLastIndex((entry) => entry.kind === 'user' && entry.from === undefined);
  return { trimAt: at(from, boundaryBefore(entries, entries.length - 1)), upTo: lastPrompt > 0 ? from + lastPrompt : ahead(view).upTo };
}

/** A cut found within the view, as an index into the whole history (none stays none). */
function at(from: number, cut: number): number {
  return cut > 0 ? from + cut : 0;
}

/**
 * Whether the last trim already covers the outputs before `before`. Only
 * the view is searched: a trim or compaction before its start marks entries
 * before it, which no cut in the view reaches.
 */
function alreadyTrimmed(view: readonly HistoryEntry[], before: number): boolean {
  const last = view.findLast((entry) => entry.kind === 'trim_tool_outputs');
  return last?.kind === 'trim_tool_outputs' && last.before >= before;
}

/** Whether the last compaction already replaces the entries before `upTo` (the view is enough, as for trims). */
function alreadySummarised(view: readonly HistoryEntry[], upTo: number): boolean {
  const last = view.findLast((entry) => entry.kind === 'compaction');
  return last?.kind === 'compaction' && last.upTo >= upTo;
}

/**
 * The summary of the history before `upTo`, by one call that may not use
 * tools. It is the agent's own request (same system prompt, same tools)
 * over the older history, with the instructions as the last user message:
 * valid with the tool calls in that history, and reading the agent's
 * cached prompt prefix. When the call fails, why (and whether the server
 * found it too long). `trimBefore` trims tool outputs before that entry
 * for this request only.
 */
async function summarise(
  scope: CompactionScope,
  upTo: number,
  request: LlmRequest,
  asked?: { focus?: string },
  trimBefore?: number,
): Promise<{ summary: string } | { error: string; overflow?: true }> {
  const { session } = scope;
  // The older part as the model last read it: trimmed where the session was trimmed (or further, when asked).
  const trimmed = session.view().entries.findLast((entry) => entry.kind === 'trim_tool_outputs');
  const trim = trimBefore !== undefined ? { kind: 'trim_tool_outputs' as const, before: trimBefore, at: Date.now() } : trimmed;
  const older = session.before(upTo, trim ? [trim] : []);
  const instructions = { type: 'text' as const, text: scope.settings.prompts.instructions(asked) };
  const messages = older.toMessages();
  const last = messages.at(-1);
  // A history ending in a user message (a prompt cancelled before any answer) takes the instructions into that message: roles alternate.
  if (last?.role === 'user') messages[messages.length - 1] = { role: 'user', content: [...last.content, instructions] };
  else messages.push({ role: 'user', content: [instructions] });
  const summaryRequest = { system: request.system, tools: request.tools, messages };
  // As before every model call: what the summary reads alone would pass a limit, so it is not made (the history stays as it was).
  const over = scope.budget?.exceeded(nextCall(summaryRequest, scope.provider));
  if (over !== undefined) return { error: `summarising would pass a spending limit: ${over}` };
  const { text, response } = await toollessCall({ agent: scope.agent, provider: scope.provider, span: scope.span, emit: scope.emit }, summaryRequest, scope.signal);
  if (text !== '') return { summary: text };
  const error = response.errorMessage ?? (response.stopReason === 'aborted' ? 'cancelled' : 'the model wrote no summary');
  return response.overflow ? { error, overflow: true } : { error };
}

/** The index from which the newest `share` of the history (by size) is kept as it is. */
function keepFrom(entries: readonly HistoryEntry[], share: number): number {
  const sizes = entries.map((entry) => JSON.stringify(entry).length);
  const total = sizes.reduce((a, b) => a + b, 0);
  let kept = 0;
  for (let i = entries.length - 1; i >= 0; i--) {
    kept += sizes[i]!;
    if (kept >= total * share) return i;
  }
  return 0;
}

/**
 * The nearest index at or before `index` where a cut keeps every tool call
 * with its result: the start of a user message or of an assistant message.
 */
function boundaryBefore(entries: readonly HistoryEntry[], index: number): number {
  for (let i = Math.min(index, entries.length - 1); i > 0; i--) {
    const entry = entries[i]!;
    const previous = entries[i - 1]!;
    const startsMessage = entry.kind === 'user' || (entry.kind !== 'tool_result' && previous.kind === 'tool_result');
    if (startsMessage && entry.kind !== 'compaction' && entry.kind !== 'trim_tool_outputs') return i;
  }
  return 0;
}
