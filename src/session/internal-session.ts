import { randomUUID } from 'node:crypto';
import type { AssistantBlock, Message, ToolResultItem, UserBlock } from '../llm/types';
import type { HistoryEntry } from './history';

/** What the model reads for a call whose result was never recorded (a crash or a kill mid-call). */
const MISSING_RESULT = 'No result was recorded for this call: it was interrupted before it finished.';

/**
 * The history of one base agent, interleaved as things happened. Providers
 * never see it directly: `toMessages()` batches it into the neutral message
 * list, keeping the invariant that every tool call has exactly one result.
 */
export class InternalSession {
  readonly id: string;
  readonly agentName: string;
  readonly createdAt: number;
  /** The entries in memory: the whole history, or (base > 0) the part from entry `base` on. */
  private history: HistoryEntry[] = [];
  /** How many entries come before those in memory (0 once the whole history is). */
  private base = 0;
  /** Reads the first `base` entries, when a resumed session loaded only the part the model reads. */
  private loadEarlier: (() => HistoryEntry[]) | undefined;
  private readonly listeners = new Set<(entry: HistoryEntry) => void>();
  /** Applied to what tools and the system write into the history (what the model reads next): no secret reaches it. */
  private redact: (text: string) => string = (text) => text;

  /**
   * `history` is the whole history, or with `earlier`, the entries from
   * index `earlier.count` on: the first `earlier.count` entries are read by
   * `earlier.load` the first time something needs them (see `entries`).
   */
  constructor(
    agentName: string,
    options: { id?: string; createdAt?: number; history?: HistoryEntry[]; earlier?: { count: number; load: () => HistoryEntry[] } } = {},
  ) {
    this.id = options.id ?? randomUUID();
    this.agentName = agentName;
    this.createdAt = options.createdAt ?? Date.now();
    if (options.history) this.history.push(...options.history);
    if (options.earlier && options.earlier.count > 0) {
      this.base = options.earlier.count;
      this.loadEarlier = options.earlier.load;
    }
  }

