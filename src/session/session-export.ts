import { chmod, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from '../config/paths';
import { Redactor } from '../telemetry/redact';
import { ConfinedFolder } from '../tools/confined-folder';
import type { HistoryEntry } from './history';
import type { InternalMeta, SessionMeta } from './meta-file';
import type { SessionStore } from './session-store';
import { type AgentMetadata, type SessionMetadata, sessionMetadata } from './session-metadata';

/** Longest tool output shown in a markdown transcript; the JSON export keeps everything. */
const MAX_OUTPUT_CHARS = 4_000;

/**
 * Writes a session as markdown (seed 002's layout): `session.md` for the
 * session with [[wikilinks]] to one transcript per internal agent, each with
 * YAML frontmatter linking back to its parent and siblings. Subagents' sessions
 * are written alongside, each linked from the task call that started it and
 * linking back to that transcript with `parent:`. Each note's frontmatter
 * carries its metadata (status, model, tokens, cost, when it started and
 * completed, `subagent_of`), and `metadata.json` holds all of it for the
 * session and its subagents (see SessionMetadata). Returns the folder.
 *
 * The out folder is often the workspace, where a command may have planted
 * links under the names an export uses: nothing below `outDir` is reached
 * through a link (a ConfinedFolder that never follows one).
 */
export async function exportMarkdown(store: SessionStore, id: string, outDir: string, redactor = new Redactor()): Promise<string> {
  const meta = store.meta(id);
  const name = `${isoDate(meta.createdAt)}-${slug(meta.title || meta.id)}`;
  const metadata = sessionMetadata(store, id);
  const notes = new Map<string, string>();
  writeSession({ store, notes, redactor, children: childrenByParent(store), metadata: byId(metadata) }, meta, 'session');
  // The out folder itself is the person's choice, reached as they named it.
  await mkdir(outDir, { recursive: true });
  const out = new ConfinedFolder(outDir, 'never');
  const made = (await out.kind(name)) === 'absent';
  await out.makeFolders(name);
  if (made) await chmod(join(outDir, name), PRIVATE_DIR_MODE);
  for (const [note, text] of notes) await out.writeFile(`${name}/${note}.md`, text, { mode: PRIVATE_FILE_MODE });
  await out.writeFile(`${name}/metadata.json`, `${JSON.stringify(redactor.value(metadata), null, 2)}\n`, { mode: PRIVATE_FILE_MODE });
  return join(outDir, name);
}

/** Every session of a metadata tree by its id. */
function byId(metadata: SessionMetadata, into = new Map<string, SessionMetadata>()): Map<string, SessionMetadata> {
  into.set(metadata.session_id, metadata);
  for (const child of metadata.subagents) byId(child, into);
  return into;
}

interface ExportScope {
  store: SessionStore;
  /** The notes to write, by name (without .md), their text redacted. */
  notes: Map<string, string>;
  redactor: Redactor;
  /** Stored subagent sessions by the internal session that started them. */
  children: Map<string, SessionMeta[]>;
  metadata: Map<string, SessionMetadata>;
}

/** Adds one session's notes under `name`, its subagents' below it; `parent` links a subagent's notes to its parent transcript. */
function writeSession(scope: ExportScope, meta: SessionMeta, name: string, parent?: string): void {
  const write = (note: string, text: string): void => void scope.notes.set(note, scope.redactor.text(text));
  const names = noteNames(meta.internal, name === 'session' ? '' : `${name}-`);
  const histories = scope.store.histories(meta.id);
  const subagents = new Map<string, string>();
  for (const internal of meta.internal) {
    for (const child of scope.children.get(internal.id) ?? []) {
      const childName = `${name === 'session' ? '' : `${name}-`}subagent-${slug(child.agentName)}-${child.id.slice(0, 8)}`;
      subagents.set(child.parent!.callId, childName);
      writeSession(scope, child, childName, names.get(internal.id));
    }
  }
  const metadata = scope.metadata.get(meta.id);
  write(name, sessionNote(meta, names, [...subagents.values()], parent, metadata));
  for (const internal of meta.internal) {
    const agent = metadata?.agents.find((a) => a.session_id === internal.id);
    write(names.get(internal.id)!, transcriptNote(meta, internal, histories.get(internal.id) ?? [], names, name, subagents, agent));
  }
}

/** The stored sessions of subagents, by the id of the internal session whose task call started each. */
function childrenByParent(store: SessionStore): Map<string, SessionMeta[]> {
  const children = new Map<string, SessionMeta[]>();
  for (const meta of store.list()) {
    if (!meta.parent) continue;
    children.set(meta.parent.sessionId, [...(children.get(meta.parent.sessionId) ?? []), meta]);
  }
  return children;
}

/**
 * One internal agent's transcript (seed 003's "internal trace"): the note
 * the markdown export writes for it, its frontmatter with its parent,
 * siblings, model and tokens, then every message and tool call, redacted.
 * `internalId` is the internal session's id; throws when no stored session
 * holds it.
 */
export function internalTranscript(store: SessionStore, internalId: string, redactor = new Redactor()): string {
  const meta = store.list().find((candidate) => candidate.internal.some((internal) => internal.id === internalId));
  if (!meta) throw new Error(`No stored session has an internal session ${internalId} (crow telemetry external-trace ID lists a session's).`);
  const scope: ExportScope = { store, notes: new Map(), redactor, children: childrenByParent(store), metadata: byId(sessionMetadata(store, meta.id)) };
  writeSession(scope, meta, 'session');
  return scope.notes.get(noteNames(meta.internal, '').get(internalId)!)!;
}

/** Everything stored about a session, as one JSON document, secrets redacted; `metadata` as in metadata.json. */
export function exportJson(store: SessionStore, id: string, redactor = new Redactor()): string {
  const meta = store.meta(id);
  const histories = Object.fromEntries(store.histories(id));
  return JSON.stringify(redactor.value({ meta, metadata: sessionMetadata(store, id), histories, spans: store.spans(id) }), null, 2);
}

/** Seed 002's frontmatter fields of a session (subagent_of, agent_name and spawned_at for a subagent's). */
function metadataFront(metadata: SessionMetadata | undefined): Record<string, unknown> {
  if (!metadata) return {};
  return {
    ...(metadata.subagent_of !== undefined ? { subagent_of: metadata.subagent_of, agent_name: metadata.agent, spawned_at: metadata.started_at } : {}),
    parent_chain: metadata.parent_chain,
    ...(metadata.primary_agent !== undefined ? { primary_agent: metadata.primary_agent } : {}),
    status: metadata.status,
    ...(metadata.model !== undefined ? { model: metadata.model } : {}),
    tokens: metadata.tokens,
    input_tokens: metadata.input_tokens,
    output_tokens: metadata.output_tokens,
    cost_usd: metadata.cost_usd,
    started_at: metadata.started_at,
    ...(metadata.completed_at !== undefined ? { completed_at: metadata.completed_at } : {}),
  };
}

function agentFront(agent: AgentMetadata | undefined): Record<string, unknown> {
  if (!agent) return {};
  return {
    ...(agent.model !== undefined ? { model: agent.model } : {}),
    tokens: agent.tokens,
    input_tokens: agent.input_tokens,
    output_tokens: agent.output_tokens,
    cost_usd: agent.cost_usd,
    ...(agent.completed_at !== undefined ? { completed_at: agent.completed_at } : {}),
  };
}

function sessionNote(meta: SessionMeta, names: Map<string, string>, subagents: string[], parent: string | undefined, metadata: SessionMetadata | undefined): string {
  const front = {
    session_id: meta.id,
    title: meta.title,
    agent: meta.agentName,
    cwd: meta.cwd,
    ...(parent !== undefined ? { parent: `[[${parent}]]` } : {}),
    ...metadataFront(metadata),
    created_at: new Date(meta.createdAt).toISOString(),
    updated_at: new Date(meta.updatedAt).toISOString(),
    agents: meta.internal.map((m) => `[[${names.get(m.id)}]]`),
    ...(subagents.length > 0 ? { subagents: subagents.map((child) => `[[${child}]]`) } : {}),
  };
  const lines = meta.internal.map((m) => `- ${m.role}: [[${names.get(m.id)}]] (${m.agentName})`);
  const todos = meta.todos.map((t) => `- [${t.status === 'completed' ? 'x' : ' '}] ${t.content}`);
  const children = subagents.map((child) => `- [[${child}]]`);
  return `---\n${stringify(front)}---\n\n# ${meta.title || meta.id}\n\n## Agents\n${lines.join('\n')}\n${
    children.length > 0 ? `\n## Subagents\n${children.join('\n')}\n` : ''
  }${todos.length > 0 ? `\n## Todo list\n${todos.join('\n')}\n` : ''}`;
}

function transcriptNote(
  meta: SessionMeta,
  internal: InternalMeta,
  history: HistoryEntry[],
  names: Map<string, string>,
  sessionName: string,
  subagents: Map<string, string>,
  agent: AgentMetadata | undefined,
): string {
  const front = {
    session_id: internal.id,
    parent: `[[${sessionName}]]`,
    parent_session_id: meta.id,
    role: internal.role,
    agent: internal.agentName,
    siblings: internal.siblingIds.map((s) => `[[${names.get(s)}]]`),
    started_at: new Date(internal.createdAt).toISOString(),
    ...agentFront(agent),
    entries: history.length,
  };
  const body = history.map((entry) => renderEntry(entry, internal.agentName, subagents)).filter((text) => text !== '');
  return `---\n${stringify(front)}---\n\n# ${internal.agentName} (${internal.role})\n\n${body.join('\n\n')}\n`;
}

