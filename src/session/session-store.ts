import { existsSync, mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { dataHome, PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from '../config/paths';
import { privateFolderProblem } from '../config/private-files';
import type { SpanRecord } from '../telemetry/span';
import type { SpanSink } from '../telemetry/trace-recorder';
import { mergeSpanRecords } from '../telemetry/stored-spans';
import { SavedOutputs } from '../tools/saved-outputs';
import { ACPSession, type SessionRole } from './acp-session';
import { ArtifactLog } from './artifact-log';
import { EventLog, type RecordedEvent } from './event-log';
import { FolderIndex, folderMatcher, isSessionId } from './folder-index';
import type { HistoryEntry } from './history';
import { type HistoryMark, HistoryMarker, historyText, readHistory } from './history-file';
import { InternalSession } from './internal-session';
import { JsonlAppender, readJsonl, readJsonlFrom } from './jsonl';
import { countEndedSpan, emptyTotals, type SessionTotals, storedTotals } from './session-totals';
import { acquireSessionLock, checkSessionFree, liveOwner } from './session-lock';
import { SessionWrites } from './session-writes';
import { MetaFiles, type SessionMeta } from './meta-file';
import { attemptsMeter, isAttemptCall, noteAttemptSession } from './attempt-costs';
import type { Meter } from '../vocabulary/meter';

export interface SessionStoreOptions {
  /** Folder of crow's data; sessions go to `<dataHome>/sessions/<id>/`. Default: dataHome(). */
  dataHome?: string;
  /** Also fsync every entry (durable against power loss, slower). Default: off (durable against crashes). */
  fsync?: boolean;
  /** Told about unreadable lines skipped on load, and about writes of an attached session that failed (see SessionWrites). */
  warn?: (message: string) => void;
}

/** What a session needs from its front door to run again after a load. */
export type SessionDependencies = Pick<ConstructorParameters<typeof ACPSession>[0], 'permissions' | 'undo' | 'trace' | 'redactor'>;

/** A session id that names no stored session (or, as a prefix, several). */
export class UnknownSessionError extends Error {
  override name = 'UnknownSessionError';
}

/**
 * Sessions on disk: `meta.json` (rewritten atomically), one append-only
 * `<internal id>.jsonl` history per internal agent, `events.jsonl` with what
 * the front doors showed (see EventLog), `trace.jsonl` with every
 * span when it starts and again when it ends (see mergeSpanRecords),
 * `outputs/` with tool outputs kept whole for the model (SavedOutputs), and,
 * while a process has the session attached, `writer.json` naming that
 * process: the lock that keeps a second process from writing to the
 * session at the same time (see session-lock.ts). Each history entry is written (write(2)) before the event
 * announcing it is emitted, so a kill -9 loses at most the entry being
 * written, and a torn last line is skipped with a warning on load.
 */
export class SessionStore {
  readonly root: string;
  private readonly fsync: boolean;
  private readonly warn: (message: string) => void;
  /** Totals worked out by this store, by session id: the trace of an old session is read at most once. */
  private readonly known = new Map<string, SessionTotals>();
  /** Each session's meta.json, read and written (see MetaFiles). */
  private readonly metaFiles = new MetaFiles();
  /** Whether the sessions folder was found to be crow's own (see ownRoot). */
  private rootIsOwn = false;
  /** Which sessions belong to which folder, so that listing one folder reads only its sessions (see FolderIndex). */
  private readonly folders: FolderIndex;
  /** Where each loaded history's entries start in its file, for its marks once attached. */
  private readonly offsets = new WeakMap<InternalSession, { first: number; offsets: number[] }>();

  /** Throws, saying what to do, when the sessions folder is there but not crow's own (see ownRoot). */
  constructor(options: SessionStoreOptions = {}) {
    this.root = join(options.dataHome ?? dataHome(), 'sessions');
    this.fsync = options.fsync ?? false;
    this.warn = options.warn ?? (() => undefined);
    this.ownRoot();
    this.folders = new FolderIndex(this.root, join(dirname(this.root), 'sessions-by-folder'), (id) => storedCwd(this.metaFiles.read(this.ownRoot(), id)), this.warn);
  }

  /**
   * Starts persisting `session` (new or loaded): its histories, spans, todos
   * and metadata from now on, until close(), after which nothing more is
   * written. Throws SessionInUseError, having written nothing, when another
   * live process has the session attached. A later write that fails (the
   * folder deleted meanwhile, a full disk) is told through `warn` and never
   * thrown into the agents (see SessionWrites).
   */
  attach(session: ACPSession): { save(): void; close(): void } {
    this.ownRoot(true);
    const folder = this.folderOf(session.id);
    this.folders.adding(session.id, session.cwd, () => mkdirSync(folder, { recursive: true, mode: PRIVATE_DIR_MODE }));
    const lock = acquireSessionLock(folder, session.id);
    const writes = new SessionWrites(folder, session.id, this.warn);
    const { parent } = session;
    if (parent && isAttemptCall(parent.callId) && isSessionId(parent.sessionId)) {
      writes.run('the attempts list', () => noteAttemptSession(this.folderOf(parent.sessionId), session.id));
    }
    session.outputs = new SavedOutputs(join(folder, 'outputs'), (text) => session.redactor.text(text));
    const appenders: JsonlAppender[] = [];
    const marks = new Map<string, () => HistoryMark>();
    const track = (_role: SessionRole, internal: InternalSession): void => {
      const file = join(folder, `${internal.id}.jsonl`);
      const appender = new JsonlAppender(file, this.fsync);
      appenders.push(appender);
      const before = fileSize(file);
      const marker = new HistoryMarker(internal, this.offsets.get(internal));
      this.offsets.delete(internal);
      marks.set(internal.id, () => marker.mark(appender.size ?? before));
      internal.onAppend((entry) => {
        marker.appending(internal.length - 1, appender.size ?? before);
        // What reaches the disk passes the session's redactor whole: user and model text included.
        writes.run(`history of ${internal.agentName}`, () => appender.append(session.redactor.value(entry)));
      });
      save();
    };
    const totals = this.totals(session.id);
    const save = (): void => writes.run('metadata', () => this.metaFiles.write(folder, session, totals, (id) => marks.get(id)?.()));
    const traces = new JsonlAppender(join(folder, 'trace.jsonl'), this.fsync);
    const events = new JsonlAppender(join(folder, 'events.jsonl'), this.fsync);
    appenders.push(traces, events);
    const unsubscribers = [
      session.onInternalSession(track),
      session.todos.onChange(save),
      session.artifacts.onChange(save),
      // Merged deltas are whole here, so a secret split across deltas is redacted too.
      session.events.onRecord((record) => writes.run('visible record', () => events.append(session.redactor.value(record)))),
    ];
    for (const { role, session: internal } of session.internalSessions()) track(role, internal);
    // Starts too, so a viewer following the file shows spans while they run.
    const spans: SpanSink = (record, phase) =>
      writes.run('trace', () => {
        traces.append(record);
        if (phase === 'end') countEndedSpan(totals, record);
        totals.traceBytes = traces.size ?? totals.traceBytes;
        if (phase === 'end' && record.kind === 'prompt') save();
      });
    session.trace.addSink(spans);
    save();
    return {
      save,
      close: () => {
        writes.close();
        session.trace.removeSink(spans);
        for (const unsubscribe of unsubscribers) unsubscribe();
        for (const appender of appenders) appender.close();
        this.metaFiles.forget(folder);
        session.outputs = undefined;
        lock.release();
      },
    };
  }

  /**
   * Stored sessions, newest first; only those of the folder `cwd` when
   * given (stored with that path, or with one that leads to the same
   * folder through links), found through the index of sessions by folder
   * and read from their own meta.json.
   */
  list(filter: { cwd?: string } = {}): SessionMeta[] {
    if (!existsSync(this.ownRoot())) return [];
    const { cwd } = filter;
    const inFolder = cwd === undefined ? () => true : folderMatcher(cwd);
    const metas = (cwd === undefined ? readdirSync(this.root) : this.folders.idsOf(cwd)).flatMap((id) => {
      const meta = this.metaFiles.read(this.ownRoot(), id);
      return meta && inFolder(meta.cwd) ? [meta] : [];
    });
    return metas.sort((a, b) => b.updatedAt - a.updatedAt);
  }

  /** Whether a session `id` is stored (a readable meta.json), without reading any other. */
  has(id: string): boolean {
    return isSessionId(id) && existsSync(this.ownRoot()) && this.metaFiles.read(this.ownRoot(), id) !== undefined;
  }

  /** The stored metadata of one session; throws an UnknownSessionError naming the id when there is none. */
  meta(id: string): SessionMeta {
    const meta = this.metaFiles.read(this.ownRoot(), checkId(id));
    if (!meta) throw new UnknownSessionError(`No stored session "${id}". List them with: crow sessions list`);
    return meta;
  }

  /**
   * The full id of the stored session `given` names: the id itself, or the
   * start of exactly one id (as git takes commit prefixes). Throws an
   * UnknownSessionError when none matches or several do.
   */
  resolve(given: string): string {
    const wanted = given.trim();
    if (wanted !== '' && /^[A-Za-z0-9_-]+$/.test(wanted) && this.metaFiles.read(this.ownRoot(), wanted)) return wanted;
    const matches = wanted === '' || !existsSync(this.ownRoot()) ? [] : readdirSync(this.root).filter((id) => id.startsWith(wanted) && this.metaFiles.read(this.ownRoot(), id));
    if (matches.length === 1) return matches[0]!;
    if (matches.length === 0) throw new UnknownSessionError(`No stored session "${given}". List them with: crow sessions list --all`);
    throw new UnknownSessionError(`"${given}" is the start of ${matches.length} sessions (${matches.slice(0, 5).join(', ')}${matches.length > 5 ? ', …' : ''}): give more of the id.`);
  }

  /** The full history of every internal agent of a session, by internal id. */
  histories(id: string): Map<string, HistoryEntry[]> {
    const meta = this.meta(id);
    return new Map(meta.internal.map((m) => [m.id, readJsonl<HistoryEntry>(join(this.folderOf(id), `${m.id}.jsonl`), this.warn)]));
  }

  /** What the front doors showed of the session, oldest first; empty for a session stored before events were. */
  events(id: string): RecordedEvent[] {
    this.meta(id);
    return readJsonl<RecordedEvent>(join(this.folderOf(id), 'events.jsonl'), this.warn);
  }

  /** The session's spans, one record each (the ended one once a span ended), in start order of the file. */
  spans(id: string): SpanRecord[] {
    this.meta(id);
    return mergeSpanRecords(readJsonl<SpanRecord>(this.traceFile(id), this.warn));
  }

  /**
   * The session's tokens and cost so far, overall and per agent: the totals
   * stored in meta.json plus whatever the trace holds past them; for a
   * session stored without totals, summed from its whole trace (once: they
   * are stored from its next save on). A session with no trace has none.
   */
  totals(id: string): SessionTotals {
    const known = this.known.get(id);
    if (known) return known;
    const stored = storedTotals(this.metaFiles.read(this.ownRoot(), checkId(id))?.totals);
    const totals = stored ?? emptyTotals();
    let tail = readJsonlFrom<SpanRecord>(this.traceFile(id), totals.traceBytes, this.warn);
    if (tail.size < totals.traceBytes) {
      // The trace is shorter than the totals say (replaced or cut): count it again from the start.
      Object.assign(totals, emptyTotals());
      tail = readJsonlFrom<SpanRecord>(this.traceFile(id), 0, this.warn);
    }
    for (const record of tail.values) countEndedSpan(totals, record);
    totals.traceBytes = tail.size;
    this.known.set(id, totals);
    return totals;
  }

  /** What the parallel attempts session `id` ran, and their judges, cost (their sessions are stored apart, see attempt-costs.ts). */
  attemptsMeter(id: string): Meter {
    return attemptsMeter(this.folderOf(checkId(id)), (child) => this.totals(child));
  }

  /** The append-only file of span start and end records, for following a running session. */
  traceFile(id: string): string {
    return join(this.folderOf(id), 'trace.jsonl');
  }

  /**
   * Whether a live process has the session attached now, so its spans that
   * have not ended are running rather than left unfinished by a process that
   * died. A writer on another host cannot be checked and counts as live.
   */
  isRecording(id: string): boolean {
    return liveOwner(this.folderOf(id)) !== undefined;
  }

  /**
   * Rebuilds a session to continue it (same id, same agents, same
   * histories); call attach() to keep storing it. A history is read from
   * where the model's view of it begins (its last compaction); the entries
   * before are read when something asks for them (see InternalSession).
   */
  load(id: string, dependencies: SessionDependencies = {}): ACPSession {
    const meta = this.meta(id);
    const session = new ACPSession({
      id: meta.id,
      cwd: meta.cwd,
      agentName: meta.agentName,
      createdAt: meta.createdAt,
      artifacts: new ArtifactLog({ records: meta.artifacts ?? [], ...(meta.feature !== undefined ? { feature: meta.feature } : {}) }),
      // Read when first shown: a prompt sent to a resumed session does not need them.
      events: new EventLog(() => this.events(id)),
      ...dependencies,
    });
    session.title = meta.title;
    session.models = { ...meta.models };
    session.thoughtLevel = meta.thoughtLevel;
    session.interruption = meta.interruption;
    session.todos.replace(meta.todos);
    for (const internal of meta.internal) {
      const { offsets, ...loaded } = readHistory(join(this.folderOf(id), `${internal.id}.jsonl`), internal.mark, this.warn);
      const history = new InternalSession(internal.agentName, { id: internal.id, createdAt: internal.createdAt, ...loaded });
      this.offsets.set(history, { first: loaded.earlier?.count ?? 0, offsets });
      session.adopt(internal.role, history);
    }
    return session;
  }

  /**
   * Stores a session made in memory (a fork of another): its histories and
   * visible record written whole, then its metadata. Refuses an id that is
   * stored already; the session is not attached (attach() to go on with it).
   */
  create(session: ACPSession): void {
    this.ownRoot(true);
    const folder = this.folderOf(session.id);
    if (existsSync(folder)) throw new Error(`A session ${session.id} is stored already.`);
    this.folders.adding(session.id, session.cwd, () => mkdirSync(folder, { recursive: true, mode: PRIVATE_DIR_MODE }));
    const lines = (values: readonly unknown[]): string => values.map((value) => `${JSON.stringify(session.redactor.value(value))}\n`).join('');
    const marks = new Map<string, HistoryMark>();
    for (const { session: internal } of session.internalSessions()) {
      const { text, mark } = historyText(internal, (entry) => lines([entry]));
      writeFileSync(join(folder, `${internal.id}.jsonl`), text, { mode: PRIVATE_FILE_MODE });
      marks.set(internal.id, mark);
    }
    writeFileSync(join(folder, 'events.jsonl'), lines(session.events.list()), { mode: PRIVATE_FILE_MODE });
    this.metaFiles.write(this.folderOf(session.id), session, undefined, (id) => marks.get(id));
  }

  /**
   * Removes a stored session. Throws an UnknownSessionError when there is
   * none, and a SessionInUseError, removing nothing, while another live
   * process has it attached (its prompt would go on writing into a folder
   * that is gone): that process closes it first.
   */
  delete(id: string): void {
    this.meta(id);
    checkSessionFree(this.folderOf(id), id);
    this.known.delete(id);
    this.metaFiles.forget(this.folderOf(id));
    const cwd = storedCwd(this.metaFiles.read(this.ownRoot(), id));
    const remove = (): void => rmSync(this.folderOf(id), { recursive: true, force: true });
    if (cwd === undefined) remove();
    else this.folders.removing(id, cwd, remove);
  }

  private folderOf(id: string): string {
    return join(this.ownRoot(), checkId(id));
  }

  /**
   * The sessions folder, once it is found to be crow's own (see
   * config/private-files.ts): sessions hold what the model is shown again,
   * so none is read from or written to a folder another user could change.
   * Made first when `create`. Throws saying what to do otherwise.
   */
  private ownRoot(create = false): string {
    if (this.rootIsOwn) return this.root;
    const problem = privateFolderProblem(this.root, { create });
    if (problem !== undefined) {
      throw new Error(`Sessions are never kept where another user could change them: ${problem}. Set XDG_DATA_HOME to a folder of your own, or make this one yours alone (chmod 700).`);
    }
    this.rootIsOwn = existsSync(this.root);
    return this.root;
  }

  /** A session's meta.json when it is a regular file: never read through a link, never waited on (a FIFO would hang every listing). */
}

/** The folder a stored session says it belongs to, when its meta.json says so as a path. */
function storedCwd(meta: SessionMeta | undefined): string | undefined {
  return typeof meta?.cwd === 'string' && meta.cwd !== '' ? meta.cwd : undefined;
}

/** Bytes in `file`; 0 when there is none. */
function fileSize(file: string): number {
  try {
    return statSync(file).size;
  } catch {
    return 0;
  }
}

/** Session ids name folders: nothing that could leave the sessions folder. */
function checkId(id: string): string {
  if (!/^[A-Za-z0-9_-]{1,100}$/.test(id)) throw new UnknownSessionError(`"${id}" is not a session id (see crow sessions list).`);
  return id;
}
