/**
 * `npm run demo`: the real `crow run` binary, through the real Anthropic SDK,
 * against the fake LLM server playing a scripted four-step scenario in a
 * temporary workspace. The model's replies are scripted; every tool call runs
 * for real. No API key, no network.
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { FakeLlmServer, type ScriptedReply } from '../src/testing/fake-llm-server';

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
      usage: { input: 260, output: 90, cacheRead: 1200 },
    },
    {
      ...pace,
      blocks: [
        { type: 'text', text: 'Now running the test to prove the fix.' },
        { type: 'tool_call', name: 'bash', arguments: { command: 'node test.js' } },
      ],
      usage: { input: 140, output: 40, cacheRead: 1450 },
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
      usage: { input: 120, output: 45, cacheRead: 1600 },
    },
  ];
}

async function main(): Promise<number> {
  const workspace = mkdtempSync(join(tmpdir(), 'crow-demo-'));
  // The user's own config must not steer the scripted run, nor its undo data land in theirs.
  const configHome = mkdtempSync(join(tmpdir(), 'crow-demo-config-'));
  writeFileSync(join(workspace, 'calc.js'), CALC_BUGGY);
  writeFileSync(join(workspace, 'test.js'), TEST);
  const server = await FakeLlmServer.start();
  server.enqueue('anthropic', ...scenario());

  const say = (line: string): void => void process.stderr.write(`${line}\n`);
  say('Crow Agent demo — a SCRIPTED model (the fake LLM server) driving the real engine.');
  say(`Workspace: ${workspace} (calc.js has a bug; test.js fails)`);
  say(`$ crow run "${PROMPT}" --allow write,execute\n`);

  try {
    const code = await runCrow(workspace, server.anthropicBaseUrl, configHome);
    const fixed = readFileSync(join(workspace, 'calc.js'), 'utf8') === CALC_FIXED;
    const testOutput = execFileSync(process.execPath, ['test.js'], { cwd: workspace, encoding: 'utf8' }).trim();
    const requests = server.requestsFor('anthropic');
    const sawToolResult = JSON.stringify(requests[1]?.body ?? {}).includes('return a - b;');
    say('');
    say(`crow exited with code ${code}; ${requests.length} model requests; calc.js fixed: ${fixed}; test: ${testOutput}`);
    say(`The second request carried the real read_file output back to the model: ${sawToolResult}`);
    say('');
    say('To run against a real model:  ANTHROPIC_API_KEY=... node dist/crow.js run "your task" --cwd your/project');
    say('  (or CROW_PROVIDER=openai with OPENAI_API_KEY, or OPENAI_BASE_URL=http://localhost:11434/v1 for Ollama)');
    return code === 0 && fixed && sawToolResult ? 0 : 1;
  } finally {
    await server.close();
    rmSync(workspace, { recursive: true, force: true });
    rmSync(configHome, { recursive: true, force: true });
  }
}

function runCrow(workspace: string, baseUrl: string, configHome: string): Promise<number> {
  const crow = resolve(__dirname, '..', 'dist', 'crow.js');
  const child = spawn(process.execPath, [crow, 'run', PROMPT, '--cwd', workspace, '--provider', 'anthropic', '--model', 'claude-demo', '--allow', 'write,execute'], {
    stdio: ['ignore', 'inherit', 'inherit'],
    env: {
      ...process.env,
      ANTHROPIC_API_KEY: 'demo-key-not-a-real-key',
      ANTHROPIC_BASE_URL: baseUrl,
      XDG_CONFIG_HOME: configHome,
      XDG_DATA_HOME: configHome,
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
