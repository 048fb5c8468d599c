import { dataHome } from '../../config/paths';
import { SessionStore } from '../../session/session-store';
import { toOtlpJson } from '../../telemetry/otlp-json';
import { buildTraceTrees, renderTraceTree } from '../../telemetry/trace-tree';
import { commandArgs } from './cli-args';
import { openInBrowser } from './open-browser';
import { UsageError, type CliIO } from './cli-io';
import { defaultAssetsDir, serveTrace } from './trace-serve';

export const TRACE_HELP = `Usage: crow trace SESSION [--json | --otlp-json | --serve [--port N] [--no-open]]

Prints everything the agents of a session did, one tree per prompt:
agent turns, LLM calls (tokens, cost, time to first token), tool calls,
handoffs and hooks (with their decision and exit code), with durations and
status; a span that has not ended reads
"running" while a process still records the session, else "unfinished".
--json prints the span records. --otlp-json prints them as an OTLP/JSON
ExportTraceServiceRequest (for a collector, Jaeger, Phoenix or Langfuse).
--serve serves the trace viewer on http://127.0.0.1 (a free port unless
--port is given), read-only and live while the session runs, prints its
URL and, on a terminal, opens it in the default browser (xdg-open, open or
start; --no-open to only print it). The URL carries a random token, without
which (or the cookie its first load sets) nothing is served; the browser is
opened with a one-time code instead, so the token is never in a process's
arguments, and only a program of yours can use that code (on Linux).
Ctrl-C stops it.

SESSION is an id from crow sessions list, or any unique start of one.`;

export async function traceCommand(argv: string[], io: CliIO): Promise<number> {
  const { values, positionals } = commandArgs('trace', argv, {
    json: { type: 'boolean', default: false },
    'otlp-json': { type: 'boolean', default: false },
    serve: { type: 'boolean', default: false },
    port: { type: 'string' },
    'no-open': { type: 'boolean', default: false },
  });
  if (values.help) {
    io.stdout.write(`${TRACE_HELP}\n`);
    return 0;
  }
  if (positionals.length !== 1) throw new UsageError('crow trace takes one session id (see crow sessions list).');
  if (values.port !== undefined && !values.serve) throw new UsageError('--port goes with --serve.');
  if ([values.json, values['otlp-json'], values.serve].filter(Boolean).length > 1) {
    throw new UsageError('Choose one of --json, --otlp-json and --serve.');
  }
  if (values['no-open'] && !values.serve) throw new UsageError('--no-open goes with --serve.');
  const store = new SessionStore({ dataHome: dataHome(io.env), warn: (w) => io.stderr.write(`crow: warning: ${w}\n`) });
  const id = store.resolve(positionals[0]!);
  if (values.serve) return serve(store, id, { port: parsePort(values.port), open: !values['no-open'] && io.stderr.isTTY === true }, io);
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
async function serve(store: SessionStore, id: string, { port, open }: { port: number; open: boolean }, io: CliIO): Promise<number> {
  store.meta(id); // throws for an unknown or malformed id before it becomes part of a path
  const server = await serveTrace({
    traceFile: store.traceFile(id),
    isRecording: () => store.isRecording(id),
    assetsDir: defaultAssetsDir(),
    port,
  });
  const served = `crow: the trace of session ${id} is served at\n  ${server.url}\n`;
  const warning = 'The URL carries the access token: keep it to yourself. Ctrl-C stops.\n';
  if (!open) io.stderr.write(`${served}Open that URL in a browser. ${warning}`);
  else {
    // The URL first, so it can be copied while the opener decides (up to OPENER_WAIT_MS).
    io.stderr.write(served);
    const opened = await openInBrowser(server.oneTimeUrl(), io.env);
    const how = opened.ok
      ? `Opened it in your browser (${opened.opener}).`
      : `No browser could be opened here (${opened.why}): open that URL in a browser.`;
    io.stderr.write(`${how} ${warning}`);
  }
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
