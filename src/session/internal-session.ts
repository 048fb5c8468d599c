import { randomUUID } from 'node:crypto';
import type { Message, UserBlock } from '../llm/types';
import type { HistoryEntry } from './history';
import { batchMessages } from './message-batch';

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
  /** Where the model's view begins, once worked out; only a compaction or a rewind appended moves it. */
  private bounds: ViewBounds | undefined;
  private readonly listeners = new Set<(entry: HistoryEntry) => void>();
  /** See callIds. */
  private knownCallIds: Set<string> | undefined;
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
    const { from } = this.viewBounds();
    return { from, entries: this.history.slice(from - this.base) };
  }

  /**
   * The first entry the model's view is made from (see ViewBounds), when
   * that is known without reading anything: the entries in memory are
   * enough to tell. Undefined when the view reaches back before them.
   */
  get knownViewFirst(): number | undefined {
    this.bounds ??= viewBounds(this.base, this.history);
    return this.bounds?.first;
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

  /**
   * The tool call ids in the entries in memory (the model's view and all
   * since), which a new call's id must not repeat. Built on first use, kept
   * up to date by append.
   */
  get callIds(): Set<string> {
    this.knownCallIds ??= new Set(this.history.flatMap((entry) => (entry.kind === 'tool_call' ? [entry.id] : [])));
    return this.knownCallIds;
  }

  append(entry: HistoryEntry): void {
    entry = this.redacted(entry);
    this.history.push(entry);
    if (entry.kind === 'tool_call') this.knownCallIds?.add(entry.id);
    if (entry.kind === 'compaction' || entry.kind === 'rewind') this.bounds = undefined;
    for (const listener of this.listeners) listener(entry);
  }

  /** Adds a user message; `from` marks a handoff from another agent. */
  addUserMessage(content: string | UserBlock[], from?: string): void {
    const blocks = typeof content === 'string' ? [{ type: 'text' as const, text: content }] : content;
    this.append({ kind: 'user', content: blocks, ...(from !== undefined ? { from } : {}), at: Date.now() });
  }

  /** The history as the model reads it; entries not read yet are read only when the view reaches back to them. */
  toMessages(): Message[] {
    const { first } = this.viewBounds();
    // What comes before cannot change the view (see viewStart): the batching starts where the view is made from.
    return toMessages(this.history.slice(first - this.base), first);
  }

  /** Where the model's view begins; entries not read yet are read when it reaches back to them. */
  private viewBounds(): ViewBounds {
    if (this.knownViewFirst === undefined) this.loadAll();
    return (this.bounds ??= viewBounds(0, this.history)!);
  }

  private loadAll(): void {
    if (this.base === 0 || !this.loadEarlier) return;
    const earlier = this.loadEarlier();
    this.history = [...earlier, ...this.history];
    this.knownCallIds = undefined;
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
  const messages = batchMessages(view);
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
  for (let i = 0; i < history.length; i++) {
    const entry = history[i]!;
    if (entry.kind !== 'rewind') {
      read.push({ entry, index: base + i });
      continue;
    }
    while (read.length > 0 && read[read.length - 1]!.index >= entry.to) read.pop();
  }
  return read;
}

/**
 * Where the model's view of a history begins (the cut of the last
 * compaction still read, or 0), when the entries from `base` on (`window`)
 * are enough to tell: the whole history, or a last compaction that replaces
 * everything before `base`. Undefined when entries before `base` are
 * needed. Which entries of the window are read does not depend on the
 * entries before it (a rewind only drops entries after its checkpoint),
 * and a trim before `base` cannot change the view (a trim only marks
 * entries before itself).
 */
export function viewStart(base: number, window: readonly HistoryEntry[]): number | undefined {
  return viewBounds(base, window)?.from;
}

/**
 * Where the model's view begins (`from`), and the first entry it is made
 * from (`first`): `from`, or the compaction that sets it when that comes
 * before its own cut (as no compaction Crow writes does). Messages built
 * from the entries from `first` on are those of the whole history.
 */
export interface ViewBounds {
  from: number;
  first: number;
}

/** The view's bounds, when the entries from `base` on (`window`) are enough to tell (see viewStart). */
export function viewBounds(base: number, window: readonly HistoryEntry[]): ViewBounds | undefined {
  const last = lastRead(window, base, 'compaction');
  if (!last) return base === 0 ? { from: 0, first: 0 } : undefined;
  const from = last.entry.upTo;
  if (base > 0 && !(from >= base)) return undefined;
  // A cut that is no index (a hand-edited file) is compared as it is, so the messages are made from the whole window.
  const first = Number.isSafeInteger(from) ? Math.max(base, Math.min(from, last.index)) : base;
  return { from, first };
}

/**
 * The last entry of `kind` the model still reads, as readEntries would
 * find it, looking from the end: an entry is read unless a rewind after it
 * goes back to it or before (compared as readEntries compares).
 */
function lastRead<K extends HistoryEntry['kind']>(
  history: readonly HistoryEntry[],
  base: number,
  kind: K,
): { entry: Extract<HistoryEntry, { kind: K }>; index: number } | undefined {
  let back = Infinity;
  for (let i = history.length - 1; i >= 0; i--) {
    const entry = history[i]!;
    if (entry.kind === 'rewind') {
      const to = Number(entry.to);
      if (to < back) back = to;
    } else if (entry.kind === kind && !(base + i >= back)) {
      return { entry: entry as Extract<HistoryEntry, { kind: K }>, index: base + i };
    }
  }
  return undefined;
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
