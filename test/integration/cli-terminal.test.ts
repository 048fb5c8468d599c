/**
 * The built `crow` binary in a real pseudo-terminal (tmux), against the fake
 * LLM server: what a person sees and types. A fake terminal once hid the bug
 * that turned every answer into "no"; these tests type the answers for real.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FakeLlmServer } from '../../src/testing/fake-llm-server';
import { CROW } from '../support/crow-binary';
import { isolatedEnv } from '../support/isolated-env';
import { describeUnless } from '../support/skip-reasons';
import { NO_TMUX, Terminal } from '../support/terminal';

const call = (name: string, args: unknown) => ({ blocks: [{ type: 'tool_call' as const, name, arguments: args }] });
const say = (text: string) => ({ blocks: [{ type: 'text' as const, text }] });

/** The lines of `screen` from the first match of `from` on, for asserting what comes under what. */
function order(screen: string, ...patterns: RegExp[]): void {
  let at = 0;
  for (const pattern of patterns) {
    const rest = screen.slice(at);
    const found = rest.search(pattern);
    assert.ok(found >= 0, `expected ${pattern} after what came before it on screen:\n${screen}`);
    at += found + 1;
  }
}

/** Processes whose command line contains `text`. */
function processesWith(text: string): string[] {
  try {
    return execFileSync('pgrep', ['-af', text], { encoding: 'utf8' }).trim().split('\n').filter((line) => line !== '' && !line.includes('pgrep'));
  } catch {
    return [];
  }
}

