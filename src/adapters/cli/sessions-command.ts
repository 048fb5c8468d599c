import { resolve } from 'node:path';
import { dataHome } from '../../config/paths';
import { exportJson, exportMarkdown } from '../../session/session-export';
import { sessionMetadata } from '../../session/session-metadata';
import { Redactor } from '../../telemetry/redact';
import type { SessionMeta } from '../../session/meta-file';
import { SessionStore } from '../../session/session-store';
import { storedPrompts } from '../../host/stored-prompts';
import { checkpointsCommand, forkCommand } from './checkpoint-commands';
import { commandArgs, noPositionals, workspaceFolder } from './cli-args';
import { keptRanking, readKept } from '../../attempts/kept-attempts';
import { attemptsTable } from './attempts-lines';
import { applyKept, pickLine } from './background-apply';
import { RunRenderer } from './run-renderer';
import { styleFor } from './terminal-style';
import { UsageError, type CliIO } from './cli-io';
import { backgroundLog, forgetBackground, backgroundOnly, type BackgroundState, backgroundState, resolveBackground, stateText, stopBackground } from './background-runs';

export const SESSIONS_HELP = `Usage: crow sessions <command>

  list [--cwd DIR] [--all] [--json]   stored sessions, newest first (default: this folder's)
  show ID                             the session as crow run showed it, prompt by prompt
                                      (a background run: whether it runs, and its output)
  stop ID                             stop a background run (crow run --background): SIGTERM
  apply ID N [--cwd DIR]              apply attempt N of a finished background run of
                                      attempts (crow undo takes it back)
  checkpoints ID [--json]             the points it can be rewound to (crow undo --to N)
  fork ID --at N                      a new session with the conversation up to checkpoint N
  export ID [--format md|json|metadata] [--out DIR]
                                      markdown transcripts linked with [[wikilinks]]
                                      and metadata.json (a folder under DIR, default .);
                                      json: everything on stdout; metadata: only
                                      status, model, tokens, cost, times, subagents
  delete ID                           remove a stored session

An ID may be shortened to its first characters while they name one session.
Sessions live under ${'$'}XDG_DATA_HOME/crow-agent/sessions (default ~/.local/share).`;

export async function sessionsCommand(argv: string[], io: CliIO): Promise<number> {
  const [sub, ...rest] = argv;
  const store = new SessionStore({ dataHome: dataHome(io.env), warn: (w) => io.stderr.write(`crow: warning: ${w}\n`) });
  switch (sub) {
    case 'list':
      return list(store, rest, io);
    case 'show':
      return show(store, rest, io);
    case 'stop':
      return stop(store, rest, io);
    case 'apply':
      return apply(store, rest, io);
    case 'export':
      return exportSession(store, rest, io);
    case 'checkpoints':
      return checkpointsCommand(rest, io);
    case 'fork':
      return forkCommand(rest, io);
    case 'delete':
      return deleteSession(store, rest, io);
    case undefined:
      throw new UsageError('crow sessions needs a command: list, show ID, stop ID, apply ID N, checkpoints ID, fork ID --at N, export ID or delete ID (see crow sessions --help).');
    case '-h':
    case '--help':
      io.stdout.write(`${SESSIONS_HELP}\n`);
      return 0;
    default:
      throw new UsageError(`Unknown sessions command "${sub}". Run "crow sessions --help".`);
  }
}

function list(store: SessionStore, argv: string[], io: CliIO): number {
  const { values, positionals } = commandArgs('sessions list', argv, {
    cwd: { type: 'string' },
    all: { type: 'boolean', default: false },
    json: { type: 'boolean', default: false },
  });
  if (values.help) return help(io);
  noPositionals('sessions list', positionals);
  const cwd = values.all ? undefined : resolve(io.cwd, values.cwd ?? '.');
  const sessions = store.list(cwd === undefined ? {} : { cwd });
  const data = dataHome(io.env);
  const alone = backgroundOnly(data, cwd, new Set(sessions.map((s) => s.id)));
  if (values.json) {
    const background = (id: string): object => {
      const state = backgroundState(data, id);
      return state ? { background: { state: state.state, pid: state.record.pid, ...(state.state === 'finished' ? { exitCode: state.end.exitCode } : {}) } } : {};
    };
    const runs = alone.map((state) => ({ id: state.record.id, cwd: state.record.cwd, title: state.record.prompt, createdAt: state.record.startedAt, ...background(state.record.id) }));
    io.stdout.write(`${JSON.stringify([...runs, ...sessions.map((s) => ({ ...s, ...background(s.id) }))], null, 2)}\n`);
    return 0;
  }
  if (sessions.length === 0 && alone.length === 0) {
    io.stdout.write(cwd ? `No sessions in ${cwd}. (--all lists every folder's.)\n` : 'No sessions yet.\n');
    return 0;
  }
  for (const state of alone) io.stdout.write(`${backgroundLine(state, cwd === undefined)}\n`);
  for (const s of sessions) {
    const state = backgroundState(data, s.id);
    io.stdout.write(`${listLine(s, cwd === undefined)}${state ? `  [${stateText(state)}]` : ''}\n`);
  }
  return 0;
}

