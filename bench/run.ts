/**
 * `npm run bench`: the engine's costs measured side by side in one run.
 * Prints figures and ratios; never fails on time (machines are shared and noisy).
 * Each benchmark lives in its own file and prints its own lines;
 * `npm run build && npx tsx bench/run.ts undo sessions` runs just those.
 */
import { NodeWorkspace } from '../src/tools/node-workspace';
import { acpBenchmark } from './acp';
import { activationBenchmark } from './activation';
import { bookkeepingBenchmark } from './bookkeeping';
import { checkpointsBenchmark } from './checkpoints';
import { commandRulesBenchmark } from './command-rules';
import { editFileBenchmark } from './edit-file';
import { evalBenchmark } from './eval';
import { globBenchmark } from './glob';
import { grepBenchmark } from './grep';
import { promptCacheBenchmark } from './prompt-cache';
import { resumeBenchmark } from './resume';
import { sandboxBenchmark } from './sandbox';
import { sessionsBenchmark } from './sessions';
import { undoBenchmark } from './undo';
import { speckitBenchmark } from './speckit';
import { startupBenchmark } from './startup';
import { traceViewerBenchmark } from './trace-viewer';
import { streamingBenchmark } from './streaming';
import { terminalStreamBenchmark } from './terminal-stream';

/** Every benchmark by the name `tsx bench/run.ts NAME…` selects it with (its file's name), in the order `npm run bench` runs them. */
const BENCHMARKS: Record<string, (workspace: NodeWorkspace) => Promise<void>> = {
  streaming: streamingBenchmark,
  'terminal-stream': () => terminalStreamBenchmark(),
  'prompt-cache': () => promptCacheBenchmark(),
  bookkeeping: bookkeepingBenchmark,
  'command-rules': () => commandRulesBenchmark(),
  'edit-file': () => editFileBenchmark(),
  speckit: () => speckitBenchmark(),
  grep: () => grepBenchmark(),
  glob: () => globBenchmark(),
  sandbox: () => sandboxBenchmark(),
  undo: () => undoBenchmark(),
  sessions: () => sessionsBenchmark(),
  resume: () => resumeBenchmark(),
  checkpoints: () => checkpointsBenchmark(),
  acp: () => acpBenchmark(),
  'trace-viewer': () => traceViewerBenchmark(),
  activation: () => activationBenchmark(),
  startup: () => startupBenchmark(),
  eval: () => evalBenchmark(),
};

async function main(): Promise<void> {
  const workspace = new NodeWorkspace(process.cwd());
  const chosen = process.argv.slice(2);
  const unknown = chosen.filter((name) => !(name in BENCHMARKS));
  if (unknown.length > 0) {
    throw new Error(`No benchmark named ${unknown.join(', ')}. Choose from: ${Object.keys(BENCHMARKS).join(', ')} (or none for all).`);
  }
  for (const [name, run] of Object.entries(BENCHMARKS)) {
    if (chosen.length === 0 || chosen.includes(name)) await run(workspace);
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
