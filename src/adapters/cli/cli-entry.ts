/**
 * What every bundle the `crow` binary loads does around its command: a
 * reader that went away is not a failure, stdout carries only what the
 * command prints, and a failure becomes a message and an exit code (2 for a
 * mistake in the call or the configuration, 1 for the rest, a stack only
 * for what is a bug). Used by dist/crow-cli.js (every command) and
 * dist/crow-trace.js (`crow trace` alone: see launcher.ts).
 */
import type { CliIO } from './cli-io';

/** Runs `command` as the process's one job, its result the exit code. */
export function runAsProcess(command: () => Promise<number>): void {
  // A reader that went away (`crow sessions list | head -1`) is not a failure: stop quietly, as other Unix tools do.
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code !== 'EPIPE') throw err;
      process.exit(stream === process.stdout ? 0 : (process.exitCode as number | undefined) ?? 0);
    });
  }
  // stdout carries only what the command prints; diagnostics go to stderr.
  command().then(
    (code) => {
      process.exitCode = code;
    },
    (err: unknown) => {
      process.stderr.write(`crow: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
      process.exitCode = 1;
    },
  );
}

/** Mistakes in the call or the configuration: a message and exit 2, no stack. */
const USER_ERRORS = new Set(['UsageError', 'ConfigError', 'SlashCommandError', 'UnknownSessionError', 'LoginKeysError']);

/** The exit code for a command that threw `err`, its message written to stderr. */
export function reportFailure(err: unknown, io: CliIO): number {
  if ((err instanceof Error && USER_ERRORS.has(err.name)) || isParseArgsError(err)) {
    io.stderr.write(`crow: ${(err as Error).message}\n`);
    return 2;
  }
  if (err instanceof Error && !(err instanceof TypeError) && !(err instanceof RangeError) && !(err instanceof ReferenceError)) {
    io.stderr.write(`crow: ${err.message}\n`);
    return 1;
  }
  io.stderr.write(`crow: unexpected failure: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  return 1;
}

function isParseArgsError(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS');
}
