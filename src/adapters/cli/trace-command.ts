import { parseArgs } from 'node:util';
import { dataHome } from '../../config/paths';
import { SessionStore } from '../../session/session-store';
import { toOtlpJson } from '../../telemetry/otlp-json';
import { buildTraceTrees, renderTraceTree } from '../../telemetry/trace-tree';
import { UsageError, type CliIO } from './cli-io';
import { defaultAssetsDir, serveTrace } from './trace-serve';

export const TRACE_HELP = `Usage: crow trace SESSION [--json | --otlp-json | --serve [--port N]]

Prints everything the agents of a session did, one tree per prompt:
agent turns, LLM calls (tokens, cost, time to first token), tool calls,
handoffs, with durations and status; a span that has not ended reads
"running" while a process still records the session, else "unfinished".
--json prints the span records. --otlp-json prints them as an OTLP/JSON
ExportTraceServiceRequest (for a collector, Jaeger, Phoenix or Langfuse).
--serve serves the trace viewer on http://127.0.0.1 (a free port unless
--port is given), read-only and live while the session runs, and prints
the URL to open in a browser: it carries a random token, without which
(or the cookie its first load sets) nothing is served. Ctrl-C stops it.`;

export async function traceCommand(argv: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      json: { type: 'boolean', default: false },
      'otlp-json': { type: 'boolean', default: false },
      serve: { type: 'boolean', default: false },
      port: { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) {
    io.stdout.write(`${TRACE_HELP}\n`);
    return 0;
  }
  const id = positionals[0];
  if (!id) throw new UsageError('crow trace needs a session id (see crow sessions list).');
  const store = new SessionStore({ dataHome: dataHome(io.env), warn: (w) => io.stderr.write(`crow: warning: ${w}\n`) });
  if (values.port !== undefined && !values.serve) throw new UsageError('--port goes with --serve.');
  if ([values.json, values['otlp-json'], values.serve].filter(Boolean).length > 1) {
    throw new UsageError('Choose one of --json, --otlp-json and --serve.');
  }
  if (values.serve) return serve(store, id, parsePort(values.port), io);
  const spans = store.spans(id);
  if (values.json || values['otlp-json']) {
    io.stdout.write(`${JSON.stringify(values.json ? spans : toOtlpJson(spans), null, 2)}\n`);
    return 0;
  }
  const meta = store.meta(id);
  io.stdout.write(`Session ${meta.id}: ${meta.title || '(untitled)'}\n\n`);
  const recording = store.isRecording(id);
  if (spans.length > 0) io.stdout.write(renderTraceTree(buildTraceTrees(spans), { recording }));
  // A subagent's spans hang below the task call in its parent's trace: one trace per prompt.
  else if (meta.parent) io.stdout.write(`A subagent session: its spans are in its parent's trace, under the task call ${meta.parent.callId}. Run: crow trace ${meta.parent.sessionId}\n`);
  else io.stdout.write('No spans recorded yet.\n');
  return 0;
}

/** Serves the viewer until Ctrl-C. */
async function serve(store: SessionStore, id: string, port: number, io: CliIO): Promise<number> {
  store.meta(id); // throws for an unknown or malformed id before it becomes part of a path
  const server = await serveTrace({
    traceFile: store.traceFile(id),
    readSpans: () => store.spans(id),
    isRecording: () => store.isRecording(id),
    assetsDir: defaultAssetsDir(),
    port,
  });
  io.stderr.write(`crow: the trace of session ${id} is served at\n  ${server.url}\nOpen that URL in a browser (it carries the access token; keep it to yourself). Ctrl-C stops.\n`);
  await new Promise<void>((resolve) => {
    const stop = io.onInterrupt(() => {
      stop();
      resolve();
    });
  });
  await server.close();
  return 0;
}

function parsePort(value: string | undefined): number {
  if (value === undefined) return 0;
  const port = Number(value);
  if (!/^\d+$/.test(value) || port > 65_535) throw new UsageError(`--port needs a number from 0 to 65535, not "${value}".`);
  return port;
}