function renderEntry(entry: HistoryEntry, agent: string, subagents: Map<string, string>): string {
  switch (entry.kind) {
    case 'user': {
      const text = entry.content.map((b) => (b.type === 'text' ? b.text : `[image ${b.mimeType}]`)).join('\n');
      return `## ${entry.from ? `From ${entry.from}` : 'User'}\n\n${text}`;
    }
    case 'assistant_text':
      return `## ${agent}\n\n${entry.text}`;
    case 'thinking':
      return entry.text ? `> *thinking:* ${entry.text.replace(/\n/g, '\n> ')}` : '';
    case 'redacted_thinking':
      return '> *thinking (redacted by the provider)*';
    case 'tool_call': {
      const child = subagents.get(entry.id);
      return `### → ${entry.name}\n\n\`\`\`json\n${entry.arguments}\n\`\`\`${child !== undefined ? `\n\nSubagent transcript: [[${child}]]` : ''}`;
    }
    case 'tool_result': {
      const text = entry.status === 'success' ? entry.output : `${entry.error ?? ''}\n${entry.output}`.trim();
      const shown = text.length > MAX_OUTPUT_CHARS ? `${text.slice(0, MAX_OUTPUT_CHARS)}\n… (${text.length - MAX_OUTPUT_CHARS} more characters)` : text;
      return `### ← ${entry.name}: ${entry.status} (${entry.metadata.durationMs} ms)\n\n${fence(shown)}`;
    }
    case 'system':
      return `*— ${entry.event}: ${entry.message}*`;
    case 'compaction':
      return `*— compacted: the model now reads this summary instead of the ${entry.upTo} entries above —*\n\n${entry.note}`;
    case 'rewind':
      return `*— rewound: the model no longer reads the entries after entry ${entry.to} above —*`;
    case 'trim_tool_outputs':
      return '';
  }
}

/** Readable, unique note names: the agent name (after `prefix`), with the role when two agents share a name. */
function noteNames(internal: InternalMeta[], prefix: string): Map<string, string> {
  const names = new Map<string, string>();
  const used = new Set<string>(['session']);
  for (const m of internal) {
    let name = `${prefix}${slug(m.agentName)}`;
    if (used.has(name)) name = `${name}-${m.role}`;
    for (let n = 2; used.has(name); n++) name = `${prefix}${slug(m.agentName)}-${n}`;
    used.add(name);
    names.set(m.id, name);
  }
  return names;
}

function fence(text: string): string {
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const ticks = '`'.repeat(longest + 1);
  return `${ticks}\n${text}\n${ticks}`;
}

function slug(text: string): string {
  return text.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 60) || 'session';
}

function isoDate(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}
