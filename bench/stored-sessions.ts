/**
 * Session stores grown as a person's grows, for the benchmarks that list
 * sessions through the binary. Every stored session is a copy of one real
 * session: made by `crow run` (and `crow run --continue`) against the fake
 * model server, so its meta.json, histories, shown events and trace are
 * what Crow writes, at their real sizes. Each copy gets its own id, title,
 * times and folder, and is put in the sessions folder as an older Crow (or
 * a backup restored) would leave it: the first listing files it in the
 * index of sessions by folder, as after an upgrade.
 */
import { spawn } from 'node:child_process';
import { cpSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { randomUUID } from 'node:crypto';
import type { FakeLlmServer } from '../testkit/fake-llm-server';

const CROW = resolve(__dirname, '../dist/crow.js');
const TITLES = [
  'Fix the failing date parser test',
  'Add a --dry-run flag to the deploy script',
  'Why does the cache miss on every second request?',
  'Rename UserService to AccountService everywhere',
  'Write tests for the CSV importer',
  'Explain how the retry loop backs off',
];

/** What `meta.json` holds, as far as a copy changes it. */
interface CopiedMeta {
  id: string;
  cwd: string;
  title: string;
  createdAt: number;
  updatedAt: number;
  internal: { parentId: string }[];
}

/**
 * One real session, made in `cwd` by two prompts of `crow run` (the first
 * reads a file, the second continues the session) with the data home of
 * `env`; the folder that holds it.
 */
export async function realSession(server: FakeLlmServer, cwd: string, env: NodeJS.ProcessEnv, sessions: string): Promise<string> {
  writeFileSync(join(cwd, 'notes.md'), '# Notes\n\nThe parser drops the time zone of ISO dates.\n');
  server.enqueue(
    'anthropic',
    { blocks: [{ type: 'text', text: 'Reading the notes first.' }, { type: 'tool_call', name: 'read_file', arguments: { path: 'notes.md' } }] },
    { blocks: [{ type: 'text', text: 'The notes say the parser drops the time zone of ISO dates: `parse()` keeps only the local time.' }] },
    { blocks: [{ type: 'text', text: 'Keep the offset: pass `{ zone: "keep" }` to `parse()` and compare in UTC.' }] },
  );
  await crow(['run', 'What do the notes say about the parser?'], cwd, env);
  await crow(['run', 'How do I fix it?', '--continue'], cwd, env);
  const [id] = readdirSync(sessions);
  if (id === undefined) throw new Error('crow run stored no session');
  return join(sessions, id);
}

/**
 * Fills the sessions folder `sessions` with `total` copies of `template`:
 * `busy` of them in `busyFolder`, the rest spread over `others`; newest
 * first over the last months. Their ids, for the caller to pick from.
 */
export function fillStore(sessions: string, template: string, total: number, busy: number, busyFolder: string, others: readonly string[]): string[] {
  mkdirSync(sessions, { recursive: true, mode: 0o700 });
  const now = Date.now();
  return Array.from({ length: total }, (_, i) => {
    const cwd = i < busy ? busyFolder : others[i % others.length]!;
    return storeCopy(sessions, template, cwd, TITLES[i % TITLES.length]!, now - (i + 1) * 3_600_000);
  });
}

/** Puts one more copy of `template` in `sessions`, for `cwd`, updated at `at`; its id. */
export function storeCopy(sessions: string, template: string, cwd: string, title: string, at: number): string {
  const id = randomUUID();
  const folder = join(sessions, id);
  cpSync(template, folder, { recursive: true });
  const meta = JSON.parse(readFileSync(join(folder, 'meta.json'), 'utf8')) as CopiedMeta;
  const copy: CopiedMeta = { ...meta, id, cwd, title, createdAt: at - 600_000, updatedAt: at, internal: meta.internal.map((internal) => ({ ...internal, parentId: id })) };
  writeFileSync(join(folder, 'meta.json'), JSON.stringify(copy, null, 2), { mode: 0o600 });
  return id;
}

function crow(args: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<void> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [CROW, ...args, '--provider', 'anthropic', '--model', 'claude-sonnet-4-5'], { cwd, env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('error', fail);
    child.once('close', (code) => (code === 0 ? done() : fail(new Error(`crow ${args.join(' ')} exited ${code}: ${stderr}`))));
  });
}
