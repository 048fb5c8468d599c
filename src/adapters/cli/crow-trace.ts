/**
 * dist/crow-trace.js: `crow trace` on its own, a bundle a tenth of the
 * CLI's, which the launcher loads for that command alone, so that
 * `crow trace SESSION --serve` prints its URL (and the viewer can open)
 * without compiling the whole CLI first. The command's behaviour, help and
 * errors are the ones `crow trace` has through main.ts.
 */
import { runAsProcess, reportFailure } from './cli-entry';
import { processIO } from './cli-io';
import { traceCommand } from './trace-command';

const io = processIO();
runAsProcess(() => traceCommand(process.argv.slice(3), io).catch((err: unknown) => reportFailure(err, io)));
