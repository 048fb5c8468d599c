/**
 * Sandbox overhead: the same trivial command (`true`) through NodeWorkspace.exec
 * without the sandbox, in it with the network off (a network namespace of its
 * own) and on, interleaved run by run so both see the same machine load —
 * median milliseconds per command and the difference. A git repository with
 * nested folders stands in for a workspace, so the per-command look for
 * protected paths is counted too.
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { SandboxOptions } from '../src/tools/command-sandbox';
import { NodeWorkspace } from '../src/tools/node-workspace';
import { probeSandbox } from '../src/tools/sandbox-probe';
import { median } from './common';

const RUNS = 40;

export async function sandboxBenchmark(): Promise<void> {
  const probe = probeSandbox();
  if (!probe.available) {
    console.log(`sandbox: skipped, ${probe.reason}`);
    return;
  }
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'crow-bench-sandbox-'));
  try {
    execFileSync('git', ['init', '-q'], { cwd: root });
    for (let i = 0; i < 30; i++) fs.mkdirSync(path.join(root, `pkg${i}`, 'src'), { recursive: true });
    const sandbox = (network: boolean): SandboxOptions => ({ mode: 'required', protectedPaths: [], network, hiddenVariables: [] });
    const routes: [string, NodeWorkspace][] = [
      ['no sandbox', new NodeWorkspace(root)],
      ['sandbox, network off', new NodeWorkspace(root, { sandbox: sandbox(false) })],
      ['sandbox, network on', new NodeWorkspace(root, { sandbox: sandbox(true) })],
    ];
    const times = new Map<string, number[]>(routes.map(([label]) => [label, []]));
    const options = { timeoutMs: 30_000, signal: new AbortController().signal };
    for (let run = 0; run < RUNS; run++) {
      for (const [label, workspace] of routes) {
        const started = performance.now();
        const result = await workspace.exec('true', options);
        if (result.exitCode !== 0) throw new Error(`${label}: exit ${result.exitCode}: ${result.output}`);
        times.get(label)!.push(performance.now() - started);
      }
    }
    const plain = median(times.get('no sandbox')!);
    for (const [label] of routes) {
      const ms = median(times.get(label)!);
      const extra = label === 'no sandbox' ? '' : `  (+${(ms - plain).toFixed(1)} ms, ×${(ms / plain).toFixed(2)})`;
      console.log(`sandbox: ${label.padEnd(22)} ${ms.toFixed(1)} ms per command${extra}`);
    }
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
}
