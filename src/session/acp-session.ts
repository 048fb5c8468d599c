import { randomUUID } from 'node:crypto';
import { PermissionGate } from '../tools/permissions';
import { DEFAULT_POLICY } from '../vocabulary/permission-types';
import type { UndoRecorder } from '../tools/undo-recorder';
import { EventLog } from './event-log';
import type { Span } from '../telemetry/span';
import { Redactor } from '../telemetry/redact';
import { TraceRecorder } from '../telemetry/trace-recorder';
import type { SavedOutputs } from '../tools/saved-outputs';
import type { Hooks } from '../tools/hooks';
import type { SubagentLauncher } from '../tools/tool';
import type { Budget } from '../vocabulary/budget';
import type { Steering } from './steering';
import { CallStops } from './call-stops';
import type { Checkpoints } from './checkpoints';
import { TodoStore } from '../tools/todos';
import { ArtifactLog } from './artifact-log';
import { InternalSession } from './internal-session';

/** How much the primary model may think (a thinking budget), where it can. */
export type ThoughtLevel = 'off' | 'low' | 'medium' | 'high';

/** Which part an internal agent plays in a composition. */
export type SessionRole = 'primary' | 'coagent';

/** Where a user cancel caught the run, so the next prompt can say so. */
export interface Interruption {
  agent: string;
  role: SessionRole;
  at: number;
}

/**
 * The one session a client sees. It wraps an InternalSession per role (each
 * agent keeps its own history) and holds what the agents share: the todo
 * list, the permission gate with its remembered answers, undo recording.
 */
export class ACPSession {
  readonly id: string;
  readonly cwd: string;
  readonly createdAt: number;
  readonly todos: TodoStore;
  readonly permissions: PermissionGate;
  readonly undo: UndoRecorder | undefined;
  /** Every prompt of the session is a trace here; sinks persist or export the spans. */
  readonly trace: TraceRecorder;
  /** Knows the secrets in play: tool outputs, system messages, spans and stored entries pass it. */
  private redactorValue: Redactor;
  /** What commands wrote (e.g. /speckit.plan's plan.md) and the spec-driven feature the session works on. */
  readonly artifacts: ArtifactLog;
  /** What the front doors showed of the session's prompts: a resumed session is shown again from it. */
  readonly events: EventLog;
  /** The composition (ACP agent) currently selected: the session's mode. */
  agentName: string;
  /** Set when the last run was cancelled; cleared when the next run starts. */
  interruption: Interruption | undefined;
  /** A short human title, usually the first prompt's first line. */
  title = '';
  /** The model each role runs on, when the user picked one. */
  models: Partial<Record<SessionRole, string>> = {};
  /** The thinking level the user picked (ACP thought_level option); undefined: the settings' thinking_budget decides. */
  thoughtLevel: ThoughtLevel | undefined;
  /** 0 for a session a person drives; a subagent's session is one deeper than its parent's. */
  depth = 0;
  /** Runs subagents for the task tool of this session's agents. */
  subagents: SubagentLauncher | undefined;
  /** The running prompt's spending limits (a subagent's session shares its parent's); none: unlimited. */
  budget: Budget | undefined;
  /** Messages the person sent while the running prompt works; only the agents the person talks to take them (not subagents). */
  steering: Steering | undefined;
  /** The tool calls running now, each stoppable on its own. */
  readonly calls = new CallStops();
  /** Gives checkpoints while a prompt runs (the agents the person talks to only, not subagents). */
  checkpoints: Checkpoints | undefined;
  /** The user's hooks while a prompt runs (a subagent's session shares its parent's): its tool calls go through them. */
  hooks: Hooks | undefined;
  /** Where tool outputs clipped for the model are kept whole; set while the session is stored (SessionStore.attach). */
  outputs: SavedOutputs | undefined;
  /** For a subagent's session: who started it, and the span its work hangs below. */
  parent: { sessionId: string; callId: string; agent: string; span?: Span } | undefined;
  /** By `role:agentName`: switching compositions keeps each agent's history. */
  private readonly internal = new Map<string, InternalSession>();
  private readonly created = new Set<(role: SessionRole, session: InternalSession) => void>();

  constructor(options: {
    cwd: string;
    agentName: string;
    id?: string;
    createdAt?: number;
    permissions?: PermissionGate;
    todos?: TodoStore;
    undo?: UndoRecorder;
    trace?: TraceRecorder;
    redactor?: Redactor;
    artifacts?: ArtifactLog;
    events?: EventLog;
  }) {
    this.id = options.id ?? randomUUID();
    this.cwd = options.cwd;
    this.agentName = options.agentName;
    this.createdAt = options.createdAt ?? Date.now();
    this.todos = options.todos ?? new TodoStore();
    this.permissions = options.permissions ?? new PermissionGate({ policy: DEFAULT_POLICY });
    this.undo = options.undo;
    this.redactorValue = options.redactor ?? new Redactor();
    this.trace = options.trace ?? new TraceRecorder([], this.redactorValue);
    this.artifacts = options.artifacts ?? new ArtifactLog();
    this.events = options.events ?? new EventLog();
  }

  get redactor(): Redactor {
    return this.redactorValue;
  }

  /** Redacts with `redactor` from now on (one that knows keys set since the session opened), in spans and histories alike. */
  useRedactor(redactor: Redactor): void {
    this.redactorValue = redactor;
    this.trace.useRedactor(redactor);
    for (const internal of this.internal.values()) internal.redactWith((text) => redactor.text(text));
  }

  /**
   * The history of `agentName` playing `role`, created on first use.
   * Compositions that share a primary agent share its history, so a mode
   * switch continues the same conversation.
   */
  sessionFor(role: SessionRole, agentName: string): InternalSession {
    const key = `${role}:${agentName}`;
    let session = this.internal.get(key);
    if (!session) {
      session = new InternalSession(agentName);
      session.redactWith((text) => this.redactorValue.text(text));
      this.internal.set(key, session);
      for (const listener of this.created) listener(role, session);
    }
    return session;
  }

  /** Puts back an internal session read from the store. */
  adopt(role: SessionRole, session: InternalSession): void {
    session.redactWith((text) => this.redactorValue.text(text));
    this.internal.set(`${role}:${session.agentName}`, session);
    for (const listener of this.created) listener(role, session);
  }

  /** Tells `listener` about every internal session created or adopted from now on; returns the unsubscribe function. */
  onInternalSession(listener: (role: SessionRole, session: InternalSession) => void): () => void {
    this.created.add(listener);
    return () => this.created.delete(listener);
  }

  /** Every internal session of this ACP session, with its role. */
  internalSessions(): { role: SessionRole; session: InternalSession }[] {
    return [...this.internal].map(([key, session]) => ({ role: key.split(':', 1)[0] as SessionRole, session }));
  }
}
