import type { SpanRecord } from '../telemetry/span';
import type { InternalMeta, SessionMeta } from './meta-file';
import type { SessionStore } from './session-store';

/**
 * What an export says about a session besides its transcripts (seed 002's
 * session metadata): how it stands, which model worked, what it cost, when
 * it ran, and for a subagent's session whose it is. Read from the stored
 * spans, so it holds for sessions of every door. A subagent's spans live
 * in the trace of the session at the top of its tree, below the task call
 * that started it; they are found there.
 */
export interface SessionMetadata {
  session_id: string;
  title: string;
  /** The composition the session ran (`build`, `crew`, a subagent's name). */
  agent: string;
  primary_agent?: string;
  /**
   * How its last prompt (a subagent: its last run) ended: a run status
   * (`completed`, `needs_input`, `limit`, `budget`, `cancelled`, `error`),
   * `running` while a process records it, `interrupted` when that process
   * died first, `no prompts` before the first.
   */
  status: string;
  /** The primary agent's model, as the provider named it. */
  model?: string;
  /** Every token of its prompts (input, cached input included, and output); a prompt's subagents count in it. */
  tokens: number;
  input_tokens: number;
  output_tokens: number;
  /** From the prices in config.toml; 0 where none are configured. */
  cost_usd: number;
  prompts: number;
  started_at: string;
  /** When its last prompt ended; absent while one runs, or before the first. */
  completed_at?: string;
  /**
   * Who is behind its agent, from the person down (seed 002): `["user",
   * "builder"]` for a session's own primary, `["user", "builder",
   * "code-reviewer"]` for the subagent builder's task call started.
   */
  parent_chain: string[];
  /** A subagent's session: the session whose agent started it, that agent, and the task call. */
  subagent_of?: string;
  parent_agent?: string;
  parent_call_id?: string;
  agents: AgentMetadata[];
  subagents: SessionMetadata[];
}

/** One internal agent of a session: its own model calls only. */
export interface AgentMetadata {
  session_id: string;
  role: string;
  agent_name: string;
  model?: string;
  tokens: number;
  input_tokens: number;
  output_tokens: number;
  cost_usd: number;
  spawned_at: string;
  completed_at?: string;
}

/** The metadata of stored session `id` and, nested, of the subagents it started. */
export function sessionMetadata(store: SessionStore, id: string): SessionMetadata {
  const tree = new SessionTree(store);
  return tree.describe(store.meta(id));
}

/** The stored sessions as a tree, and the spans of the session at each tree's top. */
class SessionTree {
  private readonly metas: SessionMeta[];
  /** The ACP session holding each internal session, by the internal session's id. */
  private readonly owners = new Map<string, SessionMeta>();
  private readonly spans = new Map<string, SpanRecord[]>();

  constructor(private readonly store: SessionStore) {
    this.metas = store.list();
    for (const meta of this.metas) for (const internal of meta.internal) this.owners.set(internal.id, meta);
  }

  describe(meta: SessionMeta): SessionMetadata {
    const top = this.top(meta);
    const spans = this.spansOf(top.id);
    const parent = meta.parent ? this.owners.get(meta.parent.sessionId) : undefined;
    const runs = meta.parent ? subagentRuns(spans, meta.parent) : spans.filter((s) => s.kind === 'prompt' && s.parentSpanId === undefined);
    const last = runs.at(-1);
    const totals = sumUsage(runs);
    const agents = meta.internal.map((internal) => agentMetadata(internal, spans, meta));
    const primary = agents.find((a) => a.role === 'primary');
    const model = meta.models.primary ?? primary?.model;
    return {
      session_id: meta.id,
      title: meta.title,
      agent: meta.agentName,
      ...(primary ? { primary_agent: primary.agent_name } : {}),
      status: this.status(top.id, last),
      ...(model !== undefined ? { model } : {}),
      ...totals,
      prompts: runs.length,
      started_at: iso(meta.createdAt),
      ...(last?.end !== undefined ? { completed_at: iso(last.end) } : {}),
      parent_chain: this.chain(meta, primary?.agent_name ?? meta.agentName),
      ...(meta.parent ? { subagent_of: parent?.id ?? meta.parent.sessionId, parent_agent: meta.parent.agent, parent_call_id: meta.parent.callId } : {}),
      agents,
      subagents: this.children(meta).map((child) => this.describe(child)),
    };
  }