  /**
   * Calls `listener` synchronously with every entry appended from now on,
   * before the event announcing it is emitted — which is what makes a store
   * that writes here crash-safe. Returns the unsubscribe function.
   */
  onAppend(listener: (entry: HistoryEntry) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** The whole history (entries a resumed session had not read yet are read now). */
  get entries(): readonly HistoryEntry[] {
    this.loadAll();
    return this.history;
  }

  /** How many entries the history holds, read or not. */
  get length(): number {
    return this.base + this.history.length;
  }

  /**
   * The entries in memory and the index of the first: the whole history, or
   * for a resumed session, the part from where the model's view begins on
   * (and everything appended since). Reads nothing.
   */
  get loaded(): { base: number; entries: readonly HistoryEntry[] } {
    return { base: this.base, entries: this.history };
  }

  /**
   * Where the model's view begins (the cut of the last compaction it still
   * reads, or 0) and the entries from there on. A resumed session has them
   * in memory; the rest is read only when the view reaches back before it.
   */
  view(): { from: number; entries: readonly HistoryEntry[] } {
    if (this.base > 0 && viewStart(this.base, this.history) === undefined) this.loadAll();
    const from = findLast(readEntries(this.history, this.base), 'compaction')?.entry.upTo ?? 0;
    return { from, entries: this.history.slice(from - this.base) };
  }

  /**
   * A session holding the entries before `upTo` (index in the whole
   * history) and then `extra`, for a call over an older part of this one:
   * entries not read yet are read only if its view reaches back to them.
   */
  before(upTo: number, extra: HistoryEntry[] = []): InternalSession {
    if (upTo < this.base) this.loadAll();
    const load = this.loadEarlier;
    return new InternalSession(this.agentName, {
      history: [...this.history.slice(0, upTo - this.base), ...extra],
      ...(this.base > 0 && load ? { earlier: { count: this.base, load } } : {}),
    });
  }

  /** The last entry of `kind`, looking at the entries in memory first. */
  findLast<K extends HistoryEntry['kind']>(kind: K): Extract<HistoryEntry, { kind: K }> | undefined {
    const found = this.history.findLast((entry) => entry.kind === kind) ?? (this.base > 0 ? this.entries.findLast((entry) => entry.kind === kind) : undefined);
    return found as Extract<HistoryEntry, { kind: K }> | undefined;
  }

  /** Redacts tool outputs and system messages appended from now on. */
  redactWith(redact: (text: string) => string): void {
    this.redact = redact;
  }

  append(entry: HistoryEntry): void {
    entry = this.redacted(entry);
    this.history.push(entry);
    for (const listener of this.listeners) listener(entry);
  }

  /** Adds a user message; `from` marks a handoff from another agent. */
  addUserMessage(content: string | UserBlock[], from?: string): void {
    const blocks = typeof content === 'string' ? [{ type: 'text' as const, text: content }] : content;
    this.append({ kind: 'user', content: blocks, ...(from !== undefined ? { from } : {}), at: Date.now() });
  }

  /** The history as the model reads it; entries not read yet are read only when the view reaches back to them. */
  toMessages(): Message[] {
    if (this.base > 0 && viewStart(this.base, this.history) === undefined) this.loadAll();
    return toMessages(this.history, this.base);
  }

  private loadAll(): void {
    if (this.base === 0 || !this.loadEarlier) return;
    const earlier = this.loadEarlier();
    this.history = [...earlier, ...this.history];
    this.base = 0;
    this.loadEarlier = undefined;
  }

  private redacted(entry: HistoryEntry): HistoryEntry {
    switch (entry.kind) {
      case 'tool_result':
        return {
          ...entry,
          output: this.redact(entry.output),
          ...(entry.error !== undefined ? { error: this.redact(entry.error) } : {}),
        };
      case 'system':
        return { ...entry, message: this.redact(entry.message) };
      default:
        return entry;
    }
  }
}

/** What the model reads instead of an old tool output that was trimmed to save context. */
const TRIMMED_OUTPUT = '[Output trimmed to save context; run the tool again if you need it.]';

/**
 * Batches an interleaved history into alternating messages. The last
 * compaction entry replaces everything before its `upTo` with its note; the
 * last trim entry shortens tool outputs before its mark. Pure; exported for tests.
 */
export function toMessages(history: readonly HistoryEntry[], base = 0): Message[] {
  const read = readEntries(history, base);
  const compaction = findLast(read, 'compaction');
  const trim = findLast(read, 'trim_tool_outputs');
  const start = compaction?.entry.upTo ?? 0;
  const view = read
    .filter(({ index }) => index >= start)
    .map(({ entry, index }) =>
      trim && index < trim.entry.before && entry.kind === 'tool_result' && entry.output.length > TRIMMED_OUTPUT.length
        ? { ...entry, output: TRIMMED_OUTPUT }
        : entry,
    );
  const messages = batch(view);
  if (!compaction) return messages;
  const note: Message = { role: 'user', content: [{ type: 'text', text: compaction.entry.note }] };
  const first = messages[0];
  if (first?.role === 'user') return [{ role: 'user', content: [...note.content, ...first.content] }, ...messages.slice(1)];
  return [note, ...messages];
}

/** An entry the model still reads, with its index in the whole history. */
interface ReadEntry {
  entry: HistoryEntry;
  index: number;
}

/**
 * The entries the model reads: a rewind drops what came between its
 * checkpoint and itself (rewinds of rewinds included). `history` starts at
 * entry `base` of the whole history.
 */
export function readEntries(history: readonly HistoryEntry[], base = 0): ReadEntry[] {
  const read: ReadEntry[] = [];
  for (const [i, entry] of history.entries()) {
    const index = base + i;
    if (entry.kind !== 'rewind') {
      read.push({ entry, index });
      continue;
    }
    while (read.length > 0 && read.at(-1)!.index >= entry.to) read.pop();
  }
  return read;
}

/**
 * Where the model's view of a history begins, when the entries from `base`
 * on (`window`) are enough to tell: the last compaction still read, when it
 * replaces everything before `base`. Undefined when entries before `base`
 * are needed. Which entries of the window are read does not depend on the
 * entries before it (a rewind only drops entries after its checkpoint),
 * and a trim before `base` cannot change the view (a trim only marks
 * entries before itself).
 */
export function viewStart(base: number, window: readonly HistoryEntry[]): number | undefined {
  if (base === 0) return 0;
  const upTo = findLast(readEntries(window, base), 'compaction')?.entry.upTo;
  return upTo !== undefined && upTo >= base ? upTo : undefined;
}

function findLast<K extends HistoryEntry['kind']>(
  read: readonly ReadEntry[],
  kind: K,
): { entry: Extract<HistoryEntry, { kind: K }>; index: number } | undefined {
  for (let i = read.length - 1; i >= 0; i--) {
    const { entry, index } = read[i]!;
    if (entry.kind === kind) return { entry: entry as Extract<HistoryEntry, { kind: K }>, index };
  }
  return undefined;
}

function batch(history: readonly HistoryEntry[]): Message[] {
  const messages: Message[] = [];
  let assistant: AssistantBlock[] = [];
  let results: ToolResultItem[] = [];
  /** Calls of the last assistant message still waiting for a result, by id. */
  const open = new Map<string, string>();

  const flushAssistant = (): void => {
    if (assistant.length === 0) return;
    messages.push({ role: 'assistant', content: assistant });
    assistant = [];
  };
  const flushResults = (): void => {
    for (const callId of open.keys()) results.push({ callId, content: MISSING_RESULT, isError: true });
    open.clear();
    if (results.length === 0) return;
    messages.push({ role: 'tool_results', results });
    results = [];
  };

  for (const entry of history) {
    switch (entry.kind) {
      case 'user':
        flushAssistant();
        flushResults();
        messages.push({ role: 'user', content: entry.content });
        break;
      case 'assistant_text':
      case 'thinking':
      case 'redacted_thinking':
      case 'tool_call':
        if (results.length > 0) {
          flushAssistant();
          flushResults();
        }
        assistant.push(toAssistantBlock(entry));
        if (entry.kind === 'tool_call') open.set(entry.id, entry.name);
        break;
      case 'tool_result':
        // A result without its call (e.g. a call dropped from an errored response) is not sent.
        if (!open.delete(entry.callId)) break;
        flushAssistant();
        results.push({
          callId: entry.callId,
          content: resultText(entry),
          isError: entry.status !== 'success',
          ...(entry.images?.length ? { images: entry.images } : {}),
        });
        break;
      case 'system':
      case 'compaction':
      case 'trim_tool_outputs':
      case 'rewind':
        break;
    }
  }
  flushAssistant();
  flushResults();
  return messages;
}

type AssistantEntry = Extract<HistoryEntry, { kind: 'assistant_text' | 'thinking' | 'redacted_thinking' | 'tool_call' }>;

function toAssistantBlock(entry: AssistantEntry): AssistantBlock {
  switch (entry.kind) {
    case 'assistant_text':
      return { type: 'text', text: entry.text };
    case 'thinking':
      return entry.signature !== undefined
        ? { type: 'thinking', text: entry.text, signature: entry.signature }
        : { type: 'thinking', text: entry.text };
    case 'redacted_thinking':
      return { type: 'redacted_thinking', data: entry.data };
    case 'tool_call':
      return { type: 'tool_call', id: entry.id, name: entry.name, arguments: entry.arguments };
  }
}

function resultText(entry: Extract<HistoryEntry, { kind: 'tool_result' }>): string {
  if (entry.status === 'success') return entry.output;
  const label = entry.status === 'cancelled' ? 'Cancelled' : 'Error';
  const reason = entry.error ?? 'no reason given';
  return entry.output ? `${label}: ${reason}\n\n${entry.output}` : `${label}: ${reason}`;
}
