/**
 * Checkpoints of a long session on a 10,000-file repository: a session of
 * 100 prompts, each writing three files (100 messages, 400 checkpoints),
 * recorded with undo on as crow run records it. Then, through the real
 * binary: `crow sessions checkpoints ID` (median of 5, beside `crow
 * --version` for the start-up every command pays; target: listing adds
 * < 100 ms to that start-up), and
 * `crow undo --to 1 --yes` restoring the oldest checkpoint, files and
 * conversation (target < 1 s), then the same again with nothing left to
 * restore (what planning alone costs). Prints figures; never fails on time.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { dataHome } from '../src/config/paths';
import { listCheckpoints } from '../src/journal/checkpoint-list';
import { HostSession } from '../src/host/host-session';
import { ScriptedProvider, type ScriptStep } from '../src/llm/scripted';
import { SessionStore } from '../src/session/session-store';
import { NodeWorkspace } from '../src/tools/node-workspace';
import { TestCatalog } from '../test/support/acp-catalog';
import { createBigRepository } from '../test/support/big-repo';
import { ALLOW_ALL } from '../test/unit/tools/temp-workspace';
import { median, personEnv } from './common';

const CROW = resolve(__dirname, '../dist/crow.js');
const PROMPTS = 100;
const WRITES_PER_PROMPT = 3;
const LIST_RUNS = 5;

export async function checkpointsBenchmark(): Promise<void> {
  const base = mkdtempSync(join(tmpdir(), 'crow-bench-checkpoints-'));
  try {
    const root = join(base, 'repo');
    process.stdout.write('Checkpoints: generating a 10k-file repository and a 100-prompt session…');
    createBigRepository(root, { folders: 100, filesPerFolder: 100 });
    const env = personEnv(base, {});
    mkdirSync(dataHome(env), { recursive: true });
    const id = await recordSession(root, env);
    process.stdout.write('\r');
    const count = listCheckpoints(new SessionStore({ dataHome: dataHome(env) }).load(id)).length;
    const crow = (...args: string[]): number => timedRun(args, env, root);
    const startUp = median(Array.from({ length: LIST_RUNS }, () => crow('--version')));
    const list = median(Array.from({ length: LIST_RUNS }, () => crow('sessions', 'checkpoints', id, '--json')));
    const inProcess = median(Array.from({ length: LIST_RUNS }, () => timed(() => listCheckpoints(new SessionStore({ dataHome: dataHome(env) }).events(id)))));
    const restore = crow('undo', '--to', '1', '--yes', '--session', id);
    const first = readFileSync(join(root, 'd000/f000.js'), 'utf8');
    const plan = crow('undo', '--to', '1', '--yes', '--session', id);
    console.log(`Checkpoints: a session of ${PROMPTS} prompts (${count} checkpoints) on a 10k-file repository, through crow`);
    console.log(
      `  list: ${ms(list)}, ${ms(list - startUp)} over crow --version's ${ms(startUp)} (reading and listing in-process ${ms(inProcess)})` +
        ` · target < 100 ms over start-up: ${list - startUp < 100 ? 'met' : 'NOT met'}`,
    );
    console.log(
      `  restore the oldest (files and conversation): ${ms(restore)} · target < 1 s: ${restore < 1000 ? 'met' : 'NOT met'}` +
        ` · again, nothing left to restore: ${ms(plan)} · restored content ${first === 'export const value = 0;\n' ? 'as it was' : 'WRONG'}`,
    );
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
}

/** Records the session as crow run would (undo on): each prompt writes three files, then answers. */
async function recordSession(root: string, env: NodeJS.ProcessEnv): Promise<string> {
  const steps: ScriptStep[] = [];
  for (let prompt = 0; prompt < PROMPTS; prompt++) {
    for (let write = 0; write < WRITES_PER_PROMPT; write++) {
      const folder = String((prompt * WRITES_PER_PROMPT + write) % 100).padStart(3, '0');
      steps.push({ toolCalls: [{ name: 'write_file', arguments: { path: `d${folder}/f000.js`, content: `export const value = ${prompt}.${write};\n` } }] });
    }
    steps.push({ text: `Prompt ${prompt} done.` });
  }
  const provider = new ScriptedProvider(steps, 'bench-model');
  const host = await HostSession.create({
    catalog: () => new TestCatalog({ providers: { m: provider }, policy: ALLOW_ALL, contextWindow: 1_000_000 }),
    store: new SessionStore({ dataHome: dataHome(env) }),
    workspace: new NodeWorkspace(root),
    undo: { dataHome: dataHome(env), env },
    env,
  });
  try {
    for (let prompt = 0; prompt < PROMPTS; prompt++) {
      const stream = host.prompt(`Prompt ${prompt}: change three files`);
      await stream.forEach(() => undefined);
    }
    return host.id;
  } finally {
    await host.close();
  }
}

function timedRun(args: string[], env: NodeJS.ProcessEnv, cwd: string): number {
  const started = performance.now();
  const run = spawnSync(process.execPath, [CROW, ...args], { cwd, env, encoding: 'utf8' });
  const elapsed = performance.now() - started;
  if (run.status !== 0) throw new Error(`crow ${args.join(' ')} failed (${run.status}): ${run.stderr}`);
  return elapsed;
}

function timed(work: () => unknown): number {
  const started = performance.now();
  work();
  return performance.now() - started;
}

function ms(value: number): string {
  return `${value.toFixed(0)} ms`;
}