/** A background run with no stored session (attempts that applied nothing, or one that has not stored its session yet). */
function backgroundLine(state: BackgroundState, withCwd: boolean): string {
  const when = new Date(state.record.startedAt).toISOString().replace('T', ' ').slice(0, 16);
  const what = state.record.attempts !== undefined ? `${state.record.attempts} attempts` : 'run';
  const title = state.record.prompt.replace(/\s+/g, ' ').slice(0, 80);
  return `${state.record.id}  ${when}  ${what}  ${title}  [${stateText(state)}]${withCwd ? `  ${state.record.cwd}` : ''}`;
}

/** `crow sessions stop ID` */
function stop(store: SessionStore, argv: string[], io: CliIO): number {
  const { values, positionals } = commandArgs('sessions stop', argv, {});
  if (values.help) return help(io);
  const data = dataHome(io.env);
  return stopBackground(data, backgroundId(store, data, positionals, 'stop'), io);
}

/** `crow sessions apply ID N` */
function apply(store: SessionStore, argv: string[], io: CliIO): Promise<number> {
  const { values, positionals } = commandArgs('sessions apply', argv, { cwd: { type: 'string' } });
  if (values.help) return Promise.resolve(help(io));
  if (positionals.length !== 2) throw new UsageError('crow sessions apply takes a background run\'s id and an attempt number: crow sessions apply ID 2 (crow sessions show ID lists them).');
  const n = Number(positionals[1]);
  if (!/^[1-9][0-9]?$/.test(positionals[1]!)) throw new UsageError(`"${positionals[1]}" is not an attempt number: crow sessions show ${positionals[0]} lists them.`);
  const data = dataHome(io.env);
  return applyKept(store, data, backgroundId(store, data, positionals.slice(0, 1), 'apply'), n, workspaceFolder(io.cwd, values.cwd), io);
}

/** A session id or a background run's (which may have no stored session), a unique start accepted. */
function backgroundId(store: SessionStore, data: string, positionals: string[], command: string): string {
  if (positionals.length !== 1) throw new UsageError(`crow sessions ${command} takes one session id (see crow sessions list).`);
  return resolveBackground(data, positionals[0]!) ?? store.resolve(positionals[0]!);
}

function help(io: CliIO): number {
  io.stdout.write(`${SESSIONS_HELP}\n`);
  return 0;
}

function listLine(s: SessionMeta, withCwd: boolean): string {
  const when = new Date(s.updatedAt).toISOString().replace('T', ' ').slice(0, 16);
  const agents = s.internal.map((m) => m.agentName).join('+') || '—';
  const child = s.parent ? `  [subagent of ${s.parent.agent}]` : '';
  return `${s.id}  ${when}  ${s.agentName} (${agents})  ${s.title || '(untitled)'}${child}${withCwd ? `  ${s.cwd}` : ''}`;
}

/**
 * A stored session as `crow run` showed it: each prompt through the same
 * renderer, the person's message first, answer and work together on stdout.
 */
