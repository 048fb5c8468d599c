/**
 * `crow telemetry`: seed 003's commands over what Crow stores. An
 * "external" session is the one an ACP client sees (a stored session, as
 * `crow sessions list` lists it); its "internal traces" are the sessions of
 * the agents inside it (each agent's own history, with its role and its
 * siblings) and, below them, the subagents their task calls started; an
 * internal trace is one such agent's full history. `crow trace` shows the
 * same prompts as spans.
 */
import { dataHome } from '../../config/paths';
import { internalTranscript } from '../../session/session-export';
import { type SessionMetadata, sessionMetadata } from '../../session/session-metadata';
import { SessionStore } from '../../session/session-store';
import { Redactor } from '../../telemetry/redact';
import { commandArgs } from './cli-args';
import { UsageError, type CliIO } from './cli-io';
import { sessionsCommand } from './sessions-command';

export const TELEMETRY_HELP = `Usage: crow telemetry <command>   (seed 003's names for what crow sessions and crow trace show)

  external [--cwd DIR] [--all] [--json]   the sessions an ACP client sees, newest first (as crow sessions list)
  external-trace ID [--json]              a session's internal traces: each agent's id, role, model and
                                          tokens, and the subagents their task calls started
  trace INTERNAL-ID                       one internal agent's whole history: messages, tool calls and
                                          results, with its parent, siblings, model and tokens

IDs may be shortened to their first characters while they name one session.
crow trace ID shows the same prompts as a tree of spans (LLM calls, tools, timings).`;

export async function telemetryCommand(argv: string[], io: CliIO): Promise<number> {
  const [sub, ...rest] = argv;
  const store = (): SessionStore => new SessionStore({ dataHome: dataHome(io.env), warn: (w) => io.stderr.write(`crow: warning: ${w}\n`) });
  switch (sub) {
    case 'external':
      return sessionsCommand(['list', ...rest], io);
    case 'external-trace':
      return externalTrace(store(), rest, io);
    case 'trace':
      return internalTrace(store(), rest, io);
    case '-h':
    case '--help':
      io.stdout.write(`${TELEMETRY_HELP}\n`);
      return 0;
    case undefined:
      throw new UsageError('crow telemetry needs a command: external, external-trace ID or trace INTERNAL-ID (see crow telemetry --help).');
    default:
      throw new UsageError(`Unknown telemetry command "${sub}". Use external, external-trace or trace (see crow telemetry --help).`);
  }
}

function externalTrace(store: SessionStore, argv: string[], io: CliIO): number {
  const { values, positionals } = commandArgs('telemetry external-trace', argv, { json: { type: 'boolean' } });
  if (values.help) return help(io);
  if (positionals.length !== 1) throw new UsageError('crow telemetry external-trace takes one session id (see crow telemetry external).');
  const metadata = new Redactor().value(sessionMetadata(store, store.resolve(positionals[0]!)));
  if (values.json === true) {
    io.stdout.write(`${JSON.stringify(linked(metadata), null, 2)}\n`);
    return 0;
  }
  io.stdout.write(`${describe(metadata, '').join('\n')}\n`);
  return 0;
}

function internalTrace(store: SessionStore, argv: string[], io: CliIO): number {
  const { values, positionals } = commandArgs('telemetry trace', argv, {});
  if (values.help) return help(io);
  if (positionals.length !== 1) throw new UsageError('crow telemetry trace takes one internal id (crow telemetry external-trace ID lists a session\'s).');
  io.stdout.write(internalTranscript(store, internalId(store, positionals[0]!)));
  return 0;
}

/** The internal session `given` names, a unique start of its id accepted. */
function internalId(store: SessionStore, given: string): string {
  const ids = store.list().flatMap((meta) => meta.internal.map((internal) => internal.id));
  if (ids.includes(given)) return given;
  const matching = given.length >= 4 ? ids.filter((id) => id.startsWith(given)) : [];
  if (matching.length === 1) return matching[0]!;
  if (matching.length > 1) throw new UsageError(`"${given}" starts ${matching.length} internal ids: give more of it.`);
  throw new UsageError(`No internal session "${given}". crow telemetry external-trace ID lists a session's internal ids.`);
}

/** The session with its internal traces and subagents, as seed 003 links them. */
function linked(metadata: SessionMetadata): Record<string, unknown> {
  return {
    session_id: metadata.session_id,
    agent: metadata.agent,
    status: metadata.status,
    parent_chain: metadata.parent_chain,
    internal: metadata.agents.map((agent) => ({
      trace_id: agent.session_id,
      role: agent.role,
      agent: agent.agent_name,
      siblings: metadata.agents.filter((other) => other.session_id !== agent.session_id).map((other) => other.session_id),
      ...(agent.model !== undefined ? { model: agent.model } : {}),
      tokens: agent.tokens,
    })),
    subagents: metadata.subagents.map(linked),
  };
}

function describe(metadata: SessionMetadata, indent: string): string[] {
  const head = metadata.subagent_of !== undefined ? `${indent}subagent ${metadata.agent} (started by ${metadata.parent_agent ?? '?'})` : `${indent}session ${metadata.session_id}`;
  const lines = [`${head} · agent ${metadata.agent} · ${metadata.status} · ${metadata.prompts} prompt${metadata.prompts === 1 ? '' : 's'} · ${metadata.parent_chain.join(' → ')}`];
  for (const agent of metadata.agents) {
    const model = agent.model !== undefined ? ` · ${agent.model}` : '';
    lines.push(`${indent}  ${agent.role.padEnd(9)}${agent.agent_name.padEnd(16)}${agent.session_id}${model} · ${agent.tokens.toLocaleString('en-US')} tokens`);
  }
  for (const child of metadata.subagents) lines.push(...describe(child, `${indent}  `));
  return lines;
}

function help(io: CliIO): number {
  io.stdout.write(`${TELEMETRY_HELP}\n`);
  return 0;
}
