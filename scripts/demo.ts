/**
 * `npm run demo`: the real `crow run` binary, through the real Anthropic SDK,
 * against the fake LLM server playing a scripted four-step scenario in a
 * workspace of its own. The model's replies are scripted; every tool call runs
 * for real. No API key, no network. Each run has a folder of its own
 * (workspace and Crow's data), kept so that its session can be looked at
 * with `crow trace` and `crow sessions show`; a later demo removes it.
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { dataHome } from '../src/config/paths';
import { SessionStore } from '../src/session/session-store';
import { FakeLlmServer, type ScriptedReply } from '../testkit/fake-llm-server';

const CALC_BUGGY = `// Tiny calculator used by the demo.
function add(a, b) {
  return a - b;
}

module.exports = { add };
`;

const CALC_FIXED = CALC_BUGGY.replace('return a - b;', 'return a + b;');

const TEST = `const assert = require('node:assert');
const { add } = require('./calc');
assert.strictEqual(add(2, 3), 5);
assert.strictEqual(add(-1, 1), 0);
console.log('all calc tests passed');
`;

const PROMPT = 'The test in test.js fails. Find the bug in calc.js, fix it, and prove the fix by running the test.';

/**
 * The model's four answers. Their usage is what a real server reports: each
 * request reads the whole conversation again, most of it from the cache the
 * request before wrote, so Crow's check of reported against estimated
 * prompt tokens (engine/context-gauge.ts) has nothing to warn about.
 */
function scenario(): ScriptedReply[] {
  const pace = { chunkSize: 5, latencyMs: 12 };
  return [
    {
      ...pace,
      blocks: [
        { type: 'thinking', text: 'The test exercises add(). I should read calc.js before changing anything.' },
        { type: 'text', text: "I'll start by reading calc.js." },
        { type: 'tool_call', name: 'read_file', arguments: { path: 'calc.js' } },
      ],
      usage: { input: 1850, output: 64, cacheWrite: 1200 },
    },
    {
      ...pace,
      blocks: [
        { type: 'text', text: 'Found it: `add` returns `a - b`. Fixing it to `a + b`.' },
        { type: 'tool_call', name: 'write_file', arguments: { path: 'calc.js', content: CALC_FIXED } },
      ],
      usage: { input: 260, output: 90, cacheRead: 1200, cacheWrite: 1850 },
    },
    {
      ...pace,
      blocks: [
        { type: 'text', text: 'Now running the test to prove the fix.' },
        { type: 'tool_call', name: 'bash', arguments: { command: 'node test.js' } },
      ],
      usage: { input: 140, output: 40, cacheRead: 3050, cacheWrite: 260 },
    },
    {
      ...pace,
      blocks: [
        { type: 'text', text: 'The test passes.' },
        {
          type: 'tool_call',
          name: 'task_complete',
          arguments: { summary: 'Fixed add() in calc.js (it subtracted); `node test.js` now passes.' },
        },
      ],
      usage: { input: 120, output: 45, cacheRead: 3310, cacheWrite: 140 },
    },
  ];
}

/** Marks a folder as a demo's, holding the pid of the demo that made it, so that a later demo may remove it once that one has ended. */
const MARK = '.crow-demo';
const PREFIX = 'crow-demo-';

/**
 * A folder of this run's own ($TMPDIR/crow-demo-XXXXXX): two demos at once,
 * or two people's on one machine, never share one. The folders of this
 * user's earlier demos that have ended are removed first.
 */
function demoFolder(): string {
  removeEndedDemos();
  const folder = mkdtempSync(join(tmpdir(), PREFIX));
  writeFileSync(join(folder, MARK), `${process.pid}\n`);
  return folder;
}

function removeEndedDemos(): void {
  for (const name of readdirSync(tmpdir())) {
    if (!name.startsWith(PREFIX)) continue;
    const folder = join(tmpdir(), name);
    try {
      if (statSync(folder).uid !== process.getuid?.()) continue;
      const pid = Number(readFileSync(join(folder, MARK), 'utf8').trim());
      if (Number.isInteger(pid) && pid > 0 && running(pid)) continue;
      rmSync(folder, { recursive: true, force: true });
    } catch {
      // Not a demo's folder (no mark), or not ours to remove.
    }
  }
}