function show(store: SessionStore, argv: string[], io: CliIO): number {
  const { values, positionals } = commandArgs('sessions show', argv, {});
  if (values.help) return help(io);
  const data = dataHome(io.env);
  const id = backgroundId(store, data, positionals, 'show');
  const background = backgroundState(data, id);
  if (background) {
    const { record } = background;
    const what = record.attempts !== undefined ? `${record.attempts} attempts` : 'Run';
    io.stdout.write(`${what} in the background in ${record.cwd}, started ${new Date(record.startedAt).toISOString()}: ${stateText(background)}.\nPrompt: ${record.prompt}\n`);
    // Attempts print their ranking; a run's own output is its session, shown below once stored.
    const log = backgroundLog(data, id);
    if (record.attempts !== undefined || !store.has(id)) io.stdout.write(`\n${log}`);
    if (background.state !== 'running') keptLines(data, id, log === '', io);
    if (!store.has(id)) return 0;
    io.stdout.write('\n');
  }
  const meta = store.meta(id);
  io.stdout.write(`${meta.title || meta.id}\n${meta.agentName} in ${meta.cwd}, ${new Date(meta.createdAt).toISOString()}\n`);
  io.stdout.write(artifactLines(meta));
  const style = styleFor(io.stdout, io.env);
  for (const { start, events } of storedPrompts(store.load(id), { live: store.isRecording(id) })) {
    io.stdout.write('\n');
    const renderer = new RunRenderer({ out: io.stdout, err: io.stdout, outStyle: style, errStyle: style }, { replaying: true });
    for (const event of [start, ...events]) renderer.render(event);
    renderer.pause();
  }
  return 0;
}

/** A finished run of attempts: its ranking when no log holds it (a VS Code window's run), and how to pick one. */
function keptLines(data: string, id: string, withTable: boolean, io: CliIO): void {
  const kept = readKept(data, id);
  if (withTable && kept !== undefined && !('problem' in kept)) io.stdout.write(`${attemptsTable(keptRanking(kept))}\n`);
  const line = pickLine(data, id);
  if (line !== undefined) io.stdout.write(`${line}\n`);
}

function artifactLines(meta: SessionMeta): string {
  const records = meta.artifacts ?? [];
  if (meta.feature === undefined && records.length === 0) return '';
  const lines = meta.feature !== undefined ? [`Feature: ${meta.feature}`] : [];
  if (records.length > 0) lines.push('Artifacts:');
  for (const record of records) {
    const when = new Date(record.at).toISOString().replace('T', ' ').slice(0, 16);
    const inFolder = (file: string): string => (record.folder !== undefined && file.startsWith(`${record.folder}/`) ? file.slice(record.folder.length + 1) : file);
    const files = record.files.length > 0 ? record.files.map(inFolder).join(', ') : '(nothing written)';
    lines.push(`  /${record.command}  ${when}  ${record.folder !== undefined ? `${record.folder}: ` : ''}${files}`);
  }
  return `${lines.join('\n')}\n`;
}

async function exportSession(store: SessionStore, argv: string[], io: CliIO): Promise<number> {
  const { values, positionals } = commandArgs('sessions export', argv, { format: { type: 'string', default: 'md' }, out: { type: 'string' } });
  if (values.help) return help(io);
  const id = sessionId(store, positionals, 'export');
  if (values.format === 'json') {
    io.stdout.write(`${exportJson(store, id)}\n`);
    return 0;
  }
  if (values.format === 'metadata') {
    io.stdout.write(`${JSON.stringify(new Redactor().value(sessionMetadata(store, id)), null, 2)}\n`);
    return 0;
  }
  if (values.format !== 'md') throw new UsageError(`--format must be md, json or metadata, not "${values.format}".`);
  const folder = await exportMarkdown(store, id, resolve(io.cwd, values.out ?? '.'));
  io.stdout.write(`Exported to ${folder}\n`);
  return 0;
}

function deleteSession(store: SessionStore, argv: string[], io: CliIO): number {
  const { values, positionals } = commandArgs('sessions delete', argv, {});
  if (values.help) return help(io);
  const data = dataHome(io.env);
  const id = backgroundId(store, data, positionals, 'delete');
  const background = forgetBackground(data, id);
  if (store.has(id) || !background) store.delete(id);
  io.stdout.write(`Deleted session ${id}.\n`);
  return 0;
}

/** The one session id a sub-command takes, a unique prefix accepted. */
function sessionId(store: SessionStore, positionals: string[], command: string): string {
  if (positionals.length !== 1) throw new UsageError(`crow sessions ${command} takes one session id (see crow sessions list).`);
  return store.resolve(positionals[0]!);
}
