/**
 * What a stored session's `meta.json` holds, and how it is read and
 * written: everything about a session but its histories and spans. It is
 * read only as a regular file, without following a link or waiting on a
 * FIFO, and written whole (a new file renamed over the old), skipped when
 * nothing but its time would change.
 */
import { closeSync, existsSync, fstatSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PRIVATE_FILE_MODE } from '../config/paths';
import { openWithoutFollowing } from '../config/private-files';
import type { TodoItem } from '../tools/todos';
import type { ACPSession, Interruption, SessionRole, ThoughtLevel } from './acp-session';
import type { ArtifactRecord } from './artifact-log';
import type { HistoryMark } from './history-file';
import type { SessionTotals } from './session-totals';

/** One internal agent's history within a stored session, with its links. */
export interface InternalMeta {
  id: string;
  role: SessionRole;
  agentName: string;
  createdAt: number;
  /** The ACP session id (every internal session's parent). */
  parentId: string;
  /** The other internal sessions of the same ACP session. */
  siblingIds: string[];
  /** How far the history file went at the last save (absent in sessions stored before it was kept). */
  mark?: HistoryMark;
}

/** What `meta.json` holds: everything about a session but its histories and spans. */
export interface SessionMeta {
  id: string;
  agentName: string;
  cwd: string;
  title: string;
  createdAt: number;
  updatedAt: number;
  models: Partial<Record<SessionRole, string>>;
  thoughtLevel?: ThoughtLevel;
  interruption?: Interruption;
  /** For a subagent's session: the internal session and task call that started it. */
  parent?: { sessionId: string; callId: string; agent: string };
  todos: TodoItem[];
  /** The spec-driven feature folder the session works on (workspace-relative), set by the /speckit.* commands. */
  feature?: string;
  /** What each command wrote, oldest first. */
  artifacts?: ArtifactRecord[];
  internal: InternalMeta[];
  /** Tokens and cost so far (see SessionTotals); absent in sessions stored before they were kept. */
  totals?: SessionTotals;
}

export class MetaFiles {
  /** Each meta.json's content as last written here, its time left out. */
  private readonly written = new Map<string, string>();

  /** `id`'s meta.json in the sessions folder `root`, when it is a regular file (never through a link, never waiting on a FIFO) holding JSON. */
  read(root: string, id: string): SessionMeta | undefined {
    let fd: number | undefined;
    try {
      fd = openWithoutFollowing(join(root, id, 'meta.json'));
      return fstatSync(fd).isFile() ? (JSON.parse(readFileSync(fd, 'utf8')) as SessionMeta) : undefined;
    } catch {
      return undefined;
    } finally {
      if (fd !== undefined) closeSync(fd);
    }
  }

  /** Writes `session`'s meta.json in its `folder` whole (a new file renamed over the old), unless only its time would change. */
  write(folder: string, session: ACPSession, totals?: SessionTotals, markOf?: (internalId: string) => HistoryMark | undefined): void {
    const internals = session.internalSessions();
    const ids = internals.map(({ session: s }) => s.id);
    const meta: SessionMeta = {
      id: session.id,
      agentName: session.agentName,
      cwd: session.cwd,
      title: session.redactor.text(session.title),
      createdAt: session.createdAt,
      updatedAt: Date.now(),
      models: session.models,
      thoughtLevel: session.thoughtLevel,
      ...(session.interruption ? { interruption: session.interruption } : {}),
      ...(session.parent ? { parent: { sessionId: session.parent.sessionId, callId: session.parent.callId, agent: session.parent.agent } } : {}),
      todos: session.todos.list(),
      ...(session.artifacts.feature !== undefined ? { feature: session.artifacts.feature } : {}),
      ...(session.artifacts.list().length > 0 ? { artifacts: session.artifacts.list() } : {}),
      internal: internals.map(({ role, session: s }) => ({
        id: s.id,
        role,
        agentName: s.agentName,
        createdAt: s.createdAt,
        parentId: session.id,
        siblingIds: ids.filter((other) => other !== s.id),
        ...withMark(markOf?.(s.id)),
      })),
      ...(totals ? { totals } : {}),
    };
    const file = join(folder, 'meta.json');
    // A save that changes nothing but the time is skipped: replacing the file costs a flush (ms on a busy disk), and saves come in pairs.
    const content = JSON.stringify({ ...meta, updatedAt: undefined });
    if (this.written.get(file) === content && existsSync(file)) return;
    writeFileSync(`${file}.tmp`, JSON.stringify(meta, null, 2), { mode: PRIVATE_FILE_MODE });
    renameSync(`${file}.tmp`, file);
    this.written.set(file, content);
  }

  /** Forgets what was last written in `folder` (the session is closed or deleted): the next write writes. */
  forget(folder: string): void {
    this.written.delete(join(folder, 'meta.json'));
  }
}

function withMark(mark: HistoryMark | undefined): { mark?: HistoryMark } {
  return mark ? { mark } : {};
}