function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function main(): Promise<number> {
  const folder = demoFolder();
  const workspace = join(folder, 'workspace');
  // The user's own config must not steer the scripted run, nor its session and undo data land in theirs.
  const crowHome = join(folder, 'crow-home');
  mkdirSync(workspace);
  mkdirSync(crowHome);
  writeFileSync(join(workspace, 'calc.js'), CALC_BUGGY);
  writeFileSync(join(workspace, 'test.js'), TEST);
  const server = await FakeLlmServer.start();
  server.enqueue('anthropic', ...scenario());

  const say = (line: string): void => void process.stderr.write(`${line}\n`);
  say('Crow Agent demo — a SCRIPTED model (the fake LLM server) driving the real engine.');
  say(`Workspace: ${workspace} (calc.js has a bug; test.js fails)`);
  say(`$ crow run "${PROMPT}" --allow write,execute\n`);

  try {
    const code = await runCrow(workspace, server.anthropicBaseUrl, crowHome);
    const fixed = readFileSync(join(workspace, 'calc.js'), 'utf8') === CALC_FIXED;
    const testOutput = execFileSync(process.execPath, ['test.js'], { cwd: workspace, encoding: 'utf8' }).trim();
    const requests = server.requestsFor('anthropic');
    const sawToolResult = JSON.stringify(requests[1]?.body ?? {}).includes('return a - b;');
    say('');
    say(`crow exited with code ${code}; ${requests.length} model requests; calc.js fixed: ${fixed}; test: ${testOutput}`);
    say(`The second request carried the real read_file output back to the model: ${sawToolResult}`);
    tellWhereItIs(folder, workspace, crowHome, say);
    say('');
    say('To run against a real model:  ANTHROPIC_API_KEY=... node dist/crow.js run "your task" --cwd your/project');
    say('  (or CROW_PROVIDER=openai with OPENAI_API_KEY, or OPENAI_BASE_URL=http://localhost:11434/v1 for Ollama)');
    return code === 0 && fixed && sawToolResult ? 0 : 1;
  } finally {
    await server.close();
  }
}

/** The kept folder and the exact commands that open the demo's session (its data lives in the folder, not the user's). */
function tellWhereItIs(folder: string, workspace: string, crowHome: string, say: (line: string) => void): void {
  const [session] = new SessionStore({ dataHome: dataHome({ XDG_DATA_HOME: join(crowHome, 'data') }) }).list({ cwd: workspace });
  const crow = relative(process.cwd(), resolve(__dirname, '..', 'dist', 'crow.js')) || 'dist/crow.js';
  const env = `XDG_DATA_HOME=${join(crowHome, 'data')}`;
  say('');
  say(`The demo's folder is kept until a later demo: ${folder}`);
  if (!session) {
    say('(no session was stored: the run failed before its first prompt)');
    return;
  }
  say(`Its session ${session.id}, as a person would look at it:`);
  say(`  ${env} node ${crow} sessions show ${session.id}`);
  say(`  ${env} node ${crow} trace ${session.id}            (add --serve for the trace viewer in a browser)`);
  say(`  ${env} node ${crow} undo --cwd ${workspace}        (puts calc.js back)`);
}

function runCrow(workspace: string, baseUrl: string, crowHome: string): Promise<number> {
  const crow = resolve(__dirname, '..', 'dist', 'crow.js');
  const child = spawn(process.execPath, [crow, 'run', PROMPT, '--cwd', workspace, '--provider', 'anthropic', '--model', 'claude-demo', '--allow', 'write,execute'], {
    stdio: ['ignore', 'inherit', 'inherit'],
    env: {
      ...process.env,
      ANTHROPIC_API_KEY: 'demo-key-not-a-real-key',
      ANTHROPIC_BASE_URL: baseUrl,
      XDG_CONFIG_HOME: join(crowHome, 'config'),
      XDG_DATA_HOME: join(crowHome, 'data'),
      XDG_STATE_HOME: join(crowHome, 'state'),
      ...(process.stdout.isTTY ? { FORCE_COLOR: '1' } : {}),
    },
  });
  return new Promise((resolveCode, reject) => {
    child.on('error', reject);
    child.on('exit', (code, signal) => resolveCode(code ?? (signal ? 128 : 1)));
  });
}

main().then(
  (code) => (process.exitCode = code),
  (err: unknown) => {
    process.stderr.write(`demo failed: ${err instanceof Error ? err.stack : String(err)}\n`);
    process.exitCode = 1;
  },
);
