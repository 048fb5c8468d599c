import assert from 'node:assert/strict';
import { RunRenderer } from '../../../../src/adapters/cli/run-renderer';
import { styleFor } from '../../../../src/adapters/cli/terminal-style';
import type { AgentEvent } from '../../../../src/engine/events';
import { DEFAULT_POLICY } from '../../../../src/vocabulary/permission-types';

const plain = styleFor({ isTTY: false } as NodeJS.WriteStream, {});

function renderer(): { r: RunRenderer; out: () => string; err: () => string } {
  let out = '';
  let err = '';
  const r = new RunRenderer({ out: { write: (t: string) => (out += t) }, err: { write: (t: string) => (err += t) }, outStyle: plain, errStyle: plain });
  return { r, out: () => out, err: () => err };
}

const agent = (name: string, model: string) => ({ name, provider: { name: 'anthropic', model } }) as never;
const result = (diff?: string) => ({ status: 'success' as const, output: 'Overwrote x.js (+1 -1 lines).', metadata: { filesModified: ['x.js'], durationMs: 3, extra: { linesAdded: 1, linesRemoved: 1 }, ...(diff ? { diff } : {}) } });

describe('the run as a terminal shows it', () => {
  it('opens with the agents, their models, the workspace and what is allowed', () => {
    const { r, err } = renderer();
    r.header({
      composition: { name: 'pair', primary: agent('builder', 'claude-a'), coagent: agent('reviewer', 'claude-b') } as never,
      workspace: '/work/app',
      rules: DEFAULT_POLICY.rules,
      sandboxed: true,
    });
    assert.equal(err(), 'crow · pair: builder anthropic/claude-a, reviewer anthropic/claude-b · /work/app · write ask, execute ask, network ask · commands sandboxed\n');
  });

  it('marks every line of thinking, across deltas, and keeps the answer on stdout', () => {
    const { r, out, err } = renderer();
    for (const delta of ['First I', ' look.\nThen I', ' act.']) r.render({ type: 'thinking_delta', agent: 'builder', delta });
    r.render({ type: 'text_delta', agent: 'builder', delta: 'The answer.' });
    assert.equal(err(), '┊ First I look.\n┊ Then I act.\n');
    assert.equal(out(), 'The answer.');
  });

  it('names the first speaker of a reviewed run, tells a review in two lines, and completes after the verdict', () => {
    const { r, err } = renderer();
    r.header({ composition: { name: 'pair', primary: agent('builder', 'm'), coagent: agent('reviewer', 'm') } as never, workspace: '/w', rules: DEFAULT_POLICY.rules, sandboxed: false });
    const events: AgentEvent[] = [
      { type: 'text_delta', agent: 'builder', delta: 'Done.\n' },
      { type: 'handoff', agent: 'builder', to: 'reviewer', purpose: 'review', text: 'builder reports on the task below' },
      { type: 'coagent_start', agent: 'reviewer', primary: 'builder', round: 1 },
      { type: 'text_delta', agent: 'reviewer', delta: 'Looks right.\n' },
      { type: 'task_complete', agent: 'reviewer', summary: 'Approved.' },
      { type: 'coagent_end', agent: 'reviewer', primary: 'builder', round: 1, verdict: 'approved', summary: 'Approved.' },
      { type: 'run_complete', agent: 'pair', status: 'completed', message: 'done' },
    ];
    for (const event of events) r.render(event);
    const lines = err().split('\n').slice(1, -1);
    assert.deepEqual(lines, ['[builder]', '⇄ First review: the reviewer checks the work', '[reviewer]', '✓ Reviewer approved', '✔ Task complete: Approved.']);
    assert.doesNotMatch(err(), /below/);
  });

  it('shows an edit\'s diff under its result, unless its approval already showed it', () => {
    const { r, err } = renderer();
    const diff = '--- a/x.js\n+++ b/x.js\n@@ -1 +1 @@\n-a\n+b\n';
    r.render({ type: 'tool_call_start', agent: 'builder', callId: 'c1', tool: 'edit_file', kind: 'edit', arguments: {}, summary: 'x.js', locations: [] });
    r.render({ type: 'tool_call_end', agent: 'builder', callId: 'c1', tool: 'edit_file', result: result(diff), durationMs: 3 });
    assert.match(err(), /● Editing x\.js\n {2}✓ Edited x\.js \+1 −1 3ms\n {4}@@ -1 \+1 @@\n {4}-a\n {4}\+b\n$/);
    const before = err().length;
    r.render({ type: 'tool_call_start', agent: 'builder', callId: 'c2', tool: 'edit_file', kind: 'edit', arguments: {}, summary: 'x.js', locations: [] });
    r.markPreviewed('c2');
    r.render({ type: 'tool_call_end', agent: 'builder', callId: 'c2', tool: 'edit_file', result: result(diff), durationMs: 3 });
    assert.doesNotMatch(err().slice(before), /@@/);
  });

  it('tells each call in the chat\'s words: what it did to what, its outcome, a failed command\'s exit, a refusal; the tool\'s name only with --verbose', () => {
    const { r, err } = renderer();
    const call = (callId: string, tool: string, kind: 'read' | 'edit' | 'execute', args: Record<string, unknown>, summary: string, end: object): void => {
      r.render({ type: 'tool_call_start', agent: 'builder', callId, tool, kind, arguments: args, summary, locations: [] });
      r.render({ type: 'tool_call_end', agent: 'builder', callId, tool, result: { status: 'success', output: '', metadata: { filesModified: [], durationMs: 5, extra: {} }, ...end } as never, durationMs: 5 });
    };
    call('c1', 'read_file', 'read', { path: 'greeting.txt' }, 'greeting.txt', {});
    call('c2', 'edit_file', 'edit', { path: 'greeting.txt' }, 'greeting.txt', { metadata: { filesModified: ['greeting.txt'], durationMs: 5, extra: { linesAdded: 1, linesRemoved: 1 } } });
    call('c3', 'bash', 'execute', { command: 'npm test' }, 'npm test', { output: 'npm error Missing script: "test"\n[exit code 254]', metadata: { filesModified: [], durationMs: 5, extra: { exitCode: 254 } } });
    call('c4', 'write_file', 'edit', { path: 'a.txt' }, 'a.txt', { status: 'error', error: 'Permission denied: the user rejected this call.', metadata: { filesModified: [], durationMs: 5, extra: { permission: 'denied' }, approval: 'reject_once' } });
    call('c5', 'task_complete', 'other' as never, { summary: 'Done.' }, 'Done.', {});
    assert.deepEqual(err().split('\n').slice(0, -1), [
      '● Reading greeting.txt',
      '  ✓ Read greeting.txt 5ms',
      '● Editing greeting.txt',
      '  ✓ Edited greeting.txt +1 −1 5ms',
      '● Running npm test',
      '  ✗ Ran npm test · failed, exit 254 5ms · npm error Missing script: "test"',
      '● Writing a.txt',
      '  ⊘ Not allowed: write a.txt · You said no. 5ms',
    ]);
    assert.doesNotMatch(err(), /read_file|edit_file|bash|write_file|task_complete/, 'no tool names without --verbose');
    let verbose = '';
    const loud = new RunRenderer({ out: { write: () => undefined }, err: { write: (t: string) => (verbose += t) }, outStyle: plain, errStyle: plain }, { verbose: true });
    loud.render({ type: 'tool_call_start', agent: 'builder', callId: 'v1', tool: 'read_file', kind: 'read', arguments: { path: 'greeting.txt' }, summary: 'greeting.txt', locations: [] });
    assert.equal(verbose, '● Reading greeting.txt (read_file)\n');
  });

  it('lets a question wait until its tool line is on screen', async () => {
    const { r } = renderer();
    let shown = false;
    const waiting = r.whenShown('c9').then(() => (shown = true));
    await Promise.resolve();
    assert.equal(shown, false);
    r.render({ type: 'tool_call_start', agent: 'builder', callId: 'c9', tool: 'write_file', kind: 'edit', arguments: {}, summary: 'y.js', locations: [] });
    await waiting;
    assert.equal(shown, true);
    await r.whenShown('c9');
  });
});

