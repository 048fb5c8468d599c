/**
 * `npm run bench`: the engine's costs measured side by side in one run.
 * Prints figures and ratios; never fails on time (machines are shared and noisy).
 * Each benchmark lives in its own file and prints its own lines.
 */
import { NodeWorkspace } from '../src/tools/node-workspace';
import { acpBenchmark } from './acp';
import { activationBenchmark } from './activation';
import { bookkeepingBenchmark } from './bookkeeping';
import { checkpointsBenchmark } from './checkpoints';
import { commandRulesBenchmark } from './command-rules';
import { editFileBenchmark } from './edit-file';
import { evalBenchmark } from './eval';
import { grepBenchmark } from './grep';
import { promptCacheBenchmark } from './prompt-cache';
import { sandboxBenchmark } from './sandbox';
import { sessionsBenchmark } from './sessions';
import { undoBenchmark } from './undo';
import { speckitBenchmark } from './speckit';
import { traceViewerBenchmark } from './trace-viewer';
import { streamingBenchmark } from './streaming';
import { terminalStreamBenchmark } from './terminal-stream';

async function main(): Promise<void> {
  const workspace = new NodeWorkspace(process.cwd());
  await streamingBenchmark(workspace);
  await terminalStreamBenchmark();
  await promptCacheBenchmark();
  await bookkeepingBenchmark(workspace);
  await commandRulesBenchmark();
  await editFileBenchmark();
  await speckitBenchmark();
  await grepBenchmark();
  await sandboxBenchmark();
  await undoBenchmark();
  await sessionsBenchmark();
  await checkpointsBenchmark();
  await acpBenchmark();
  await traceViewerBenchmark();
  await activationBenchmark();
  await evalBenchmark();
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
