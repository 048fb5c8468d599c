import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from '../config/paths';
import { Redactor } from '../telemetry/redact';
import type { HistoryEntry } from './history';
import type { InternalMeta, SessionMeta, SessionStore } from './session-store';

/** Longest tool output shown in a markdown transcript; the JSON export keeps everything. */
const MAX_OUTPUT_CHARS = 4_000;

/**
 * Writes a session as markdown (seed 002's layout): `session.md` for the
 * session with [[wikilinks]] to one transcript per internal agent, each with
 * YAML frontmatter linking back to its parent and siblings. Returns the folder.
 */
export function exportMarkdown(store: SessionStore, id: string, outDir: string, redactor = new Redactor()): string {
  const meta = store.meta(id);
  const histories = store.histories(id);
  const folder = join(outDir, `${isoDate(meta.createdAt)}-${slug(meta.title || meta.id)}`);
  mkdirSync(folder, { recursive: true, mode: PRIVATE_DIR_MODE });
  const names = noteNames(meta.internal);
  writeFileSync(join(folder, 'session.md'), redactor.text(sessionNote(meta, names)), { mode: PRIVATE_FILE_MODE });
  for (const internal of meta.internal) {
    const note = transcriptNote(meta, internal, histories.get(internal.id) ?? [], names);
    writeFileSync(join(folder, `${names.get(internal.id)}.md`), redactor.text(note), { mode: PRIVATE_FILE_MODE });
  }
  return folder;
}

/** Everything stored about a session, as one JSON document, secrets redacted. */
export function exportJson(store: SessionStore, id: string, redactor = new Redactor()): string {
  const meta = store.meta(id);
  const histories = Object.fromEntries(store.histories(id));
  return JSON.stringify(redactor.value({ meta, histories, spans: store.spans(id) }), null, 2);
}

function sessionNote(meta: SessionMeta, names: Map<string, string>): string {
  const front = {
    session_id: meta.id,
    title: meta.title,
    agent: meta.agentName,
    cwd: meta.cwd,
    created_at: new Date(meta.createdAt).toISOString(),
    updated_at: new Date(meta.updatedAt).toISOString(),
    agents: meta.internal.map((m) => `[[${names.get(m.id)}]]`),
  };
  const lines = meta.internal.map((m) => `- ${m.role}: [[${names.get(m.id)}]] (${m.agentName})`);
  const todos = meta.todos.map((t) => `- [${t.status === 'completed' ? 'x' : ' '}] ${t.content}`);
  return `---\n${stringify(front)}---\n\n# ${meta.title || meta.id}\n\n## Agents\n${lines.join('\n')}\n${
    todos.length > 0 ? `\n## Todo list\n${todos.join('\n')}\n` : ''
  }`;
}

function transcriptNote(meta: SessionMeta, internal: InternalMeta, history: HistoryEntry[], names: Map<string, string>): string {
  const front = {
    session_id: internal.id,
    parent: `[[session]]`,
    parent_session_id: meta.id,
    role: internal.role,
    agent: internal.agentName,
    siblings: internal.siblingIds.map((s) => `[[${names.get(s)}]]`),
    started_at: new Date(internal.createdAt).toISOString(),
    entries: history.length,
  };
  const body = history.map((entry) => renderEntry(entry, internal.agentName)).filter((text) => text !== '');
  return `---\n${stringify(front)}---\n\n# ${internal.agentName} (${internal.role})\n\n${body.join('\n\n')}\n`;
}

function renderEntry(entry: HistoryEntry, agent: string): string {
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
    case 'tool_call':
      return `### → ${entry.name}\n\n\`\`\`json\n${entry.arguments}\n\`\`\``;
    case 'tool_result': {
      const text = entry.status === 'success' ? entry.output : `${entry.error ?? ''}\n${entry.output}`.trim();
      const shown = text.length > MAX_OUTPUT_CHARS ? `${text.slice(0, MAX_OUTPUT_CHARS)}\n… (${text.length - MAX_OUTPUT_CHARS} more characters)` : text;
      return `### ← ${entry.name}: ${entry.status} (${entry.metadata.durationMs} ms)\n\n${fence(shown)}`;
    }
    case 'system':
      return `*— ${entry.event}: ${entry.message}*`;
    case 'compaction':
      return `*— compacted: the model now reads this summary instead of the ${entry.upTo} entries above —*\n\n${entry.note}`;
    case 'trim_tool_outputs':
      return '';
  }
}

/** Readable, unique note names: the agent name, with the role when two agents share a name. */
function noteNames(internal: InternalMeta[]): Map<string, string> {
  const names = new Map<string, string>();
  const used = new Set<string>(['session']);
  for (const m of internal) {
    let name = slug(m.agentName);
    if (used.has(name)) name = `${name}-${m.role}`;
    for (let n = 2; used.has(name); n++) name = `${slug(m.agentName)}-${n}`;
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