describe('a running call in the terminal', () => {
  const start: AgentEvent = { type: 'tool_call_start', agent: 'builder', callId: 'c1', tool: 'bash', kind: 'execute', arguments: {}, summary: 'npm test', locations: [] };
  const progress = (elapsedMs: number, tail?: string, lines?: number): AgentEvent => ({ type: 'tool_progress', agent: 'builder', callId: 'c1', tool: 'bash', elapsedMs, ...(tail !== undefined ? { tail, lines } : {}) });
  const end: AgentEvent = { type: 'tool_call_end', agent: 'builder', callId: 'c1', tool: 'bash', result: { status: 'success', output: 'ok\n[exit code 0]', metadata: { filesModified: [], durationMs: 2100, extra: { exitCode: 0 } } }, durationMs: 2100 };

  /** A terminal that applies "cursor up N" and "erase to the end": the lines it shows in the end. */
  function terminal(columns = 40): { r: RunRenderer; screen: () => string[]; raw: () => string } {
    let raw = '';
    const r = new RunRenderer({ out: { write: (t: string) => (raw += t) }, err: { write: (t: string) => (raw += t) }, outStyle: plain, errStyle: plain, live: { columns: () => columns } });
    const screen = (): string[] => {
      const lines: string[] = [''];
      for (const part of raw.split(/(\x1b\[\d+A\r\x1b\[J)/)) {
        const up = /^\x1b\[(\d+)A\r\x1b\[J$/.exec(part);
        if (up) lines.splice(lines.length - 1 - Number(up[1]), Number(up[1]) + 1, '');
        else for (const [i, piece] of part.split('\n').entries()) i === 0 ? (lines[lines.length - 1] += piece) : lines.push(piece);
      }
      return lines.filter((line, i) => line !== '' || i < lines.length - 1);
    };
    return { r, screen, raw: () => raw };
  }

  it('shows the last lines under the call\'s line and its time, replacing them in place as output grows', () => {
    const { r, screen } = terminal();
    r.render(start);
    r.render(progress(400, 'compiling\nlinking', 2));
    assert.deepEqual(screen(), ['● Running npm test', '  │ compiling', '  │ linking', '  ⋯ 400ms · 2 lines']);
    r.render(progress(1_400, 'a\nb\nc\nd\ne\nf\ng', 7));
    assert.deepEqual(screen(), ['● Running npm test', '  │ c', '  │ d', '  │ e', '  │ f', '  │ g', '  ⋯ 1.4s · 7 lines']);
    r.render(end);
    assert.deepEqual(screen(), ['● Running npm test', '  ✓ Ran npm test 2.1s · ok', '⠋ waiting for builder · 0s'], 'then the model is asked again');
    r.render({ type: 'text_delta', agent: 'builder', delta: 'Done.' });
    assert.deepEqual(screen(), ['● Running npm test', '  ✓ Ran npm test 2.1s · ok', 'Done.']);
  });

  it('spins with the time waited while nothing has come from the model, and clears it before the first text', async () => {
    const { r, screen, raw } = terminal();
    r.header({ composition: { name: 'build', primary: { name: 'builder', provider: { name: 'anthropic', model: 'm' } }, coagent: undefined } as never, workspace: '/w', rules: { read: 'allow', write: 'ask', execute: 'ask', network: 'ask' }, sandboxed: false });
    assert.match(screen().at(-1)!, /^⠋ waiting for builder · 0s$/);
    await new Promise((done) => setTimeout(done, 250));
    assert.match(screen().at(-1)!, /^[⠙⠹⠸] waiting for builder · 0s$/, 'the spinner turns');
    r.render({ type: 'text_delta', agent: 'builder', delta: 'Hello' });
    assert.doesNotMatch(screen().join('\n'), /waiting for/);
    assert.equal(screen().at(-1), 'Hello');
    const after = raw().length;
    await new Promise((done) => setTimeout(done, 250));
    assert.equal(raw().length, after, 'nothing is drawn once text came');
  });

  it('keeps each live line to the terminal\'s width, wide characters counted twice, so erasing them erases them all', () => {
    const { r, screen } = terminal(20);
    r.render(start);
    r.render(progress(100, `${'x'.repeat(100)}\n${'漢'.repeat(30)}\n\tindented`, 3));
    const [, ...live] = screen();
    assert.deepEqual(live, ['  │ xxxxxxxxxxxxxx…', '  │ 漢漢漢漢漢漢漢…', '  │   indented', '  ⋯ 100ms · 3 lines']);
  });

  it('erases the live lines before anything else is written, and draws them again under it', () => {
    const { r, screen } = terminal();
    r.render(start);
    r.render(progress(100, 'working', 1));
    r.render({ type: 'notice', agent: 'build', level: 'warning', message: 'an MCP server stopped' });
    assert.deepEqual(screen(), ['● Running npm test', 'crow: warning: an MCP server stopped', '  │ working', '  ⋯ 100ms · 1 line']);
    r.pause();
    assert.deepEqual(screen(), ['● Running npm test', 'crow: warning: an MCP server stopped'], 'a question comes alone');
    r.render(progress(1_100, 'still working', 2));
    assert.deepEqual(screen().length, 2, 'nothing drawn under a question');
    r.resume();
    assert.deepEqual(screen().slice(2), ['  │ still working', '  ⋯ 1.1s · 2 lines']);
    r.finish('session-1');
    assert.doesNotMatch(screen().join('\n'), /still working/);
  });

  it('passes no escape sequence of the output to the terminal', () => {
    const { r, raw } = terminal();
    r.render(start);
    r.render(progress(100, 'evil \x1b]0;title\x07\x1b[2J\x9b31m\x07line', 1));
    const written = raw().replace(/\x1b\[\d+A\r\x1b\[J/g, '');
    assert.doesNotMatch(written, /[\x07\x9b]|\x1b[\]\[]/);
  });

  it('on a pipe, says now and then that a long call still runs, with its last line, and writes no escapes', () => {
    const { r, err } = renderer();
    r.render(start);
    for (let s = 1; s <= 95; s++) r.render(progress(s * 1_000, `line ${s}`, s));
    r.render(end);
    assert.equal(
      err(),
      '● Running npm test\n  ⋯ still running npm test (30.0s): line 30\n  ⋯ still running npm test (60.0s): line 60\n  ⋯ still running npm test (90.0s): line 90\n  ✓ Ran npm test 2.1s · ok\n',
    );
  });
});
