import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const ENGINE = resolve(__dirname, '../../dist/engine.js');
const TASKS = resolve(__dirname, '../../eval/tasks');

/**
 * Runs in a plain Node child: dist/engine.js loaded as the extension loads
 * it, `vscode` answered by a stand-in (every property another stand-in),
 * then its config and eval-task checks used. Prints what they gave as JSON.
 */
const CHILD = `
const Module = require('node:module');
const stub = () => new Proxy(function () {}, {
  get: (_t, key) => (key === 'then' ? undefined : key === Symbol.toPrimitive ? () => '' : stub()),
  apply: () => stub(),
  construct: () => stub(),
});
const load = Module._load;
Module._load = function (request, ...rest) { return request === 'vscode' ? stub() : load.call(this, request, ...rest); };
const [engine, root, tasks] = process.argv.slice(1);
const bundle = require(engine);
let refused;
try { bundle.resolveSettings(root, {}, process.env); } catch (error) { refused = String(error.message); }
console.log(JSON.stringify({ refused, tasks: bundle.loadTasks(tasks).length }));
`;

describe('the VS Code engine bundle, as built (dist/engine.js)', () => {
  let home: string;
  beforeEach(() => (home = mkdtempSync(join(tmpdir(), 'crow-engine-bundle-'))));
  afterEach(() => rmSync(home, { recursive: true, force: true }));

  it('loads in plain Node and checks settings and eval tasks with its schemas', () => {
    const root = join(home, 'ws');
    mkdirSync(join(home, 'config', 'crow-agent'), { recursive: true });
    mkdirSync(root);
    writeFileSync(join(home, 'config', 'crow-agent', 'config.toml'), 'max_output_tokens = "lots"\n');
    const env = { PATH: process.env.PATH!, HOME: home, XDG_CONFIG_HOME: join(home, 'config'), XDG_DATA_HOME: join(home, 'data') };
    const child = spawnSync(process.execPath, ['-e', CHILD, ENGINE, root, TASKS], { encoding: 'utf8', env });
    assert.equal(child.status, 0, child.stderr);
    const { refused, tasks } = JSON.parse(child.stdout.trim().split('\n').at(-1)!) as { refused?: string; tasks: number };
    assert.match(refused ?? '(accepted)', /max_output_tokens/);
    assert.ok(tasks >= 15, `${tasks} eval tasks loaded`);
  });
});