describeUnless(NO_TMUX, 'crow in a real terminal', function () {
  this.timeout(60_000);
  let server: FakeLlmServer;
  let workspace: string;
  let home: string;
  let terminal: Terminal | undefined;

  before(async () => {
    server = await FakeLlmServer.start();
  });
  after(() => server.close());
  beforeEach(() => {
    server.reset();
    workspace = mkdtempSync(join(tmpdir(), 'crow-tty-ws-'));
    home = mkdtempSync(join(tmpdir(), 'crow-tty-home-'));
  });
  afterEach(() => {
    terminal?.close();
    terminal = undefined;
    rmSync(workspace, { recursive: true, force: true });
    rmSync(home, { recursive: true, force: true });
  });

  const crow = (...args: string[]): Terminal => {
    const env = isolatedEnv(home, { ANTHROPIC_API_KEY: 'k', ANTHROPIC_BASE_URL: server.anthropicBaseUrl, LANG: 'C.UTF-8' });
    terminal = Terminal.start([process.execPath, CROW, ...args], { cwd: workspace, env });
    return terminal;
  };

  it('asks under the tool line with the diff, and "y" lets the edit through', async () => {
    writeFileSync(join(workspace, 'greet.js'), "console.log('hello');\n");
    server.enqueue(
      'anthropic',
      call('edit_file', { path: 'greet.js', old_string: "'hello'", new_string: "'hello, world'" }),
      say('Fixed the greeting.'),
    );
    const tty = crow('run', 'Fix the greeting', '--provider', 'anthropic');
    const asked = await tty.waitFor(/\[y\] yes/);
    order(asked, /crow · build/, /● edit_file greet\.js/, /^\s+-console\.log\('hello'\);/m, /^\s+\+console\.log\('hello, world'\);/m, /\? builder wants to change files: Edit greet\.js/);
    tty.typeLine('y');
    assert.equal(await tty.waitForExit(), 0, tty.screen());
    assert.equal(readFileSync(join(workspace, 'greet.js'), 'utf8'), "console.log('hello, world');\n");
    const screen = tty.screen();
    assert.match(screen, /allowed/);
    assert.match(screen, /✓ .*greet\.js/);
    assert.equal(screen.match(/\+console\.log\('hello, world'\);/g)?.length, 1, 'the diff shown with the question is not repeated');
    assert.match(screen, /Fixed the greeting\./);
    assert.doesNotMatch(screen, /Permission denied/);
  });

  it('"a" allows the rest of the session\'s file changes without asking again', async () => {
    server.enqueue(
      'anthropic',
      call('write_file', { path: 'a.txt', content: 'a\n' }),
      call('write_file', { path: 'b.txt', content: 'b\n' }),
      say('Both written.'),
    );
    const tty = crow('run', 'Write two files', '--provider', 'anthropic');
    await tty.waitFor(/\[y\] yes/);
    tty.typeLine('a');
    assert.equal(await tty.waitForExit(), 0, tty.screen());
    assert.ok(existsSync(join(workspace, 'a.txt')) && existsSync(join(workspace, 'b.txt')), tty.screen());
    assert.equal(tty.screen().match(/wants to change files/g)?.length, 1, 'asked once');
  });

  it('"n" refuses: nothing is written and the model is told', async () => {
    server.enqueue('anthropic', call('write_file', { path: 'no.txt', content: 'no\n' }), say('Understood.'));
    const tty = crow('run', 'Write a file', '--provider', 'anthropic');
    await tty.waitFor(/\[y\] yes/);
    tty.typeLine('n');
    assert.equal(await tty.waitForExit(), 0, tty.screen());
    assert.ok(!existsSync(join(workspace, 'no.txt')));
    assert.match(tty.screen(), /denied[\s\S]*✗ Permission denied by the user/);
    assert.match(JSON.stringify(server.requestsFor('anthropic')[1]!.body.messages), /Permission denied by the user/);
  });

  it('Ctrl-C during a long command stops it and exits 130, leaving no process behind', async () => {
    const marker = '31.4159';
    server.enqueue('anthropic', call('bash', { command: `sleep ${marker}` }), say('unreachable'));
    const tty = crow('run', 'Wait', '--provider', 'anthropic', '--allow', 'execute');
    await tty.waitFor(/● bash sleep/);
    const deadline = Date.now() + 10_000;
    while (processesWith(`sleep ${marker}`).length === 0 && Date.now() < deadline) await new Promise((done) => setTimeout(done, 50));
    assert.ok(processesWith(`sleep ${marker}`).length > 0, 'the command runs');
    const pressed = Date.now();
    tty.press('C-c');
    assert.equal(await tty.waitForExit(5_000), 130, tty.screen());
    if (process.env.CROW_TTY_TIMING) console.log(`      exited ${Date.now() - pressed} ms after Ctrl-C`);
    assert.match(tty.screen(), /Cancelling/);
    assert.deepEqual(processesWith(`sleep ${marker}`), [], 'the command was stopped with crow');
  });

  it('shows a running command\'s last lines under its tool line, replaced in place, and clears them when it ends', async () => {
    // Each step waits for a file the test writes once it saw the step's line: the lines show while the command runs.
    const step = (n: number): string => `echo step-$((${n} * 11)); while [ ! -e gate${n} ]; do sleep 0.05; done`;
    server.enqueue('anthropic', call('bash', { command: `${step(1)}; ${step(2)}; seq 1 20; ${step(3)}`, timeout_ms: 30_000 }), say('All steps ran.'));
    const tty = crow('run', 'Run the steps', '--provider', 'anthropic', '--allow', 'execute');
    const first = await tty.waitFor(/│ step-11/);
    order(first, /● bash echo step/, /^ {2}│ step-11$/m, /^ {2}⋯ .*1 line/m);
    writeFileSync(join(workspace, 'gate1'), '');
    const second = await tty.waitFor(/│ step-22/);
    order(second, /● bash echo step/, /^ {2}│ step-11$/m, /^ {2}│ step-22$/m, /^ {2}⋯ .*2 lines/m);
    writeFileSync(join(workspace, 'gate2'), '');
    const third = await tty.waitFor(/│ step-33/);
    const live = third.split('\n').filter((line) => line.startsWith('  │ '));
    assert.deepEqual(live, ['  │ 17', '  │ 18', '  │ 19', '  │ 20', '  │ step-33'], 'the last five lines, each once: older ones were replaced in place');
    writeFileSync(join(workspace, 'gate3'), '');
    assert.equal(await tty.waitForExit(), 0, tty.screen());
    const screen = tty.screen();
    order(screen, /● bash echo step/, /^ {2}✓ .*exit 0 · step-33$/m, /All steps ran\./);
    assert.doesNotMatch(screen, /│|⋯/, 'the live lines are gone once the command ended');
  });

  it('crow undo shows what it will restore and "y" restores it', async () => {
    writeFileSync(join(workspace, 'keep.txt'), 'original\n');
    server.enqueue('anthropic', call('write_file', { path: 'keep.txt', content: 'changed\n' }), say('Changed.'));
    const run = crow('run', 'Change it', '--provider', 'anthropic', '--allow', 'write');
    assert.equal(await run.waitForExit(), 0, run.screen());
    run.close();
    assert.equal(readFileSync(join(workspace, 'keep.txt'), 'utf8'), 'changed\n');

    const tty = crow('undo');
    const asked = await tty.waitFor(/Restore these files\? \[y\/N\]/);
    order(asked, /keep\.txt/, /Restore these files/);
    tty.typeLine('y');
    assert.equal(await tty.waitForExit(), 0, tty.screen());
    assert.equal(readFileSync(join(workspace, 'keep.txt'), 'utf8'), 'original\n');
  });

  it('renders the answer\'s markdown, and marks thinking so it reads apart from the answer', async () => {
    server.enqueue('anthropic', {
      blocks: [
        { type: 'thinking', text: 'First I consider\nthe options.' },
        { type: 'text', text: '# Plan\n\nSteps:\n\n- **one**\n- two\n\n```js\nconst a = 1;\n```\n' },
      ],
    });
    const tty = crow('run', 'Plan it', '--provider', 'anthropic');
    assert.equal(await tty.waitForExit(), 0, tty.screen());
    const screen = tty.screen();
    assert.match(screen, /┊ First I consider\n┊ the options\./);
    assert.doesNotMatch(screen, /\*\*one\*\*/, 'emphasis is rendered, not shown as asterisks');
    assert.doesNotMatch(screen, /```/, 'code fences are rendered');
    assert.match(screen, /one/);
    assert.match(screen, /const a = 1;/);
  });
});
