/**
 * The built `crow` binary in a real pseudo-terminal (tmux), against the fake
 * LLM server: what a person sees and types. A fake terminal once hid the bug
 * that turned every answer into "no"; these tests type the answers for real.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FakeLlmServer } from '../../testkit/fake-llm-server';
import { CROW, runCrow } from '../support/crow-binary';
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

/** A promise the test opens when it is ready for what waits on it. */
function gate(): { promise: Promise<void>; open(): void } {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
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

  const crowEnv = (extra: Record<string, string> = {}): NodeJS.ProcessEnv =>
    isolatedEnv(home, { ANTHROPIC_API_KEY: 'k', ANTHROPIC_BASE_URL: server.anthropicBaseUrl, LANG: 'C.UTF-8', ...extra });
  const crow = (...args: string[]): Terminal => crowIn(crowEnv(), ...args);
  const crowIn = (env: NodeJS.ProcessEnv, ...args: string[]): Terminal => {
    terminal?.close();
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
    order(asked, /crow · build/, /● Editing greet\.js/, /^\s+-console\.log\('hello'\);/m, /^\s+\+console\.log\('hello, world'\);/m, /\? builder wants to change files: Edit greet\.js/);
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
    assert.match(tty.screen(), /denied[\s\S]*⊘ Not allowed: write no\.txt · You said no\./);
    assert.match(JSON.stringify(server.requestsFor('anthropic')[1]!.body.messages), /Permission denied by the user/);
  });

  it('a command is asked with what "always" covers on a line of its own; one that fails reads "✗ Ran … · failed, exit N", with the wait apart', async () => {
    // Asked even where a sandbox would contain it.
    mkdirSync(join(home, 'config', 'crow-agent'), { recursive: true });
    writeFileSync(join(home, 'config', 'crow-agent', 'config.toml'), '[permissions]\nexecute = "ask"\n');
    server.enqueue('anthropic', call('bash', { command: 'echo made && cat missing.txt' }), say('It is missing.'));
    const tty = crow('run', 'Show the file', '--provider', 'anthropic');
    const asked = await tty.waitFor(/\[y\] yes/);
    order(asked, /● Running echo made/, /\? builder wants to run a command: echo made && cat missing\.txt/, /^ {2}"always" allows, for this session: commands starting with "echo" or "cat"$/m, /^ {2}\[y\] yes · \[a\] always · \[m\] modify · \[n\] no · \[never\] no, and stop asking/m);
    tty.typeLine('y');
    assert.equal(await tty.waitForExit(), 0, tty.screen());
    const screen = tty.screen();
    assert.match(screen, /^ {2}✗ Ran echo made && cat missing\.txt · failed, exit 1 \S+ \(waited \S+ for approval\) · cat: .*missing\.txt/m, 'a failing command is not shown as a success');
    assert.doesNotMatch(screen, /✓ .*exit 1/);
  });

  it('Ctrl-C during a long command stops it and exits 130, leaving no process behind', async () => {
    const marker = '31.4159';
    server.enqueue('anthropic', call('bash', { command: `sleep ${marker}` }), say('unreachable'));
    const tty = crow('run', 'Wait', '--provider', 'anthropic', '--allow', 'execute');
    await tty.waitFor(/● Running sleep/);
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
    order(first, /● Running echo step/, /^ {2}│ step-11$/m, /^ {2}⋯ .*1 line/m);
    writeFileSync(join(workspace, 'gate1'), '');
    const second = await tty.waitFor(/│ step-22/);
    order(second, /● Running echo step/, /^ {2}│ step-11$/m, /^ {2}│ step-22$/m, /^ {2}⋯ .*2 lines/m);
    writeFileSync(join(workspace, 'gate2'), '');
    const third = await tty.waitFor(/│ step-33/);
    const live = third.split('\n').filter((line) => line.startsWith('  │ '));
    assert.deepEqual(live, ['  │ 17', '  │ 18', '  │ 19', '  │ 20', '  │ step-33'], 'the last five lines, each once: older ones were replaced in place');
    writeFileSync(join(workspace, 'gate3'), '');
    assert.equal(await tty.waitForExit(), 0, tty.screen());
    const screen = tty.screen();
    order(screen, /● Running echo step/, /^ {2}✓ Ran echo step.* · step-33$/m, /All steps ran\./);
    assert.doesNotMatch(screen, /│|⋯/, 'the live lines are gone once the command ended');
  });

  it('crow trace --serve says whether the browser opener found a browser, and always prints the URL', async () => {
    server.enqueue('anthropic', say('Hello.'));
    const run = await runCrow(['run', 'Say hello', '--json', '--provider', 'anthropic'], crowEnv(), workspace);
    assert.equal(run.code, 0, run.stderr);
    const id = (JSON.parse(run.stdout.split('\n')[0]!) as { sessionId: string }).sessionId;
    const bin = join(home, 'bin');
    mkdirSync(bin);
    const opener = (exitCode: number): NodeJS.ProcessEnv => {
      writeFileSync(join(bin, 'xdg-open'), `#!/bin/sh\nexit ${exitCode}\n`, { mode: 0o755 });
      return crowEnv({ PATH: `${bin}:${process.env.PATH}` });
    };
    for (const [code, said] of [
      [3, /No browser could be opened here \(xdg-open exited with code 3\): open that URL in a browser\./],
      [0, /Opened it in your browser \(xdg-open\)\./],
    ] as const) {
      const tty = crowIn(opener(code), 'trace', id, '--serve');
      const screen = await tty.waitFor(/Ctrl-C stops/);
      assert.match(screen, /served at\n {2}http:\/\/127\.0\.0\.1:\d+\/\?token=[\w-]+/);
      assert.match(screen, said);
      tty.press('C-c');
      assert.equal(await tty.waitForExit(), 0, tty.screen());
    }
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
    order(asked, /^ {2}restore +keep\.txt/m, /1 file: 1 to restore/, /Restore these files/);
    tty.typeLine('y');
    assert.equal(await tty.waitForExit(), 0, tty.screen());
    assert.equal(readFileSync(join(workspace, 'keep.txt'), 'utf8'), 'original\n');
  });

  it('streams the answer line by line: a spinner until text comes, the open line raw, then redrawn rendered in place', async () => {
    const gates = [gate(), gate(), gate()];
    server.enqueue('anthropic', {
      blocks: [{ type: 'text', text: ['# Plan\n\n', 'The first half of a **long** paragraph ', 'and its second half.\n\n', '```js\n', 'const a = 1;\n', 'const b = 2;\n', '```\n'] }],
      pauses: [
        { before: '# Plan', until: gates[0]!.promise },
        { before: 'and its second half', until: gates[1]!.promise },
        { before: 'const b = 2', until: gates[2]!.promise },
      ],
    });
    const tty = crow('run', 'Plan it', '--provider', 'anthropic');
    // Nothing has come yet: a spinner with the time waited.
    const waiting = await tty.waitFor(/waiting for builder · \d+s/);
    order(waiting, /crow · build/, /^[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] waiting for builder · \d+s$/m);
    await tty.waitFor(/waiting for builder · [1-9]\d*s/, 5_000);
    gates[0]!.open();
    // Half a paragraph sent, the stream held: it is on screen already, raw, under the rendered heading.
    const half = await tty.waitFor(/The first half of a \*\*long\*\* paragraph$/m);
    assert.doesNotMatch(half, /waiting for builder/, 'the spinner is gone before the text');
    order(half, /^# Plan$/m, /^The first half of a \*\*long\*\* paragraph$/m);
    gates[1]!.open();
    // The line ended: redrawn rendered in its place; the code block shows line by line.
    const code = await tty.waitFor(/const a = 1;/);
    assert.match(code, /^The first half of a long paragraph and its second half\.$/m);
    assert.equal(code.match(/The first half/g)?.length, 1, `redrawn in place, not written twice:\n${code}`);
    assert.doesNotMatch(code, /const b = 2|```/);
    assert.match(tty.screen({ colors: true }), /\x1b\[[0-9;]*mconst\x1b\[[0-9;]*m a = /, 'the code line is highlighted');
    gates[2]!.open();
    assert.equal(await tty.waitForExit(), 0, tty.screen());
    const screen = tty.screen();
    order(screen, /^# Plan\n\nThe first half/m, /and its second half\.\n\n {2}const a = 1;\n {2}const b = 2;$/m);
    assert.doesNotMatch(screen, /```|\*\*/);
  });

  it('redraws an open line that wrapped over several rows of a narrow terminal without leaving pieces of it behind', async () => {
    const held = gate();
    const words = Array.from({ length: 24 }, (_, i) => `w${i}`).join(' ');
    server.enqueue('anthropic', {
      blocks: [{ type: 'text', text: ['Intro line.\n\n', `*Wrapped* ${words} `, '漢字 end.\n', 'Last line.\n'] }],
      pauses: [{ before: '漢字 end', until: held.promise }],
    });
    terminal?.close();
    terminal = Terminal.start([process.execPath, CROW, 'run', 'Wrap it', '--provider', 'anthropic'], { cwd: workspace, env: crowEnv(), columns: 30, rows: 20 });
    const tty = terminal;
    const open = await tty.waitFor(/w23/);
    assert.match(open, /\*Wrapped\* w0/, 'raw while it arrives');
    held.open();
    assert.equal(await tty.waitForExit(), 0, tty.screen());
    const screen = tty.screen();
    assert.doesNotMatch(screen, /\*Wrapped\*/, 'the raw rows were all erased');
    assert.equal(screen.match(/w23/g)?.length, 1, `the paragraph shows once:\n${screen}`);
    order(screen, /^Intro line\.$/m, /^Wrapped w0/m, /漢字 end\.$/m, /^Last line\.$/m);
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
