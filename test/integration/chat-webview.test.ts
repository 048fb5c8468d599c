import assert from 'node:assert/strict';
import { existsSync, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ChatView, chatViewSuite } from '../fixtures/chat-webview/harness';
import { pickOption, selectedValue, shownText, textInput } from '../support/vscode-elements';
import { ANSWER, CODER, DIFF, INIT, REVIEWER, ZERO, chunks, promptEvents } from '../fixtures/chat-webview/session';
import type { ApprovalRequest, HostMessage, TranscriptEvent } from '../../webview/chat/protocol';

const ARTIFACTS = resolve(__dirname, '..', 'artifacts', 'chat-webview');
const XSS = '<script>window.__xss = 1</script><img src=x onerror="window.__xss = 2"><iframe src="javascript:window.__xss = 3"></iframe>';

const APPROVAL: ApprovalRequest = {
  id: 'ask-1',
  callId: 'call-run-1',
  actor: CODER,
  title: 'Run: npm test',
  category: 'execute',
  command: 'npm test -- --grep greet',
  paths: [],
  alwaysScope: 'all commands starting with "npm test"',
};

describe('chat view in headless Chromium', function () {
  this.timeout(60_000);
  const suite = chatViewSuite(INIT);
  let view: ChatView;

  before(() => mkdirSync(ARTIFACTS, { recursive: true }));
  beforeEach(() => (view = suite.view()));

  const page = () => view.page;
  const events = (...list: TranscriptEvent[]): HostMessage => ({ type: 'events', events: list });

  it('streams assistant text as markdown with a highlighted code block, in one block', async () => {
    await view.send(events({ type: 'user_message', text: 'Add a greet() function' }));
    for (const delta of chunks(ANSWER)) await page().evaluate(`window.postMessage(${JSON.stringify(events({ type: 'text_delta', actor: CODER, delta }))}, '*')`);
    await view.frames();
    assert.equal(await page().locator('.msg-user').innerText(), 'Add a greet() function');
    assert.equal(await page().locator('.msg-assistant').count(), 1);
    const answer = page().locator('.msg-assistant .markdown');
    assert.equal(await answer.locator('strong').innerText(), 'greeting');
    assert.equal(await answer.locator('li').count(), 3);
    assert.deepEqual(await answer.locator('a').allInnerTexts(), ['the file', 'https://example.com/docs'], 'file names are not mistaken for web addresses');
    const code = answer.locator('pre code.language-ts');
    assert.match(await code.innerText(), /export const greet = \(name: string\): string => `Hello, \$\{name\}`;/);
    assert.equal(await code.locator('.hljs-keyword').first().innerText(), 'export');
    assert.ok((await code.locator('.hljs-string').count()) > 0, 'the template string is highlighted');
  });

  it('gives a code block a head with its language, Copy and Insert, which post the code exactly', async () => {
    const code = 'export function add(a: number, b: number): number {\n  return a + b;\n}';
    await view.send(events({ type: 'text_delta', actor: CODER, delta: `Here:\n\n\`\`\`ts\n${code}\n\`\`\`\n\n| column | another column |\n| --- | --- |\n| averyveryverylongwordthatmustnotbreak | x |\n` }));
    await view.frames();
    const block = page().locator('.msg-assistant .code-block');
    assert.equal(await block.locator('.code-language').innerText(), 'ts');
    await block.locator('button.code-copy').click();
    await block.locator('button.code-insert').click();
    assert.deepEqual(await view.takePosted(), [{ type: 'copy_code', text: `${code}\n` }, { type: 'insert_code', text: `${code}\n` }]);
    // A table scrolls in its own box instead of breaking words mid-way.
    assert.equal(await page().evaluate(`getComputedStyle(document.querySelector('.msg-assistant table')).overflowX`), 'auto');
    assert.equal(await page().evaluate(`getComputedStyle(document.querySelector('.msg-assistant td')).wordBreak`), 'normal');
    // A language name is the model's text: shown as text, never parsed.
    await view.send(events({ type: 'text_delta', actor: CODER, delta: '\n```<img/src/onerror=alert(1)>\nx\n```\n' }));
    await view.frames();
    assert.equal(await page().locator('.msg-assistant img').count(), 0);
    assert.equal(await page().locator('.msg-assistant .code-language').last().innerText(), '<img/src/onerror=alert(1)>');
  });

  it('offers Apply on a code block: with the file its fence names, or none for the host to ask, never on shell commands; a hostile path stays text', async () => {
    const named = 'export const a = 2;';
    await view.send(events({ type: 'text_delta', actor: CODER, delta: `\`\`\`ts src/a.ts\n${named}\n\`\`\`\n\n\`\`\`py:tools/run.py\nprint(1)\n\`\`\`\n\n\`\`\`sh\nls\n\`\`\`\n` }));
    await view.frames();
    const blocks = page().locator('.msg-assistant .code-block');
    assert.equal(await blocks.count(), 3);
    assert.equal(await blocks.nth(0).locator('.code-language').innerText(), 'ts · src/a.ts', 'the head names the file Apply writes');
    for (const index of [0, 1]) await blocks.nth(index).locator('button.code-apply').click();
    assert.deepEqual(await view.takePosted(), [
      { type: 'apply_code', text: `${named}\n`, path: 'src/a.ts' },
      { type: 'apply_code', text: 'print(1)\n', path: 'tools/run.py' },
    ]);
    assert.equal(await blocks.nth(2).locator('button.code-apply').count(), 0, 'a shell block is commands to run, not a file: no Apply');
    assert.equal(await blocks.nth(2).locator('button.code-copy').count(), 1);
    await view.send(events({ type: 'text_delta', actor: CODER, delta: '\n```text\nls\n```\n' }));
    await view.frames();
    await blocks.last().locator('button.code-apply').click();
    assert.deepEqual(await view.takePosted(), [{ type: 'apply_code', text: 'ls\n' }], 'a block that names no file: the host asks which');
    await view.send(events({ type: 'text_delta', actor: CODER, delta: '\n```ts "><img/src/x/onerror=alert(1)>.ts\nx\n```\n' }));
    await view.frames();
    assert.equal(await page().locator('.msg-assistant img').count(), 0);
    await blocks.last().locator('button.code-apply').click();
    assert.deepEqual(await view.takePosted(), [{ type: 'apply_code', text: 'x\n', path: '><img/src/x/onerror=alert(1)>.ts' }], 'sent as text (a leading quote dropped): the host refuses or asks');
  });

  it('renders a burst of deltas once, not once per delta', async () => {
    await view.send(events({ type: 'text_delta', actor: CODER, delta: 'Start. ' }));
    await page().evaluate(`window.__renders = 0;
      new MutationObserver((records) => { window.__renders += records.length; })
        .observe(document.querySelector('.msg-assistant .markdown'), { childList: true })`);
    const burst = chunks(ANSWER, 1).map((delta): TranscriptEvent => ({ type: 'text_delta', actor: CODER, delta }));
    await view.send(events(...burst));
    assert.equal(await page().evaluate('window.__renders'), 1, `${burst.length} deltas in one message, one markdown render`);
    assert.match(await page().locator('.msg-assistant .markdown').innerText(), /^Start\. I will add a greeting/);
  });

  it('folds thinking by default and unfolds it from the keyboard', async () => {
    await view.send(events({ type: 'thinking_delta', actor: CODER, delta: 'Reading the file first.' }));
    const thinking = page().locator('details.msg-thinking');
    assert.equal(await thinking.getAttribute('open'), null);
    assert.equal(await thinking.locator('.thinking-body').isVisible(), false);
    await thinking.locator('summary').focus();
    await page().keyboard.press('Enter');
    assert.equal(await thinking.locator('.thinking-body').innerText(), 'Reading the file first.');
  });

  it('shows a tool card going from running to completed with duration, arguments and output', async () => {
    await view.send(events({ type: 'tool_start', actor: CODER, callId: 'c1', tool: 'bash', kind: 'execute', title: 'npm test', argumentsText: '{\n  "command": "npm test"\n}' }));
    const card = page().locator('.tool-card[data-call-id="c1"]');
    assert.equal(await card.getAttribute('data-status'), 'running');
    assert.equal(await card.locator('.tool-state').innerText(), 'running');
    await card.locator('.tool-args summary').click();
    assert.match(await card.locator('.tool-args pre').innerText(), /"command": "npm test"/);
    await view.send(events({ type: 'tool_end', callId: 'c1', status: 'completed', durationMs: 1234, output: '3 passing\n0 failing', files: [] }));
    assert.equal(await card.getAttribute('data-status'), 'completed');
    assert.equal(await card.locator('.tool-duration').innerText(), '1.2s');
    assert.equal(await card.locator('.tool-output summary').innerText(), 'Output (2 lines)');
    await card.locator('.tool-output summary').click();
    assert.equal(await card.locator('.tool-output pre').innerText(), '3 passing\n0 failing');
  });

  it('ends a prompt that changed files with a bar: each file with its counts and Diff, Keep or Undo; a later prompt retires it', async () => {
    const unified = '--- a/src/app.ts\n+++ b/src/app.ts\n@@ -1,2 +1,3 @@\n-export const a = 1;\n+export const a = 2;\n+export const b = 3;\n context\n';
    await view.send(events(
      { type: 'user_message', text: 'Change things' },
      { type: 'tool_start', actor: CODER, callId: 'e1', tool: 'edit_file', kind: 'edit', title: 'src/app.ts', argumentsText: '{}' },
      { type: 'tool_end', callId: 'e1', status: 'completed', durationMs: 5, output: 'ok', diff: { path: 'src/app.ts', unified }, files: ['src/app.ts'] },
      { type: 'tool_start', actor: CODER, callId: 'b1', tool: 'bash', kind: 'execute', title: 'npm run gen', argumentsText: '{}' },
      { type: 'tool_end', callId: 'b1', status: 'completed', durationMs: 5, exitCode: 0, output: 'ok', files: ['gen/out.json'] },
      { type: 'prompt_end', status: 'needs_input', message: '', changes: [
        { path: 'src/app.ts', status: 'modified', added: 2, removed: 1 },
        { path: 'gen/out.json', status: 'added', added: 3, removed: 0 },
      ] },
    ));
    const bar = page().locator('.changes-bar').last();
    assert.equal(await bar.locator('.changes-title').innerText(), '2 files changed');
    const rows = [];
    for (const row of await bar.locator('.changes-file').all()) rows.push((await row.locator(':scope > *').allInnerTexts()).join(' ').trim());
    assert.deepEqual(rows, ['gen/out.json new +3 −0', 'src/app.ts +2 −1 Diff']);
    await bar.locator('button.changes-diff').click();
    await bar.locator('.changes-undo').click();
    assert.deepEqual(await view.takePosted(), [{ type: 'open_diff', callId: 'e1' }, { type: 'undo_prompt' }]);
    // The bar follows the host: it waits, then says what the undo did.
    assert.equal(await bar.locator('.changes-outcome').innerText(), 'Undoing…');
    await view.send({ type: 'restored', target: { kind: 'undo' }, outcome: 'restored', message: 'Undone: src/app.ts, gen/out.json are back as they were.' });
    assert.equal(await bar.locator('.changes-keep').count(), 0, 'answered once');
    assert.equal(await bar.locator('.changes-outcome').innerText(), 'Undone: src/app.ts, gen/out.json are back as they were.');

    await view.send(events(
      { type: 'user_message', text: 'More' },
      { type: 'tool_start', actor: CODER, callId: 'w1', tool: 'write_file', kind: 'edit', title: 'notes.md', argumentsText: '{}' },
      { type: 'tool_end', callId: 'w1', status: 'completed', durationMs: 5, output: 'ok', diff: { path: 'notes.md', unified: '--- /dev/null\n+++ b/notes.md\n@@ -0,0 +1 @@\n+hi\n' }, files: ['notes.md'] },
      { type: 'prompt_end', status: 'needs_input', message: '', changes: [{ path: 'notes.md', status: 'added', added: 1, removed: 0 }] },
      { type: 'user_message', text: 'Thanks' },
    ));
    const second = page().locator('.changes-bar').last();
    assert.equal(await second.locator('.changes-title').innerText(), '1 file changed');
    assert.equal(await second.locator('.changes-undo').count(), 0, 'a later prompt retired its Undo: /undo undoes the latest prompt only');
  });

  it('a bar lists the journal\'s files only: none when the prompt\'s end names none, even after calls that wrote', async () => {
    await view.send(events(
      { type: 'user_message', text: 'Write and put back' },
      { type: 'tool_start', actor: CODER, callId: 'p1', tool: 'write_file', kind: 'edit', title: 'a.txt', argumentsText: '{}' },
      { type: 'tool_end', callId: 'p1', status: 'completed', durationMs: 5, output: 'ok', diff: { path: 'a.txt', unified: '--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-one\n+two\n' }, files: ['a.txt'] },
      { type: 'prompt_end', status: 'completed', message: '', changes: [] },
    ));
    assert.equal(await page().locator('.changes-bar').count(), 0);
  });

  it('a bar offers Keep and Undo per file, takes the host\'s net counts, and says what one file\'s Undo did', async () => {
    const edit = (callId: string, unified: string): TranscriptEvent[] => [
      { type: 'tool_start', actor: CODER, callId, tool: 'edit_file', kind: 'edit', title: 'a.txt', argumentsText: '{}' },
      { type: 'tool_end', callId, status: 'completed', durationMs: 5, output: 'ok', diff: { path: 'a.txt', unified }, files: ['a.txt'] },
    ];
    await view.send(events(
      { type: 'user_message', text: 'Edit twice' },
      ...edit('c1', '--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-one\n+two\n'),
      ...edit('c2', '--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-two\n+three\n'),
      { type: 'tool_start', actor: CODER, callId: 'c3', tool: 'write_file', kind: 'edit', title: 'b.txt', argumentsText: '{}' },
      { type: 'tool_end', callId: 'c3', status: 'completed', durationMs: 5, output: 'ok', diff: { path: 'b.txt', unified: '--- /dev/null\n+++ b/b.txt\n@@ -0,0 +1 @@\n+hi\n' }, files: ['b.txt'] },
      { type: 'prompt_end', status: 'completed', message: '', changes: [{ path: 'a.txt', status: 'modified', added: 1, removed: 1 }, { path: 'b.txt', status: 'added', added: 1, removed: 0 }] },
    ));
    const bar = page().locator('.changes-bar').last();
    const row = bar.locator('.changes-file[data-path="a.txt"]');
    assert.deepEqual([await row.locator('.changes-added').innerText(), await row.locator('.changes-removed').innerText()], ['+1', '−1'], 'net, as the journal counts, not summed per edit');
    await view.send({ type: 'change_counts', files: [{ path: 'a.txt', added: 0, removed: 0 }, { path: 'b.txt', added: 1, removed: 0 }] });
    assert.deepEqual([await row.locator('.changes-added').innerText(), await row.locator('.changes-removed').innerText()], ['+0', '−0']);
    await bar.locator('.changes-file[data-path="b.txt"] button.changes-file-keep').click();
    assert.equal(await bar.locator('.changes-file[data-path="b.txt"] .changes-file-outcome').innerText(), 'kept');
    await row.locator('button.changes-file-undo').click();
    assert.deepEqual(await view.takePosted(), [{ type: 'undo_prompt', path: 'a.txt' }]);
    await view.send({ type: 'restored', target: { kind: 'undo', path: 'a.txt' }, outcome: 'restored', message: 'Undone: a.txt is back as it was.' });
    assert.equal(await row.locator('.changes-file-outcome').innerText(), 'undone');
    assert.equal(await bar.locator('.changes-outcome').innerText(), 'Undone: a.txt is back as it was.', 'no file left to decide: the bar is settled');
    assert.equal(await bar.locator('.changes-undo').count(), 0);
  });

  it("a file's row opens its hunks from the host, each with Keep and Undo; a refused Undo says why and gives the buttons back", async () => {
    await view.send(events(
      { type: 'user_message', text: 'Shout' },
      { type: 'prompt_end', status: 'completed', message: '', changes: [{ path: 'n.txt', status: 'modified', added: 2, removed: 2 }] },
    ));
    const row = page().locator('.changes-bar .changes-file[data-path="n.txt"]');
    await row.locator('button.changes-hunks-toggle').click();
    assert.deepEqual(await view.takePosted(), [{ type: 'show_hunks', path: 'n.txt' }]);
    const hunks = [{ id: 'h1', oldStart: 1, newStart: 1, removed: ['a'], added: ['A'] }, { id: 'h2', oldStart: 6, newStart: 6, removed: ['z'], added: ['Z'] }];
    await view.send({ type: 'hunks', path: 'n.txt', hunks });
    assert.equal(await row.locator('.changes-hunk').count(), 2);
    assert.equal(await row.locator('.changes-hunk').first().locator('pre').innerText(), '-a\n+A\n');
    await row.locator('.changes-hunk[data-hunk="h2"] button.changes-hunk-undo').click();
    assert.deepEqual(await view.takePosted(), [{ type: 'undo_hunk', path: 'n.txt', hunk: 'h2' }]);
    await view.send({ type: 'hunk_undone', path: 'n.txt', hunk: 'h2', restored: false, message: 'Nothing was put back: n.txt has changed since.' });
    assert.equal(await row.locator('.changes-hunk-refused').innerText(), 'Nothing was put back: n.txt has changed since.');
    assert.equal(await row.locator('.changes-hunk[data-hunk="h2"] button.changes-hunk-undo').isEnabled(), true);
    await row.locator('.changes-hunk[data-hunk="h1"] button.changes-hunk-keep').click();
    assert.equal(await row.locator('.changes-hunk').count(), 1, 'Keep takes the hunk off the list');
    // The editor keeps the other (the host's word comes back for both, as for one kept here).
    await view.send({ type: 'hunk_kept', path: 'n.txt', hunk: 'h1' });
    await view.send({ type: 'hunk_kept', path: 'n.txt', hunk: 'h2' });
    assert.equal(await row.locator('.changes-hunk').count(), 0);
    assert.deepEqual(await row.locator('.changes-hunk-none').allInnerTexts(), ['Every change here is kept.'], 'the last one kept: the list says so, once');
    assert.deepEqual(await view.takePosted(), [{ type: 'keep_hunk', path: 'n.txt', hunk: 'h1' }], 'Keep writes nothing; it tells the host, for the editor');
  });

  it('Restore acts on the click: the rewound turns grey out under a label, and a line says what went back', async () => {
    await view.send(events(
      { type: 'user_message', text: 'First' },
      { type: 'checkpoint', id: 'k1', kind: 'prompt' },
      { type: 'text_delta', actor: CODER, delta: 'Did the first.' },
      { type: 'prompt_end', status: 'completed', message: '' },
      { type: 'user_message', text: 'Second' },
      { type: 'checkpoint', id: 'k2', kind: 'prompt' },
      { type: 'text_delta', actor: CODER, delta: 'Did the second.' },
      { type: 'prompt_end', status: 'completed', message: '' },
    ));
    const second = page().locator('.msg-user[data-checkpoint="k2"]');
    await second.locator('button.checkpoint-restore').click();
    await second.locator('button.restore-both').click();
    assert.deepEqual(await view.takePosted(), [{ type: 'restore', checkpoint: 'k2', mode: 'both' }]);
    assert.equal(await page().locator('.restore-pending').innerText(), 'Restoring…');
    await view.send({ type: 'restored', target: { kind: 'rewind', checkpoint: 'k2', mode: 'both' }, outcome: 'restored', message: 'Restored to before this: the conversation goes on from there.' });
    assert.equal(await page().locator('.restore-pending').count(), 0);
    assert.ok(await second.evaluate((node) => node.classList.contains('rewound')));
    assert.equal(await page().locator('.msg-user[data-checkpoint="k1"].rewound').count(), 0, 'the turns before stay as they were');
    assert.equal(await page().locator('.rewound-label').innerText(), 'Rewound: the agents no longer see what follows');
    assert.equal(await second.locator('button.checkpoint-restore').count(), 0, 'a rewound message offers no Restore');
    assert.equal(await page().locator('.restore-note').last().innerText(), 'Restored to before this: the conversation goes on from there.');
    assert.equal(await page().locator('.msg-user', { hasText: '/rewind' }).count(), 0);
  });

  it('holds Restore and Edit while a run ends (the view busy), and gives them back once it has', async () => {
    await view.send(events(
      { type: 'user_message', text: 'First' },
      { type: 'checkpoint', id: 'k1', kind: 'prompt' },
      { type: 'text_delta', actor: CODER, delta: 'Did the first.' },
      { type: 'prompt_end', status: 'completed', message: '' },
    ));
    const first = page().locator('.msg-user[data-checkpoint="k1"]');
    assert.equal(await first.locator('button.checkpoint-restore').isEnabled(), true);
    await first.locator('button.checkpoint-restore').click();
    await view.send({ type: 'busy', busy: true });
    await view.send(events({ type: 'user_message', text: 'Second' }, { type: 'checkpoint', id: 'k2', kind: 'prompt' }, { type: 'text_delta', actor: CODER, delta: 'Did the second.' }));
    const second = page().locator('.msg-user[data-checkpoint="k2"]');
    for (const action of [first.locator('button.checkpoint-restore'), first.locator('button.checkpoint-edit'), first.locator('button.restore-both'), second.locator('button.checkpoint-restore'), second.locator('button.checkpoint-edit')]) {
      assert.equal(await action.isDisabled(), true, 'while the run ends, going back waits');
    }
    await second.locator('button.checkpoint-restore').click({ force: true });
    assert.deepEqual(await view.takePosted(), [], 'a click while busy asks nothing of the host');
    await view.send({ type: 'busy', busy: false });
    for (const action of [first.locator('button.restore-both'), second.locator('button.checkpoint-restore'), second.locator('button.checkpoint-edit')]) assert.equal(await action.isEnabled(), true);
  });

  it("a reopened session's earlier rewind reads once: its words label the greyed turns, with no second line under them", async () => {
    await view.send(events(
      { type: 'user_message', text: 'First' },
      { type: 'checkpoint', id: 'k1', kind: 'prompt' },
      { type: 'prompt_end', status: 'completed', message: '' },
      { type: 'user_message', text: 'Second' },
      { type: 'checkpoint', id: 'k2', kind: 'prompt' },
      { type: 'prompt_end', status: 'completed', message: '' },
    ));
    const earlier = 'Rewound here earlier: the agents no longer see the greyed turns.';
    await view.send({ type: 'restored', target: { kind: 'rewind', checkpoint: 'k2', mode: 'conversation' }, outcome: 'restored', message: earlier, earlier: true });
    assert.deepEqual(await page().locator('.rewound-label').allInnerTexts(), [earlier]);
    assert.equal(await page().locator('.restore-note').count(), 0, 'the words are not said again under the turns');
    assert.ok(await page().locator('.msg-user[data-checkpoint="k2"]').evaluate((node) => node.classList.contains('rewound')));
    assert.equal(await page().getByText(/Rewound/).count(), 1, 'one label says it');
  });

  it('offers Stop on a running command, which posts stop_call once and goes when the call ends', async () => {
    await view.send(events({ type: 'tool_start', actor: CODER, callId: 'long', tool: 'bash', kind: 'execute', title: 'npm run e2e', argumentsText: '{}' }));
    const card = page().locator('.tool-card[data-call-id="long"]');
    await card.locator('button.tool-stop').click();
    assert.equal(await card.locator('button.tool-stop').isDisabled(), true);
    assert.deepEqual(await view.takePosted(), [{ type: 'stop_call', callId: 'long' }]);
    await view.send(events({ type: 'tool_end', callId: 'long', status: 'failed', durationMs: 900, output: 'partial', files: [] }));
    assert.equal(await card.locator('button.tool-stop').count(), 0);
    await view.send(events({ type: 'tool_start', actor: CODER, callId: 'read', tool: 'read_file', kind: 'read', title: 'a.ts', argumentsText: '{}' }));
    assert.equal(await page().locator('.tool-card[data-call-id="read"] button.tool-stop').count(), 0, 'only commands get Stop');
  });

  it('opens a failed call\'s output and marks a call the prompt ended without as stopped', async () => {
    await view.send(events(
      { type: 'tool_start', actor: CODER, callId: 'bad', tool: 'bash', kind: 'execute', title: 'make', argumentsText: '{}' },
      { type: 'tool_end', callId: 'bad', status: 'failed', durationMs: 80, output: 'make: *** No rule to make target', files: [] },
      { type: 'tool_start', actor: CODER, callId: 'slow', tool: 'bash', kind: 'execute', title: 'sleep 100', argumentsText: '{}' },
      { type: 'prompt_end', status: 'cancelled', message: 'Cancelled by the user' },
    ));
    assert.equal(await page().locator('.tool-card[data-call-id="bad"]').getAttribute('data-status'), 'failed');
    assert.ok(await page().locator('.tool-card[data-call-id="bad"] .tool-output pre').isVisible());
    assert.equal(await page().locator('.tool-card[data-call-id="slow"]').getAttribute('data-status'), 'stopped');
    assert.equal(await page().locator('.prompt-end').getAttribute('data-status'), 'cancelled');
    assert.match(await page().locator('.prompt-end').innerText(), /Cancelled.*Cancelled by the user/s);
  });

  it('shows a command that exited non-zero as failed, with its exit code, and its output open', async () => {
    await view.send(events(
      { type: 'tool_start', actor: CODER, callId: 'false', tool: 'bash', kind: 'execute', title: 'false', argumentsText: '{}' },
      { type: 'tool_end', callId: 'false', status: 'completed', durationMs: 12, exitCode: 1, output: '[exit code 1]', files: [] },
      { type: 'tool_start', actor: CODER, callId: 'true', tool: 'bash', kind: 'execute', title: 'true', argumentsText: '{}' },
      { type: 'tool_end', callId: 'true', status: 'completed', durationMs: 9, exitCode: 0, output: '[exit code 0]', files: [] },
    ));
    const failed = page().locator('.tool-card[data-call-id="false"]');
    assert.equal(await failed.getAttribute('data-status'), 'failed');
    assert.equal(await failed.locator('.tool-state').innerText(), 'failed, exit 1');
    assert.equal(await failed.getAttribute('aria-label'), 'bash false: failed, exit 1');
    assert.ok(await failed.locator('.tool-output pre').isVisible(), 'the output of a failed command is open');
    const passed = page().locator('.tool-card[data-call-id="true"]');
    assert.equal(await passed.getAttribute('data-status'), 'completed');
    assert.equal(await passed.locator('.tool-state').isVisible(), false, 'a call that did what it says needs no word: its ✓ says it');
    assert.equal(await passed.getAttribute('aria-label'), 'bash true: done');
  });

  it('says a call waits for the person while its approval is open, and runs again once answered', async () => {
    await view.send(events({ type: 'tool_start', actor: CODER, callId: APPROVAL.callId, tool: 'bash', kind: 'execute', title: 'npm test', argumentsText: '{}' }));
    const card = page().locator(`.tool-card[data-call-id="${APPROVAL.callId}"]`);
    await view.send({ type: 'approval', request: APPROVAL });
    assert.equal(await card.getAttribute('data-status'), 'waiting');
    assert.equal(await card.locator('.tool-state').innerText(), 'waiting for you');
    await view.send({ type: 'approval_done', id: APPROVAL.id, decision: 'allow_once' });
    assert.equal(await card.getAttribute('data-status'), 'running');
    await view.send(events({ type: 'tool_end', callId: APPROVAL.callId, status: 'completed', durationMs: 40, output: 'ok', files: [] }));
    assert.equal(await card.getAttribute('data-status'), 'completed');
  });

  it('answers the focused approval with y, a or n, as the terminal does, and not while its arguments are edited', async () => {
    await view.send({ type: 'approval', request: { ...APPROVAL, id: 'ask-k', arguments: '{}' } });
    const approval = page().locator('.approval[data-id="ask-k"]');
    assert.match(await approval.locator('.approval-scope').innerText(), /Keys: y allow once · a always · n deny/);
    await approval.locator('button[data-decision="edit"]').click();
    await approval.locator('textarea.approval-arguments').press('n');
    assert.deepEqual(await view.takePosted(), [], 'typing n in the editor is typing');
    await approval.locator('button[data-decision="allow_once"]').focus();
    await page().keyboard.press('n');
    assert.deepEqual(await view.takePosted(), [{ type: 'approve', id: 'ask-k', decision: 'reject_once' }]);
    // A diff keeps git's headers out: a removed SQL comment ("-- old") is a removed line, not a header.
    await view.send({ type: 'approval', request: { ...APPROVAL, id: 'ask-sql', callId: 'call-sql', category: 'write', command: undefined, paths: ['q.sql'], diff: { path: 'q.sql', unified: '--- a/q.sql\n+++ b/q.sql\n@@ -1,2 +1,1 @@\n--- old comment\n select 1;\n' } } });
    const rows = await page().locator('.approval[data-id="ask-sql"] .diff .diff-line').allInnerTexts();
    assert.deepEqual(rows, ['line 1', '--- old comment', ' select 1;']);
  });

  it('shows an edit\'s diff, and "Open diff", the file and "Trace" ask the host', async () => {
    await view.send(events(...promptEvents()));
    const card = page().locator('.tool-card[data-call-id="call-edit"]');
    assert.deepEqual(await card.locator('.diff .diff-add').allInnerTexts(), ['+export const hello = 2;', '+export const greet = (name: string): string => `Hello, ${name}`;']);
    assert.deepEqual(await card.locator('.diff .diff-del').allInnerTexts(), ['-export const hello = 1;']);
    const rows = await card.locator('.diff .diff-line').allInnerTexts();
    assert.ok(!rows.some((row) => /^(---|\+\+\+|@@)/.test(row)), `the file is named once, above the diff; no raw headers: ${rows.join(' | ')}`);
    assert.match(rows[0]!, /^line \d+$/, 'a hunk starts with where it is');
    await card.locator('button.open-diff').click();
    await card.locator('.tool-head .file-link').click();
    await card.locator('.trace-link').click();
    await page().locator('.msg-assistant a', { hasText: 'the file' }).click();
    assert.deepEqual(await view.takePosted(), [
      { type: 'open_diff', callId: 'call-edit' },
      { type: 'open_file', path: 'src/app.ts' },
      { type: 'show_trace', callId: 'call-edit' },
      { type: 'open_file', path: 'src/app.ts', line: 3 },
    ]);
    assert.equal(page().url().endsWith('/?theme=dark'), true, 'a link in the answer must not navigate the view');
  });

  it('badges who is acting: the primary, the reviewer and a subagent', async () => {
    await view.send(events(...promptEvents()));
    const badge = (role: string) => page().locator(`.badge[data-role="${role}"]`);
    assert.equal(await page().locator('.msg-assistant').first().locator('.badge').innerText(), 'coder');
    assert.equal(await page().locator('.msg-assistant').last().locator('.badge').innerText(), 'reviewer · code-reviewer');
    assert.ok((await badge('primary').count()) >= 3);
    const subagent = page().locator('.tool-card[data-call-id="call-task"] .msg-subagent');
    assert.equal(await subagent.locator('.badge').innerText(), 'subagent · explorer');
    assert.equal(await subagent.getAttribute('data-state'), 'ended');
    assert.match(await subagent.innerText(), /finished\s*Found 2 callers/);
    assert.equal(await page().locator('.msg-handoff').innerText(), 'Sent for review', 'a handoff in words; what was passed on is folded');
  });

  it('shows the shared todo list as a plan that each update replaces', async () => {
    assert.equal(await page().locator('#plan').isVisible(), false);
    await view.send(events(...promptEvents()));
    assert.equal(await page().locator('#plan summary').innerText(), 'Plan · 1 of 3 done');
    assert.deepEqual(await page().evaluate('[...document.querySelectorAll("#plan .plan-entry")].map((item) => item.dataset.status + ": " + item.innerText.replace(/\\s+/g, " "))'), [
      'completed: ● Read src/app.ts',
      'in_progress: ◐ Add greet()',
      'pending: ○ Run the tests',
    ]);
    await view.send(events({ type: 'plan', entries: [{ content: 'Run the tests', status: 'completed' }] }));
    assert.equal(await page().locator('#plan summary').innerText(), 'Plan · 1 of 1 done');
  });

  it('asks for approval inline; a choice posts `approve` and the buttons go when the host says done', async () => {
    await view.send({ type: 'approval', request: APPROVAL });
    const approval = page().locator('.approval[data-id="ask-1"]');
    assert.match(await approval.innerText(), /Run: npm test/);
    assert.equal(await approval.locator('.approval-command').innerText(), 'npm test -- --grep greet');
    assert.deepEqual(await approval.locator('button[data-decision]').allInnerTexts(), ['Allow once', 'Always', 'Deny']);
    await approval.locator('button[data-decision="allow_always"]').click();
    assert.deepEqual(await view.takePosted(), [{ type: 'approve', id: 'ask-1', decision: 'allow_always' }]);
    assert.equal(await approval.locator('button[data-decision="allow_once"]').isDisabled(), true, 'a second click cannot answer twice');
    await view.send({ type: 'approval_done', id: 'ask-1', decision: 'allow_always' });
    assert.equal(await approval.locator('button').count(), 0);
    assert.equal(await approval.locator('.approval-outcome').innerText(), 'Always allowed');

    await view.send({ type: 'approval', request: { ...APPROVAL, id: 'ask-2', title: 'Edit src/app.ts', category: 'write', command: undefined, paths: ['src/app.ts'] } });
    await view.send({ type: 'approval_done', id: 'ask-2', decision: 'withdrawn' });
    assert.equal(await page().locator('.approval[data-id="ask-2"] button[data-decision]').count(), 0);
    assert.equal(await page().locator('.approval[data-id="ask-2"] .approval-outcome').innerText(), 'No longer needed');
  });

  it("Edit opens a command's line (other calls' arguments as JSON); the edit is posted as the call's arguments; a refused edit shows why and keeps the text", async () => {
    const args = JSON.stringify({ command: 'npm test -- --grep greet', timeout_ms: 5000 }, null, 2);
    await view.send({ type: 'approval', request: { ...APPROVAL, id: 'ask-e', arguments: args } });
    const approval = page().locator('.approval[data-id="ask-e"]');
    assert.deepEqual(await approval.locator('button[data-decision]').allInnerTexts(), ['Allow once', 'Always', 'Deny', 'Edit…']);
    await approval.locator('button[data-decision="edit"]').click();
    const text = approval.locator('textarea.approval-arguments');
    assert.equal(await text.inputValue(), 'npm test -- --grep greet', 'the command line, not JSON');
    assert.equal(await text.getAttribute('aria-label'), 'The command line');
    await text.fill('npm test; rm -rf /');
    await approval.locator('button[data-decision="allow_edited"]').click();
    assert.deepEqual(await view.takePosted(), [{ type: 'approve_edited', id: 'ask-e', arguments: JSON.stringify({ command: 'npm test; rm -rf /', timeout_ms: 5000 }) }]);
    assert.equal(await approval.locator('button[data-decision="allow_once"]').isDisabled(), true, 'waiting for the host');
    await view.send({ type: 'approval_invalid', id: 'ask-e', problem: 'a protected path would change' });
    assert.equal(await approval.locator('.approval-problem').innerText(), 'a protected path would change');
    assert.equal(await text.inputValue(), 'npm test; rm -rf /', 'the edit is kept');
    assert.equal(await approval.locator('button[data-decision="allow_edited"]').isDisabled(), false, 'another try is possible');
    await text.fill('npm test');
    await approval.locator('button[data-decision="allow_edited"]').click();
    assert.deepEqual(await view.takePosted(), [{ type: 'approve_edited', id: 'ask-e', arguments: JSON.stringify({ command: 'npm test', timeout_ms: 5000 }) }]);
    await view.send({ type: 'approval_done', id: 'ask-e', decision: 'allow_edited' });
    assert.equal(await approval.locator('textarea').count(), 0);
    assert.equal(await approval.locator('.approval-outcome').innerText(), 'Allowed with your changes');

    const json = JSON.stringify({ path: 'q.sql', content: 'select 1;' }, null, 2);
    await view.send({ type: 'approval', request: { ...APPROVAL, id: 'ask-w', title: 'Write q.sql', category: 'write', command: undefined, paths: ['q.sql'], arguments: json } });
    const write = page().locator('.approval[data-id="ask-w"]');
    await write.locator('button[data-decision="edit"]').click();
    assert.equal(await write.locator('textarea.approval-arguments').inputValue(), json);
    await write.locator('textarea.approval-arguments').fill('{"path": 5}');
    await write.locator('button[data-decision="allow_edited"]').click();
    assert.deepEqual(await view.takePosted(), [{ type: 'approve_edited', id: 'ask-w', arguments: '{"path": 5}' }]);

    await view.send({ type: 'approval', request: { ...APPROVAL, id: 'ask-q', title: 'Drop the cache?', command: undefined, paths: [], question: { details: 'It rebuilds in a minute.' } } });
    const question = page().locator('.approval[data-id="ask-q"]');
    assert.match(await question.innerText(), /Approval requested[\s\S]*Drop the cache\?[\s\S]*It rebuilds in a minute\./i);
    assert.deepEqual(await question.locator('button[data-decision]').allInnerTexts(), ['Approve', 'Deny'], 'no "always" for a question');
  });

  it('"Deny and say why…" sends the reason with the no', async () => {
    await view.send({ type: 'approval', request: { ...APPROVAL, id: 'ask-why' } });
    const approval = page().locator('.approval[data-id="ask-why"]');
    await approval.locator('button.approval-deny-why').click();
    const reason = approval.locator('textarea.approval-reason-text');
    assert.equal(await reason.evaluate((node) => node === document.activeElement), true, 'the box has the focus');
    await reason.fill('Run only the greeting tests');
    await reason.press('y');
    assert.deepEqual(await view.takePosted(), [], 'typing in the box answers nothing');
    await approval.locator('button[data-decision="deny_reason"]').click();
    assert.deepEqual(await view.takePosted(), [{ type: 'deny', id: 'ask-why', reason: 'Run only the greeting testsy' }]);
    await view.send({ type: 'approval_done', id: 'ask-why', decision: 'reject_once' });
    assert.equal(await approval.locator('textarea').count(), 0);
    assert.equal(await approval.locator('.approval-outcome').innerText(), 'Denied');
  });

  it('meters the session in one quiet line once something was spent, with the detail in its tooltip', async () => {
    const meter = page().locator('#meter');
    assert.equal(await meter.isVisible(), false, 'nothing spent: no meter taking room');
    await view.send({ type: 'meter', prompt: { inputTokens: 1234, outputTokens: 56, cachedTokens: 1000, costUsd: 0.0123 }, session: { inputTokens: 98765, outputTokens: 4321, cachedTokens: 0, costUsd: 0.5 } });
    assert.equal(await meter.innerText(), '98,765 in · 4,321 out · $0.5000');
    assert.equal(await meter.getAttribute('title'), 'This prompt: 1,234 in · 56 out · 1,000 cached · $0.0123\nThis session: 98,765 in · 4,321 out · $0.5000');
    await view.send(events({ type: 'context', agent: 'builder', used: 3100, window: 32000 }, { type: 'context', agent: 'reviewer', used: 27000, window: 32000 }));
    assert.equal(await meter.innerText(), '98,765 in · 4,321 out · $0.5000 · context 84%: send /compact to free it');
    assert.match(await meter.getAttribute('title') ?? '', /Context of builder: 3\.1k of 32k tokens \(10%\)\nContext of reviewer: 27k of 32k tokens \(84%\)/);
    assert.match(await meter.getAttribute('class') ?? '', /meter-full/);
  });

  it('cancels only while busy, by the button or Escape; while busy, Send queues', async () => {
    assert.equal(await page().locator('#cancel').isDisabled(), true);
    await view.send({ type: 'busy', busy: true });
    assert.equal(await page().locator('#send').isDisabled(), false, 'a message may be sent while the agents work');
    assert.equal(await page().locator('#send').textContent(), 'Queue');
    await page().locator('#cancel').click();
    await page().locator('textarea#prompt').press('Escape');
    assert.deepEqual(await view.takePosted(), [{ type: 'cancel' }, { type: 'cancel' }]);
    assert.equal(await page().locator('#transcript').getAttribute('aria-busy'), 'true');
    await view.send({ type: 'busy', busy: false });
    assert.equal(await page().locator('#cancel').isDisabled(), true);
    assert.equal(await page().locator('#send').isDisabled(), false);
    assert.equal(await page().locator('#send').textContent(), 'Send');
  });

  it('shows messages queued while the agents work above the input, with Send now, until an agent takes them', async () => {
    await view.send({ type: 'busy', busy: true });
    await view.send({ type: 'queue', items: [{ id: 'q1', text: 'Also say which files you read.' }] });
    const item = page().locator('.queue .queue-item', { hasText: 'Also say which files you read.' });
    assert.equal(await item.isVisible(), true, 'the queued message shows');
    await page().locator('.queue button.queue-send-now').click();
    assert.deepEqual(await view.takePosted(), [{ type: 'interrupt' }]);
    await view.send({ type: 'queue', items: [] });
    assert.equal(await page().locator('.queue').isVisible(), false, 'an empty queue takes no room');
  });

  it('offers the provider set-up while a key is missing: a key, or a server of one\'s own tested for its models', async () => {
    const setup = page().locator('section.setup');
    assert.equal(await setup.isVisible(), false, 'no set-up while a provider can answer');
    await view.send({ type: 'setup', need: { provider: 'anthropic', variable: 'ANTHROPIC_API_KEY' } });
    assert.equal(await setup.isVisible(), true);
    assert.match(await setup.locator('.setup-why').innerText(), /no key for anthropic yet\./);
    assert.equal(await textInput(page().locator('#setup-key')).getAttribute('type'), 'password', 'a key is never shown as typed');
    await setup.locator('.setup-save').click();
    assert.equal(await setup.locator('.setup-error').innerText(), 'Paste the key first.');
    await textInput(page().locator('#setup-key')).fill('sk-ant-typed');
    await textInput(page().locator('#setup-key')).press('Enter');
    assert.deepEqual(await view.takePosted(), [{ type: 'setup_key', provider: 'anthropic', key: 'sk-ant-typed' }]);
    assert.equal(await textInput(page().locator('#setup-key')).inputValue(), '', 'the field forgets the key once sent');

    await setup.locator('.setup-choice[data-choice="server"]').click();
    assert.equal(await page().locator('#setup-key').isVisible(), false);
    await textInput(page().locator('#setup-url')).fill('http://localhost:11434/v1');
    await setup.locator('.setup-test').click();
    assert.deepEqual(await view.takePosted(), [{ type: 'test_server', url: 'http://localhost:11434/v1' }]);
    // A server that asks for a key gets the one typed beside Test, at Test and at Use.
    await textInput(page().locator('#setup-server-key')).fill('sk-own-server');
    await textInput(page().locator('#setup-server-key')).press('Enter');
    assert.deepEqual(await view.takePosted(), [{ type: 'test_server', url: 'http://localhost:11434/v1', key: 'sk-own-server' }]);
    assert.equal(await setup.locator('.setup-use').isVisible(), false, 'nothing to use before a model is listed');
    await view.send({ type: 'server_test', url: 'http://localhost:11434/v1', ok: true, message: 'http://localhost:11434/v1 answers with 2 models.', models: ['llama3.2:3b', 'qwen2.5-coder:7b'] });
    assert.equal(await setup.locator('.setup-result').innerText(), 'http://localhost:11434/v1 answers with 2 models.');
    await pickOption(page().locator('#setup-model'), 'qwen2.5-coder:7b');
    await setup.locator('.setup-use').click();
    assert.deepEqual(await view.takePosted(), [{ type: 'use_server', url: 'http://localhost:11434/v1', model: 'qwen2.5-coder:7b', key: 'sk-own-server' }]);
    assert.equal(await textInput(page().locator('#setup-server-key')).inputValue(), '', 'the field forgets the key once sent');
    await view.send({ type: 'setup_error', message: 'Could not save that: settings are read-only' });
    assert.equal(await setup.locator('.setup-error').innerText(), 'Could not save that: settings are read-only');
    await view.send({ type: 'setup' });
    assert.equal(await setup.isVisible(), false, 'it goes once a provider can answer');

    // A prompt sent without a key: the set-up opens with its card, which also has a button to it.
    await view.send(events({ type: 'prompt_end', status: 'error', message: 'Crow has no key for anthropic yet.', hint: { text: 'Set it up below.', setup: true } }));
    assert.equal(await setup.isVisible(), true);
    await setup.locator('.setup-later').click();
    await page().locator('.prompt-end button.error-setup').click();
    assert.equal(await setup.isVisible(), true);
  });

  it('offers a model VS Code already has first in the set-up, and only while VS Code offers one', async () => {
    const setup = page().locator('section.setup');
    const vscodeChoice = setup.locator('.setup-choice[data-choice="vscode"]');
    await view.send({ type: 'setup', need: { provider: 'anthropic', variable: 'ANTHROPIC_API_KEY' } });
    assert.equal(await vscodeChoice.isVisible(), false, 'no VS Code choice while VS Code offers no model');
    await view.send({
      type: 'setup',
      need: {
        provider: 'anthropic',
        variable: 'ANTHROPIC_API_KEY',
        vscodeModels: [
          { id: 'copilot/gpt-4o', label: 'GPT-4o (copilot)' },
          { id: 'copilot/claude-sonnet-4', label: 'Claude Sonnet 4 (copilot)' },
        ],
      },
    });
    assert.equal(await setup.locator('.setup-choice').first().getAttribute('data-choice'), 'vscode', 'offered first');
    assert.equal(await vscodeChoice.innerText(), 'A model in VS Code');
    assert.equal(await vscodeChoice.getAttribute('aria-checked'), 'true', 'and chosen');
    assert.equal(await page().locator('#setup-key').isVisible(), false, 'no key asked for');
    assert.match(await setup.locator('.setup-why').innerText(), /Use a model VS Code already has/);
    await pickOption(page().locator('#setup-vscode-model'), 'Claude Sonnet 4 (copilot)');
    await setup.locator('.setup-use-vscode').click();
    assert.deepEqual(await view.takePosted(), [{ type: 'use_vscode_model', model: 'copilot/claude-sonnet-4' }]);
    await view.send({ type: 'setup' });
    assert.equal(await setup.isVisible(), false);
  });

  it('sends with Enter, adds a line with Shift+Enter, and prefills without sending', async () => {
    const prompt = page().locator('textarea#prompt');
    await prompt.click();
    await page().keyboard.type('first line');
    await page().keyboard.press('Shift+Enter');
    await page().keyboard.type('second line');
    assert.deepEqual(await view.takePosted(), []);
    await page().keyboard.press('Enter');
    assert.deepEqual(await view.takePosted(), [{ type: 'send', text: 'first line\nsecond line' }]);
    assert.equal(await prompt.inputValue(), '');
    await page().keyboard.press('Enter');
    assert.deepEqual(await view.takePosted(), [], 'an empty prompt is not sent');
    await view.send({ type: 'prefill', text: 'src/app.ts:1-3\n```ts\nexport const hello = 1;\n```' });
    assert.equal(await prompt.inputValue(), 'src/app.ts:1-3\n```ts\nexport const hello = 1;\n```');
    assert.deepEqual(await view.takePosted(), []);
    await page().locator('#send').click();
    assert.deepEqual(await view.takePosted(), [{ type: 'send', text: 'src/app.ts:1-3\n```ts\nexport const hello = 1;\n```' }]);
  });

  it('says the agents are loading until the host names them, then picks the agent and each role\'s model', async () => {
    view = await suite.reopen();
    assert.equal(await page().locator('#agent').getAttribute('disabled'), '', 'no pick before the host answers');
    assert.equal(await shownText(page().locator('#agent')), 'Loading…');
    await view.send(INIT);
    await view.takePosted();
    assert.equal(await page().locator('#agent').getAttribute('disabled'), null);
    assert.equal(await selectedValue(page().locator('#agent')), 'build');
    assert.equal(await shownText(page().locator('.model[data-role="coagent"]')), 'gpt-5-mini');
    await pickOption(page().locator('#agent'), 'pair');
    await pickOption(page().locator('.model[data-role="primary"]'), 'gpt-5');
    await pickOption(page().locator('.model[data-role="coagent"]'), 'claude-sonnet-4-5');
    assert.deepEqual(await view.takePosted(), [
      { type: 'pick_agent', agent: 'pair' },
      { type: 'pick_model', role: 'primary', model: 'gpt-5' },
      { type: 'pick_model', role: 'coagent', model: 'claude-sonnet-4-5' },
    ]);
    await view.send({ type: 'agents', agents: [{ name: 'plan', description: 'Reads only' }], agent: 'plan', models: [{ role: 'primary', label: 'Model', current: 'gpt-5', options: ['gpt-5'] }] });
    assert.equal(await shownText(page().locator('#agent')), 'plan');
    assert.equal(await page().locator('.model').count(), 1, 'an agent without a reviewer has no reviewer model picker');
  });

  it("shows VS Code's models in a model picker by name and vendor, and picks them by id", async () => {
    await view.send({
      type: 'agents',
      agents: [{ name: 'build', description: '' }],
      agent: 'build',
      models: [{ role: 'primary', label: 'Model', current: 'gpt-5', options: ['gpt-5', 'vscode:copilot/gpt-4o'], labels: { 'vscode:copilot/gpt-4o': 'GPT-4o (copilot) in VS Code' } }],
    });
    await view.takePosted();
    await pickOption(page().locator('.model[data-role="primary"]'), 'GPT-4o (copilot) in VS Code');
    assert.deepEqual(await view.takePosted(), [{ type: 'pick_model', role: 'primary', model: 'vscode:copilot/gpt-4o' }]);
  });

  it('lists sessions newest first and resumes another; New and Trace are the title bar\'s, not buttons in the view', async () => {
    await page().locator('#sessions summary').click();
    assert.deepEqual(await page().locator('#sessions .session-title').allInnerTexts(), ['Add a greeting', 'Fix the flaky upload test']);
    assert.equal(await page().locator('#sessions .session[aria-current="true"]').getAttribute('data-session-id'), 's-current');
    await page().locator('#sessions .session[data-session-id="s-current"]').click();
    await page().locator('#sessions .session[data-session-id="s-older"]').click();
    assert.equal(await page().locator('#sessions').getAttribute('open'), null, 'resuming folds the list, giving the transcript its room');
    assert.deepEqual(await view.takePosted(), [{ type: 'resume', sessionId: 's-older' }]);
    assert.equal(await page().locator('#new-session, #show-trace').count(), 0, 'the view title bar has + and Trace; the view repeats neither');
    assert.equal(await page().locator('#session-title').innerText(), 'Add a greeting');
  });

  it('works from the keyboard: Tab reaches every control and every button has a name', async () => {
    await view.send(events(...promptEvents()), { type: 'approval', request: APPROVAL });
    const reached = new Set<string>();
    for (let step = 0; step < 60; step++) {
      await page().keyboard.press('Tab');
      reached.add((await page().evaluate(`(() => {
        const e = document.activeElement;
        return e.id ? '#' + e.id : e.tagName.toLowerCase() + (e.className ? '.' + e.className.split(' ')[0] : '') + (e.dataset.decision ? '=' + e.dataset.decision : '');
      })()`)) as string);
    }
    for (const control of ['#agent', 'vscode-single-select.model', 'summary', 'button.open-diff', 'button.trace-link', 'button.file-link', 'button.approval-choice=allow_once', '#prompt']) {
      assert.ok(reached.has(control), `Tab never reached ${control}: ${[...reached].join(', ')}`);
    }
    const unnamed = await page().evaluate(`[...document.querySelectorAll('button, select, textarea, vscode-button, vscode-single-select, vscode-textfield')]
      .filter((e) => !(e.getAttribute('aria-label') || e.textContent.trim() || e.closest('label') || e.shadowRoot?.querySelector('input, [role=combobox]')?.getAttribute('aria-label')))
      .map((e) => e.outerHTML)`);
    assert.deepEqual(unnamed, []);
    await page().locator('.approval button[data-decision="reject_once"]').focus();
    await page().keyboard.press('Enter');
    assert.deepEqual(await view.takePosted(), [{ type: 'approve', id: 'ask-1', decision: 'reject_once' }]);
    await view.send({ type: 'approval_done', id: 'ask-1', decision: 'reject_once' });
    assert.equal(await page().evaluate('document.activeElement.id'), 'prompt', 'focus goes back to the prompt when the answered buttons go');
  });

  it('keeps markup in model text, tool output and titles inert', async () => {
    await view.send(
      { type: 'reset', sessionId: 's-x', title: XSS },
      events(
        { type: 'user_message', text: XSS },
        { type: 'text_delta', actor: CODER, delta: `${XSS}\n\n[run me](javascript:window.__xss=4) [cmd](command:workbench.action.quit) ![pixel](http://127.0.0.1:1/track.png)` },
        { type: 'thinking_delta', actor: CODER, delta: XSS },
        { type: 'tool_start', actor: { agent: XSS, role: 'subagent' }, callId: 'x', tool: 'bash', kind: 'execute', title: XSS, argumentsText: XSS },
        { type: 'tool_end', callId: 'x', status: 'failed', durationMs: 1, output: XSS, diff: { path: XSS, unified: `+${XSS}` }, files: [XSS] },
        { type: 'notice', level: 'error', text: XSS },
      ),
      { type: 'approval', request: { ...APPROVAL, title: XSS, command: XSS } },
    );
    assert.equal(await page().evaluate('window.__xss'), undefined);
    assert.equal(await page().locator('#app img, #app iframe, #app script').count(), 0);
    assert.equal(await page().locator('a[href^="javascript"], a[href^="command"]').count(), 0);
    assert.ok((await page().locator('.msg-user').innerText()).includes('<script>window.__xss = 1</script>'));
    assert.ok((await page().locator('.msg-assistant').innerText()).includes('<img src=x onerror="window.__xss = 2">'));
    assert.ok((await page().locator('.tool-card .tool-output pre').innerText()).includes(XSS));
    assert.equal(await page().locator('#session-title').innerText(), XSS);
    await page().locator('.msg-assistant .markdown').click();
    assert.equal(await page().evaluate('window.__xss'), undefined);
  });

  it('asks an edit under its tool card with the diff, keeps the question in sight while scrolled up, and previews the change', async () => {
    await page().setViewportSize({ width: 360, height: 420 });
    const filler = Array.from({ length: 40 }, (_, i): TranscriptEvent => ({ type: 'text_delta', actor: CODER, delta: `Line ${i} of a long explanation.\n\n` }));
    await view.send(
      events(
        { type: 'user_message', text: 'Fix the greeting' },
        { type: 'tool_start', actor: CODER, callId: 'call-early', tool: 'read_file', kind: 'read', title: 'src/app.ts', argumentsText: '{}' },
        ...filler,
        { type: 'tool_start', actor: CODER, callId: 'call-edit-2', tool: 'edit_file', kind: 'edit', title: 'src/app.ts', argumentsText: '{}' },
      ),
      { type: 'approval', request: { id: 'ask-edit', callId: 'call-edit-2', actor: CODER, title: 'Edit src/app.ts', category: 'write', paths: ['src/app.ts'], alwaysScope: 'all file changes', diff: { path: 'src/app.ts', unified: DIFF } } },
    );
    await view.frames();
    const approval = page().locator('.approval[data-id="ask-edit"]');
    assert.equal(
      await page().evaluate(`document.querySelector('.tool-card[data-call-id="call-edit-2"]').nextElementSibling.dataset.id`),
      'ask-edit',
      'the question sits right under the call it gates',
    );
    assert.match(await approval.locator('.diff').innerText(), /-export const hello = 1;\n\+export const hello = 2;/);
    await page().evaluate(`document.getElementById('transcript').scrollTop = 0`);
    await view.frames();
    const box = await approval.boundingBox();
    const transcript = await page().locator('#transcript').boundingBox();
    assert.ok(box && transcript && box.y >= transcript.y && box.y + 20 <= transcript.y + transcript.height, 'scrolled to the top, the question still shows');
    await approval.locator('button.preview-change').click();
    assert.deepEqual(await view.takePosted(), [{ type: 'preview_approval', id: 'ask-edit' }]);
    await page().screenshot({ path: join(ARTIFACTS, 'approval-with-diff.png') });
  });

  it('puts a question that came before its tool card under the card once the card arrives', async () => {
    await view.send({ type: 'approval', request: { ...APPROVAL, callId: 'call-late' } });
    await view.send(events({ type: 'tool_start', actor: CODER, callId: 'call-late', tool: 'bash', kind: 'execute', title: 'npm test', argumentsText: '{}' }));
    assert.equal(await page().evaluate(`document.querySelector('.tool-card[data-call-id="call-late"]').nextElementSibling.dataset.id`), APPROVAL.id);
    assert.equal(await page().locator('.tool-card[data-call-id="call-late"] .tool-head').innerText().then((text) => (text.match(/\bnpm test\b/g) ?? []).length), 1);
    assert.doesNotMatch(await page().locator('.tool-card[data-call-id="call-late"] .tool-head').innerText(), /bash\s+bash/, 'the tool is named once');
    // Answered and ended: the card says what the person answered, and the question goes, as a replay of the session shows it.
    await view.send({ type: 'approval_done', id: APPROVAL.id, decision: 'allow_once' });
    await view.send(events({ type: 'tool_end', callId: 'call-late', status: 'completed', durationMs: 70, waitedMs: 2100, approval: 'allow_once', setupMs: 1200, output: '', files: [] }));
    assert.equal(await page().locator(`.approval[data-id="${APPROVAL.id}"]`).count(), 0);
    assert.match(await page().locator('.tool-card[data-call-id="call-late"] .tool-note').innerText(), /^allowed once · waited 2\.1 ?s for approval · 1\.2 ?s to start$/);
  });

  it('offers to sign in to an MCP server that needs it, from its notice', async () => {
    const text = 'MCP server "docs" needs you to sign in: use "Crow: Sign In to MCP Server…". Its tools are unavailable until then.';
    await view.send(events({ type: 'notice', level: 'warning', text, action: { kind: 'mcp_sign_in', server: 'docs' } }));
    const line = page().locator('.notice').last();
    assert.match(await line.innerText(), /needs you to sign in/);
    await line.locator('button.notice-action').click();
    assert.deepEqual(await view.takePosted(), [{ type: 'mcp_sign_in', server: 'docs' }]);
  });

  it('tells retries in one line, ends an error with what to do, and a plain handback with no footer', async () => {
    const retry = (attempt: number): TranscriptEvent => ({ type: 'notice', level: 'info', text: `The provider failed; retry ${attempt} in 1 s: connection refused`, replaces: 'retry' });
    await view.send(events({ type: 'user_message', text: 'Hi' }, retry(1), retry(2), retry(3)));
    assert.equal(await page().locator('.notice').count(), 1);
    assert.match(await page().locator('.notice').innerText(), /retry 3 in/);
    await view.send(events({ type: 'prompt_end', status: 'error', message: 'Connection error: connect ECONNREFUSED 127.0.0.1:9', hint: { text: 'The provider did not answer.', setting: 'crow.baseUrls' } }));
    const card = page().locator('.prompt-end.prompt-error');
    assert.match(await card.innerText(), /The provider did not answer\./);
    assert.equal(await page().locator('.notice').count(), 0, 'the error card tells how the retries ended; no line says "retrying" any more');
    await card.locator('button.error-retry').click();
    await card.locator('button.error-settings').click();
    await card.locator('button.error-log').click();
    assert.deepEqual(await view.takePosted(), [{ type: 'retry' }, { type: 'open_settings', setting: 'crow.baseUrls' }, { type: 'show_log' }]);
    await view.send(events({ type: 'user_message', text: 'Thanks' }, { type: 'text_delta', actor: CODER, delta: 'You are welcome.' }, { type: 'prompt_end', status: 'needs_input', message: 'builder finished its turn; your move.' }));
    assert.equal(await page().locator('.prompt-end[data-status="needs_input"]').count(), 0, 'no "waiting for your answer" after a plain answer');
  });

  it('shows a review as rounds and verdicts, and one badge per run of work by the same agent', async () => {
    await view.send(
      events(
        { type: 'user_message', text: 'Fix it' },
        { type: 'text_delta', actor: CODER, delta: 'Fixing.' },
        { type: 'tool_start', actor: CODER, callId: 'c1', tool: 'read_file', kind: 'read', title: 'a.ts', argumentsText: '{}' },
        { type: 'tool_end', callId: 'c1', status: 'completed', durationMs: 5, output: 'x', files: [] },
        { type: 'tool_start', actor: CODER, callId: 'c2', tool: 'edit_file', kind: 'edit', title: 'a.ts', argumentsText: '{}' },
        { type: 'tool_end', callId: 'c2', status: 'cancelled', durationMs: 70, waitedMs: 26_700, output: '', files: [] },
        { type: 'review_start', reviewer: REVIEWER, primary: CODER, round: 1 },
        { type: 'verdict', reviewer: REVIEWER, round: 1, verdict: 'feedback', summary: '' },
        { type: 'review_start', reviewer: REVIEWER, primary: CODER, round: 2 },
        { type: 'verdict', reviewer: REVIEWER, round: 2, verdict: 'approved', summary: 'Looks **right**. <img src=x onerror="window.__xss=1">' },
      ),
    );
    await view.frames();
    assert.deepEqual(await page().locator('.review-start .review-round').allInnerTexts(), ['First review', 'Second review']);
    assert.deepEqual(await page().locator('.verdict').evaluateAll((items) => items.map((item) => item.getAttribute('data-verdict'))), ['feedback', 'approved']);
    assert.match(await page().locator('.verdict-feedback').innerText(), /Reviewer asked for changes/);
    assert.match(await page().locator('.verdict-approved').innerText(), /Reviewer approved\s+Looks right\. <img/, "the reviewer's words as prose, markup in them inert");
    assert.equal(await page().locator('.verdict-approved strong').last().innerText(), 'right');
    assert.equal(await page().locator('.verdict img').count(), 0);
    assert.equal(await page().locator('.tool-card[data-call-id="c1"] .badge').count(), 1);
    assert.equal(await page().locator('.tool-card[data-call-id="c1"] .badge').isVisible(), false, 'the same agent keeps working: no second badge');
    assert.equal(await page().locator('.msg-assistant .badge').first().isVisible(), true, 'the first block of a prompt names its agent');
    const cancelled = page().locator('.tool-card[data-call-id="c2"]');
    assert.equal(await cancelled.getAttribute('data-status'), 'cancelled');
    assert.match(await cancelled.locator('.tool-head').innerText(), /edit_file a\.ts[\s\S]*cancelled[\s\S]*70ms/, 'the head keeps what it did, time and state');
    assert.match(await cancelled.locator('.tool-note').innerText(), /^waited 26\.7s for approval$/, 'the wait is told apart, under the head');
  });

  it('offers the thinking level only when the model thinks, and a pick asks the host', async () => {
    assert.equal(await page().locator('#thinking').isVisible(), false);
    await view.send({ type: 'agents', agents: [{ name: 'build', description: '' }], agent: 'build', models: [], thinking: { current: 'medium', levels: ['off', 'low', 'medium', 'high'] } });
    assert.equal(await shownText(page().locator('#thinking')), 'medium');
    await pickOption(page().locator('#thinking'), 'high');
    assert.deepEqual(await view.takePosted(), [{ type: 'pick_thinking', level: 'high' }]);
  });

  it('says in an empty session what Crow does unasked, as the host words it, and keeps it after a reset', async () => {
    const said = 'Ask Crow to read, change or explain the code of this workspace. It asks before changing files and runs commands in a sandbox without asking.';
    await view.send({ type: 'agents', agents: [], agent: 'build', models: [], welcome: said });
    assert.equal(await page().locator('.welcome-text').innerText(), said);
    await view.send({ type: 'reset', sessionId: undefined, title: '' });
    assert.equal(await page().locator('.welcome-text').innerText(), said);
  });

  it('offers starter prompts in an empty session, put into the input', async () => {
    await page().locator('.welcome .starter').first().click();
    assert.match(await page().locator('textarea#prompt').inputValue(), /Explain how this project is organised/);
    assert.deepEqual(await view.takePosted(), [], 'nothing is sent until the person sends it');
  });

  it('clears the transcript, plan and approvals on reset', async () => {
    await view.send(events(...promptEvents()), { type: 'approval', request: APPROVAL });
    await view.send({ type: 'reset', sessionId: 's-older', title: 'Fix the flaky upload test' });
    assert.equal(await page().locator('#transcript > :not(.welcome)').count(), 0);
    assert.equal(await page().locator('#transcript .welcome').isVisible(), true, 'an empty session says what to do');
    assert.equal(await page().locator('#plan').isVisible(), false);
    assert.equal(await page().locator('#session-title').innerText(), 'Fix the flaky upload test');
    await page().locator('#sessions summary').click();
    assert.equal(await page().locator('#sessions .session[aria-current="true"]').getAttribute('data-session-id'), 's-older');
  });

  it('folds the session list when another session opens (New, a resume, a reopen after a reload), not when the same one is shown again', async () => {
    await page().locator('#sessions summary').click();
    await view.send({ type: 'reset', sessionId: 's-current', title: 'Add a greeting' });
    assert.equal(await page().locator('#sessions').getAttribute('open'), '', 'the same session shown again in a rebuilt view');
    await view.send({ type: 'reset', sessionId: undefined, title: '', opened: true });
    assert.equal(await page().locator('#sessions').getAttribute('open'), null, 'a new session gets the room');
  });

  it('survives a reload: the host replays the transcript, the view keeps the draft and the open session list', async () => {
    await view.send(events(...promptEvents()));
    await page().locator('#sessions summary').click();
    await page().locator('textarea#prompt').fill('half-written thought');
    await view.reload();
    assert.equal(await page().locator('textarea#prompt').inputValue(), 'half-written thought');
    assert.equal(await page().locator('#sessions').getAttribute('open'), '');
    await view.send(INIT, events(...promptEvents()));
    assert.equal(await page().locator('.msg-assistant').count(), 2);
    assert.equal(await page().locator('.tool-card').count(), 2);
    await view.send(INIT, events(...promptEvents()));
    assert.equal(await page().locator('.tool-card').count(), 2, 'a second init replaces the transcript instead of doubling it');
  });

  it('stays pinned to the newest entry unless the user scrolled up', async () => {
    const lines = (from: number) => events(...Array.from({ length: 40 }, (_, i): TranscriptEvent => ({ type: 'notice', level: 'info', text: `line ${from + i}` })));
    const gap = 'document.getElementById("transcript").scrollHeight - document.getElementById("transcript").scrollTop - document.getElementById("transcript").clientHeight';
    await view.send(lines(0));
    assert.ok((await page().evaluate(gap)) as number < 2);
    await page().locator('#transcript').hover();
    await page().mouse.wheel(0, -400);
    await view.until(`${gap} > 300`);
    await view.send(lines(40));
    assert.ok((await page().evaluate(gap)) as number > 300, 'reading older entries is not interrupted');
    await page().mouse.wheel(0, 100_000);
    await view.until(`${gap} < 2`);
    await view.send(lines(80));
    assert.ok((await page().evaluate(gap)) as number < 2);
  });

  it('renders a replay of 1,000 events', async () => {
    const replay: TranscriptEvent[] = [];
    for (let turn = 0; replay.length < 1000; turn++) {
      replay.push({ type: 'user_message', text: `question ${turn}` });
      for (const delta of chunks(`Answer ${turn} with \`code\` and a list:\n\n- one\n- two\n`, 8)) replay.push({ type: 'text_delta', actor: turn % 2 ? REVIEWER : CODER, delta });
      replay.push({ type: 'tool_start', actor: CODER, callId: `t${turn}`, tool: 'read_file', kind: 'read', title: `src/file${turn}.ts:1-20`, argumentsText: '{}' });
      replay.push({ type: 'tool_end', callId: `t${turn}`, status: 'completed', durationMs: 12, output: 'x\n'.repeat(20), files: [] });
    }
    await view.send(events(...replay));
    const turns = await page().locator('.msg-user').count();
    assert.ok(turns > 50);
    assert.equal(await page().locator('.tool-card[data-status="completed"]').count(), turns);
    assert.equal(await page().locator('.msg-assistant').count(), turns);
    assert.equal(await page().locator('.msg-assistant').last().locator('li').count(), 2);
  });

  it('keeps screenshots of a whole prompt, dark and light', async () => {
    await view.send(
      events(...promptEvents()),
      { type: 'approval', request: APPROVAL },
      { type: 'meter', prompt: { inputTokens: 1234, outputTokens: 56, cachedTokens: 1000, costUsd: 0.0123 }, session: { ...ZERO, inputTokens: 5000, outputTokens: 400, costUsd: 0.05 } },
    );
    await page().setViewportSize({ width: 420, height: 1150 });
    await view.frames();
    await page().screenshot({ path: join(ARTIFACTS, 'chat-view-dark.png') });
    const light = await ChatView.open(suite.harness(), 'light');
    try {
      await light.send(INIT, events(...promptEvents()), { type: 'approval', request: APPROVAL });
      await light.page.screenshot({ path: join(ARTIFACTS, 'chat-view-light.png') });
      assert.deepEqual(await light.violations(), []);
    } finally {
      await light.close();
    }
    assert.ok(existsSync(join(ARTIFACTS, 'chat-view-dark.png')) && existsSync(join(ARTIFACTS, 'chat-view-light.png')));
  });
});
