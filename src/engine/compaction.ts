import type { LlmRequest, Provider } from '../llm/types';
import type { HistoryEntry } from '../session/history';
import { InternalSession } from '../session/internal-session';
import type { Span } from '../telemetry/span';
import type { Emit } from './model-call';
import { toollessCall } from './model-call';

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
  /** Renders the summariser's instructions and the note the model reads afterwards. */
  prompts: { instructions(): string; note(summary: string): string };
}

/** Roughly four characters per token: cheap, and conservative enough for a trigger. */
export function estimateTokens(request: LlmRequest): number {
  return Math.ceil(JSON.stringify([request.system, request.messages, request.tools]).length / 4);
}

export interface CompactionScope {
  agent: string;
  provider: Provider;
  session: InternalSession;
  emit: Emit;
  span: Span | undefined;
  signal: AbortSignal;
  settings: CompactionSettings;
}

/**
 * Makes `build()`'s request fit, compacting the session as needed; returns
 * the request to send. A failed summary leaves the session as it was (the
 * provider then reports the overflow like any other error).
 */
export async function fitToWindow(scope: CompactionScope, build: () => LlmRequest): Promise<LlmRequest> {
  const { session, settings } = scope;
  const limit = settings.contextWindow * (settings.threshold ?? 0.8);
  let request = build();
  const before = estimateTokens(request);
  if (before <= limit) return request;

  const trimAt = boundaryBefore(session.entries, keepFrom(session.entries, 0.3));
  if (trimAt > 0) {
    session.append({ kind: 'trim_tool_outputs', before: trimAt, at: Date.now() });
    request = build();
    if (estimateTokens(request) <= limit) return announce(scope, before, request, 'trimmed old tool outputs');
  }

  const upTo = boundaryBefore(session.entries, keepFrom(session.entries, 0.25));
  if (upTo <= 0) return request;
  const summary = await summarise(scope, upTo);
  if (summary === undefined) return request;
  session.append({ kind: 'compaction', upTo, note: settings.prompts.note(summary), at: Date.now() });
  return announce(scope, before, build(), `summarised ${upTo} earlier entries`);
}

function announce(scope: CompactionScope, before: number, request: LlmRequest, how: string): LlmRequest {
  scope.emit({ type: 'compaction', agent: scope.agent, tokensBefore: before, tokensAfter: estimateTokens(request), how });
  return request;
}

/** The summary of the history before `upTo`, by one tool-less call; undefined when it failed. */
async function summarise(scope: CompactionScope, upTo: number): Promise<string | undefined> {
  const { session } = scope;
  const older = new InternalSession(session.agentName, { history: session.entries.slice(0, upTo) });
  const summaryRequest: Pick<LlmRequest, 'system' | 'messages'> = {
    system: scope.settings.prompts.instructions(),
    messages: [
      ...older.toMessages(),
      { role: 'user', content: [{ type: 'text', text: 'Summarise the session so far as instructed.' }] },
    ],
  };
  const { text } = await toollessCall({ agent: scope.agent, provider: scope.provider, span: scope.span, emit: scope.emit }, summaryRequest, scope.signal);
  return text === '' ? undefined : text;
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
