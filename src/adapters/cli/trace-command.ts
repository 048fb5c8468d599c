import { parseArgs } from 'node:util';
import { dataHome } from '../../config/paths';
import { SessionStore } from '../../session/session-store';
import { buildTraceTrees, renderTraceTree } from '../../telemetry/trace-tree';
import { UsageError, type CliIO } from './cli-io';

export const TRACE_HELP = `Usage: crow trace SESSION [--json]

Prints everything the agents of a session did, one tree per prompt:
agent turns, LLM calls (tokens, cost, time to first token), tool calls,
handoffs, with durations and status. --json prints the span records.`;

export async function traceCommand(argv: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { json: { type: 'boolean', default: false }, help: { type: 'boolean', short: 'h', default: false } },
  });
  if (values.help) {
    io.stdout.write(`${TRACE_HELP}\n`);
    return 0;
  }
  const id = positionals[0];
  if (!id) throw new UsageError('crow trace needs a session id (see crow sessions list).');
  const store = new SessionStore({ dataHome: dataHome(io.env), warn: (w) => io.stderr.write(`crow: warning: ${w}\n`) });
  const spans = store.spans(id);
  if (values.json) {
    io.stdout.write(`${JSON.stringify(spans, null, 2)}\n`);
    return 0;
  }
  const meta = store.meta(id);
  io.stdout.write(`Session ${meta.id}: ${meta.title || '(untitled)'}\n\n`);
  io.stdout.write(spans.length > 0 ? renderTraceTree(buildTraceTrees(spans)) : 'No spans recorded yet.\n');
  return 0;
}
