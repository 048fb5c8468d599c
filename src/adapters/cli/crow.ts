import { main } from './main';

// A reader that went away (`crow sessions list | head -1`) is not a failure: stop quietly, as other Unix tools do.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code !== 'EPIPE') throw err;
    process.exit(stream === process.stdout ? 0 : (process.exitCode as number | undefined) ?? 0);
  });
}

// stdout carries only what the command prints; diagnostics go to stderr.
main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(`crow: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exitCode = 1;
  },
);