  /** The agents from the person down to `agent` of `meta`: each caller above a subagent's session, by the task calls that started them. */
  private chain(meta: SessionMeta, agent: string): string[] {
    const callers: string[] = [];
    const seen = new Set<string>();
    for (let at: SessionMeta | undefined = meta; at?.parent && !seen.has(at.id); at = this.owners.get(at.parent.sessionId)) {
      seen.add(at.id);
      callers.unshift(at.parent.agent);
    }
    return ['user', ...callers, meta.parent ? meta.agentName : agent];
  }

  /** The stored sessions of subagents started by `meta`'s agents, oldest first. */
  children(meta: SessionMeta): SessionMeta[] {
    const ids = new Set(meta.internal.map((m) => m.id));
    return this.metas.filter((m) => m.parent !== undefined && ids.has(m.parent.sessionId)).sort((a, b) => a.createdAt - b.createdAt);
  }

  private status(topId: string, last: SpanRecord | undefined): string {
    if (last === undefined) return 'no prompts';
    if (last.end === undefined) return this.store.isRecording(topId) ? 'running' : 'interrupted';
    const status = last.attributes['crow.run.status'];
    return typeof status === 'string' ? status : last.status ?? 'completed';
  }

  /** The session at the top of `meta`'s tree: the one whose trace holds its spans. */
  private top(meta: SessionMeta): SessionMeta {
    const seen = new Set<string>();
    let at = meta;
    while (at.parent && !seen.has(at.id)) {
      seen.add(at.id);
      const owner = this.owners.get(at.parent.sessionId);
      if (!owner) break;
      at = owner;
    }
    return at;
  }

  private spansOf(id: string): SpanRecord[] {
    let spans = this.spans.get(id);
    if (!spans) this.spans.set(id, (spans = this.store.spans(id)));
    return spans;
  }
}

/** The runs of a subagent: the subagent spans below the task call (of the parent's agent) that started it. */
function subagentRuns(spans: readonly SpanRecord[], parent: NonNullable<SessionMeta['parent']>): SpanRecord[] {
  const turns = new Set(spans.filter((s) => s.kind === 'agent_turn' && s.sessionId === parent.sessionId).map((s) => s.spanId));
  const call = spans.find((s) => s.kind === 'tool' && s.parentSpanId !== undefined && turns.has(s.parentSpanId) && s.attributes['gen_ai.tool.call.id'] === parent.callId);
  return call ? spans.filter((s) => s.kind === 'subagent' && s.parentSpanId === call.spanId) : [];
}

function agentMetadata(internal: InternalMeta, spans: readonly SpanRecord[], meta: SessionMeta): AgentMetadata {
  const turns = spans.filter((s) => s.kind === 'agent_turn' && s.sessionId === internal.id);
  const turnIds = new Set(turns.map((t) => t.spanId));
  const calls = spans.filter((s) => s.kind === 'llm_call' && s.parentSpanId !== undefined && turnIds.has(s.parentSpanId));
  const lastCall = calls.at(-1)?.attributes;
  const model = lastCall?.['gen_ai.response.model'] ?? lastCall?.['gen_ai.request.model'] ?? meta.models[internal.role];
  const ended = turns.filter((t) => t.end !== undefined).at(-1);
  const usage = sumUsage(turns);
  return {
    session_id: internal.id,
    role: internal.role,
    agent_name: internal.agentName,
    ...(typeof model === 'string' ? { model } : {}),
    ...usage,
    cost_usd: round(calls.reduce((sum, c) => sum + number(c, 'crow.cost_usd'), 0)),
    spawned_at: iso(internal.createdAt),
    ...(ended?.end !== undefined ? { completed_at: iso(ended.end) } : {}),
  };
}

function sumUsage(spans: readonly SpanRecord[]): Pick<SessionMetadata, 'tokens' | 'input_tokens' | 'output_tokens' | 'cost_usd'> {
  const input = spans.reduce((sum, s) => sum + number(s, 'gen_ai.usage.input_tokens'), 0);
  const output = spans.reduce((sum, s) => sum + number(s, 'gen_ai.usage.output_tokens'), 0);
  const cost = spans.reduce((sum, s) => sum + number(s, 'crow.cost_usd'), 0);
  return { tokens: input + output, input_tokens: input, output_tokens: output, cost_usd: round(cost) };
}

function number(span: SpanRecord, key: string): number {
  const value = span.attributes[key];
  return typeof value === 'number' && Number.isFinite(value) ? value : 0;
}

/** Dollars to a millionth: enough for a token's price, without float noise in the file. */
function round(usd: number): number {
  return Math.round(usd * 1e6) / 1e6;
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}
