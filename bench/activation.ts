/**
 * How light the extension's activation is: a fresh Node process loads
 * dist/extension.js and calls activate() against a stand-in `vscode` module
 * (every API call answers with another stand-in), then loads the engine the
 * way the first prompt does. Side by side: activation alone vs the engine
 * load it defers. Each figure is the median of fresh processes.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { median } from './common';

const RUNS = 7;
const EXTENSION = join(__dirname, '..', 'dist', 'extension.js');

/** Runs in the child: prints two durations in ms as JSON. */
const CHILD = `
const Module = require('node:module');
const stub = () => new Proxy(function () {}, {
  get: (_t, key) => (key === 'then' ? undefined : key === Symbol.toPrimitive ? () => '' : stub()),
  apply: () => stub(),
  construct: () => stub(),
});
// Bundles copy a module's own keys (esbuild's __toESM): the stand-in lists the API's top-level names.
const names = [...require('node:fs').readFileSync(require.resolve('@types/vscode/index.d.ts'), 'utf8')
  .matchAll(/^\\t*export (?:class|enum|namespace|const|function|let) (\\w+)/gm)].map((m) => m[1]);
const api = Object.fromEntries(names.map((name) => [name, stub()]));
api.env = { appRoot: '/nonexistent', language: 'en' };
const vscode = api;
const load = Module._load;
Module._load = function (request, ...rest) { return request === 'vscode' ? vscode : load.call(this, request, ...rest); };
const start = process.hrtime.bigint();
const extension = require(process.argv[1]);
const crow = extension.activate(stub());
const activated = process.hrtime.bigint();
crow.engine();
const engine = process.hrtime.bigint();
console.log(JSON.stringify({ activate: Number(activated - start) / 1e6, engine: Number(engine - activated) / 1e6 }));
`;

export async function activationBenchmark(): Promise<void> {
  const activate: number[] = [];
  const engine: number[] = [];
  for (let run = 0; run < RUNS; run++) {
    const child = spawnSync(process.execPath, ['-e', CHILD, EXTENSION], { encoding: 'utf8', cwd: join(__dirname, '..') });
    if (child.status !== 0) throw new Error(`activation benchmark child failed: ${child.stderr}`);
    const figures = JSON.parse(child.stdout.trim().split('\n').at(-1)!) as { activate: number; engine: number };
    activate.push(figures.activate);
    engine.push(figures.engine);
  }
  const a = median(activate);
  const e = median(engine);
  console.log(`extension activation (load dist/extension.js + activate, stand-in vscode): ${a.toFixed(1)} ms`);
  console.log(`  engine load deferred to first use: ${e.toFixed(1)} ms; activation is ${(a / (a + e)).toFixed(2)} of loading everything up front`);
}
