/**
 * Parallel attempts in the VS Code chat, through the controller the view
 * talks to: the Attempts picker at 3, a prompt run as three attempts in
 * git worktrees (the fake model tells them apart by the worktree their
 * system prompt names, as in crow-attempts.test.ts), one card that fills
 * in and ends ranked with a diff per attempt; Apply brings one into the
 * folder as a prompt of the chat's session, so its Undo puts the file
 * back; Apply none, a stale or forged Apply, and a folder that is not a
 * git repository each say what happened and leave no worktree behind.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { attemptSessions } from '../../src/adapters/vscode/chat/attempt-sessions';
import type { ChatController } from '../../src/adapters/vscode/chat/chat-controller';
import type { AttemptsCardView, TranscriptEvent } from '../../webview/chat/protocol';
import { JUDGE_SAYS, ORIGINAL, REVIEWER_SAYS, WRITES, git, scriptAttempts } from '../support/attempts-fixture';
import { chatAttempts } from '../support/chat-attempts-fixture';
import { waitFor } from '../support/chat-host';

const RANKING = '```json\n{"ranking": [{"attempt": 3, "reason": "Correct, and documents the function."}, {"attempt": 1, "reason": "Correct but bare."}, {"attempt": 2, "reason": "Says hallo, not hello."}]}\n```';

describe('VS Code chat: a prompt run as parallel attempts, compared on one card, one applied and undone', function () {
  this.timeout(120_000);
  const t = chatAttempts('crow-chat-attempts-', RANKING);
  const controller = (root?: string): ChatController => t.controller(root);
  const cards = (): AttemptsCardView[] => t.posted.flatMap((message) => (message.type === 'attempts' ? [message.card] : []));
  const shown = (): TranscriptEvent[] => t.posted.flatMap((message) => (message.type === 'events' ? message.events : []));
  const notices = (): string[] => shown().flatMap((event) => (event.type === 'notice' ? [event.text] : []));
  const worktrees = (): string[] => git(t.repo, 'worktree', 'list', '--porcelain').split('\n').filter((line) => line.startsWith('worktree '));
  function noAttemptFolders(): void {
    assert.equal(worktrees().length, 1, 'only the folder itself is a worktree');
    const folder = join(t.repo, '.git', 'crow-attempts');
    assert.ok(!existsSync(folder) || readdirSync(folder).length === 0, 'no attempt folder is left');
  }

  it('runs three attempts, shows them running then ranked with diffs, applies the one picked, and its Undo puts the file back', async () => {
    const chat = controller();
    await chat.handle({ type: 'ready' });
    await chat.handle({ type: 'pick_attempts', count: 3 });
    assert.ok(t.posted.some((message) => message.type === 'attempts_count' && message.count === 3));
    await chat.handle({ type: 'send', text: 'Make greet.js say hello' });

    // One card for the run: first three rows waiting, then running, then ranked.
    const all = cards();
    const id = all[0]!.id;
    assert.ok(all.every((card) => card.id === id), 'one card for the whole run');
    assert.deepEqual(all[0]!.rows.map((row) => [row.n, row.state]), [[1, 'waiting'], [2, 'waiting'], [3, 'waiting']]);
    assert.ok(all.some((card) => card.phase === 'running' && card.rows.some((row) => row.state === 'running')));
    assert.ok(all.some((card) => card.phase === 'judging'), 'it says when the judge is at work');
    const card = all.at(-1)!;
    assert.equal(card.phase, 'ranked');
    assert.deepEqual(card.judged, { used: true });
    assert.deepEqual(card.rows.map((row) => row.n), [3, 1, 2], "the judge's order");
    assert.equal(card.rows[0]!.why, 'Correct, and documents the function.');
    for (const row of card.rows) {
      assert.ok(row.status === 'completed' || row.status === 'needs_input', row.status);
      assert.deepEqual(row.files.map((file) => file.path), ['greet.js']);
      assert.equal(row.diffs?.[0]?.path, 'greet.js');
      assert.equal(row.steps, 1, 'one write each');
    }
    assert.match(card.rows[0]!.diffs![0]!.unified, /^\+\/\/ Greets the caller\.$/m);
    assert.match(card.rows[0]!.diffs![0]!.unified, /^-module\.exports = \(\) => 'hi';$/m);
    // Nothing reached the person's files yet; the person's message is in the transcript.
    assert.equal(readFileSync(join(t.repo, 'greet.js'), 'utf8'), ORIGINAL);
    assert.ok(shown().some((event) => event.type === 'user_message' && event.text === 'Make greet.js say hello'));
    assert.equal(worktrees().length, 4, 'the worktrees wait for the choice');
    // The meters count every attempt's calls and the judge's: 3 × 2 and 1.
    const meter = t.posted.findLast((message) => message.type === 'meter');
    const judged = t.server.requests.filter((request) => JSON.stringify(request.body).includes('the judge of several attempts')).length;
    assert.equal(judged, 1);
    assert.equal(t.server.requests.length, 7);
    assert.ok(meter?.type === 'meter' && meter.prompt.inputTokens > 0 && meter.session.inputTokens === meter.prompt.inputTokens, JSON.stringify(meter));

    await chat.handle({ type: 'apply_attempt', run: id, n: 3 });
    assert.equal(readFileSync(join(t.repo, 'greet.js'), 'utf8'), WRITES[3]);
    assert.equal(cards().at(-1)!.phase, 'applied');
    assert.equal(cards().at(-1)!.applied, 3);
    assert.ok(shown().some((event) => event.type === 'user_message' && event.action === true && event.text === 'Applied attempt 3'));
    const end = shown().findLast((event) => event.type === 'prompt_end');
    assert.equal(end?.type === 'prompt_end' && end.status, 'completed');
    assert.deepEqual(end?.type === 'prompt_end' ? end.changes?.map((file) => file.path) : undefined, ['greet.js'], 'the changes bar lists the file');
    noAttemptFolders();
    // The view's list holds the chat's session, titled by the person's prompt: the attempts' and the judge's sessions are under it, not beside it.
    const listed = t.posted.findLast((message) => message.type === 'sessions');
    assert.deepEqual(listed?.type === 'sessions' ? listed.sessions.map((session) => session.title) : undefined, ['Make greet.js say hello']);

    await chat.handle({ type: 'undo_prompt' });
    assert.equal(readFileSync(join(t.repo, 'greet.js'), 'utf8'), ORIGINAL);
    assert.equal(t.posted.findLast((message) => message.type === 'restored')?.type === 'restored' && (t.posted.findLast((message) => message.type === 'restored') as { outcome: string }).outcome, 'restored');
    // The chat's agent never saw the attempts: it reads what was applied, and that it was undone, with the next message.
    await chat.handle({ type: 'pick_attempts', count: 1 });
    t.server.enqueue('anthropic', { blocks: [{ type: 'text', text: 'Noted.' }] });
    await chat.handle({ type: 'send', text: 'What changed?' });
    const next = JSON.stringify(t.server.requests.at(-1)?.body ?? {});
    assert.match(next, /ran the task \\"Make greet\.js say hello\\" as parallel attempts outside this conversation and applied attempt 3: it changed greet\.js/);
    assert.match(next, /greet\.js is back as it was before/);
    await chat.dispose();
  });

  it('Apply none removes the worktrees; an Apply after it, or of a run that is not the card\'s, says so and writes nothing', async () => {
    const chat = controller();
    await chat.handle({ type: 'pick_attempts', count: 2 });
    await chat.handle({ type: 'send', text: 'Make greet.js say hello' });
    const id = cards().at(-1)!.id;
    assert.equal(cards().at(-1)!.phase, 'ranked');

    await chat.handle({ type: 'apply_attempt', run: 'not-a-run', n: 1 });
    assert.match(notices().at(-1)!, /Those attempts are gone/);
    await chat.handle({ type: 'dismiss_attempts', run: id });
    assert.equal(cards().at(-1)!.phase, 'dismissed');
    noAttemptFolders();
    await chat.handle({ type: 'apply_attempt', run: id, n: 1 });
    assert.match(notices().at(-1)!, /Those attempts were already dealt with/);
    assert.equal(readFileSync(join(t.repo, 'greet.js'), 'utf8'), ORIGINAL);
    await chat.dispose();
  });

  it("has the attempts of the picked agent judged by its own reviewer when it has one (pair: reviewer)", async () => {
    const systems: string[] = [];
    scriptAttempts(t.server, '{"ranking": [{"attempt": 2, "reason": "Reviewed: fine."}, {"attempt": 1, "reason": "Reviewed: bare."}]}', undefined, systems);
    const chat = controller();
    await chat.handle({ type: 'ready' });
    await chat.handle({ type: 'pick_agent', agent: 'pair' });
    await chat.handle({ type: 'pick_attempts', count: 2 });
    await chat.handle({ type: 'send', text: 'Make greet.js say hello' });
    assert.equal(cards().at(-1)!.phase, 'ranked');
    assert.deepEqual(cards().at(-1)!.judged, { used: true });
    assert.equal(systems.length, 1);
    assert.ok(systems[0]!.includes(REVIEWER_SAYS) && !systems[0]!.includes(JUDGE_SAYS), systems[0]);
    await chat.handle({ type: 'dismiss_attempts', run: cards().at(-1)!.id });
    await chat.dispose();
  });

  it('an attempt that no longer applies (the file changed since) writes nothing, says why, and the card offers the choice again', async () => {
    const chat = controller();
    await chat.handle({ type: 'pick_attempts', count: 2 });
    await chat.handle({ type: 'send', text: 'Make greet.js say hello' });
    const id = cards().at(-1)!.id;
    writeFileSync(join(t.repo, 'greet.js'), "module.exports = () => 'hey';\n");
    await chat.handle({ type: 'apply_attempt', run: id, n: 1 });
    assert.equal(readFileSync(join(t.repo, 'greet.js'), 'utf8'), "module.exports = () => 'hey';\n", 'the person\'s change is kept');
    const end = shown().findLast((event) => event.type === 'prompt_end');
    assert.equal(end?.type === 'prompt_end' && end.status, 'error');
    const answer = shown().flatMap((event) => (event.type === 'text_delta' ? [event.delta] : [])).join('');
    assert.match(answer, /Attempt 1 was not applied: The attempt's changes no longer apply to your files \(they changed since the attempts started\)/);
    assert.equal(cards().at(-1)!.phase, 'ranked');
    assert.equal(cards().at(-1)!.applied, undefined);
    await chat.handle({ type: 'dismiss_attempts', run: id });
    noAttemptFolders();
    await chat.dispose();
  });

  it('a reloaded view gets the picker and the card back; closing the view removes the worktrees of attempts not chosen', async () => {
    const chat = controller();
    await chat.handle({ type: 'pick_attempts', count: 2 });
    await chat.handle({ type: 'send', text: 'Make greet.js say hello' });
    t.posted = [];
    await chat.handle({ type: 'ready' });
    assert.ok(t.posted.some((message) => message.type === 'attempts_count' && message.count === 2));
    assert.equal(cards().at(-1)?.phase, 'ranked');
    assert.equal(worktrees().length, 3);
    await chat.dispose();
    noAttemptFolders();
  });

  it('Cancel stops running attempts: the card says cancelled, nothing is applied, and no worktree is left', async () => {
    // Every attempt's model call hangs until it is aborted.
    t.server.respondWith('anthropic', () => ({ blocks: [{ type: 'text', text: 'never sent' }], fault: { kind: 'stall_before_first_byte' } }));
    const chat = controller();
    await chat.handle({ type: 'pick_attempts', count: 2 });
    const sending = chat.handle({ type: 'send', text: 'Make greet.js say hello' });
    await waitFor(() => cards().find((card) => card.rows.some((row) => row.state === 'running')));
    assert.equal(chat.busy, true);
    await waitFor(() => (t.server.requests.length >= 1 ? true : undefined));
    // A prompt sent meanwhile is not started beside them: it says to wait.
    await chat.handle({ type: 'send', text: 'Something else' });
    assert.match(notices().at(-1)!, /The attempts are still running/);
    chat.cancel();
    await sending;
    assert.equal(cards().at(-1)!.phase, 'cancelled');
    assert.equal(chat.busy, false);
    assert.equal(readFileSync(join(t.repo, 'greet.js'), 'utf8'), ORIGINAL);
    noAttemptFolders();
    await chat.dispose();
  });

  it('in a folder that is not a git repository, or below its top, the card says why and what to do, and no model is asked', async () => {
    const plain = join(t.home, 'plain');
    mkdirSync(plain);
    writeFileSync(join(plain, 'greet.js'), ORIGINAL);
    const chat = controller(plain);
    await chat.handle({ type: 'pick_attempts', count: 2 });
    await chat.handle({ type: 'send', text: 'Make greet.js say hello' });
    const card = await waitFor(() => cards().find((one) => one.phase === 'failed'));
    assert.match(card.problem ?? '', /is not in a git repository: attempts run in git worktrees\. Run git init and commit once, then try again\. Or set Attempts to 1/);
    assert.equal(t.server.requests.length, 0);
    await chat.dispose();

    // A folder below the top of a repository: open the top one.
    mkdirSync(join(t.repo, 'sub'));
    t.posted = [];
    const below = controller(join(t.repo, 'sub'));
    await below.handle({ type: 'pick_attempts', count: 2 });
    await below.handle({ type: 'send', text: 'Make greet.js say hello' });
    const belowCard = await waitFor(() => cards().find((one) => one.phase === 'failed'));
    assert.equal(belowCard.problem, `Attempts run from the top folder of the repository: open ${t.repo} in VS Code (File > Open Folder), then try again. Or set Attempts to 1 to run the prompt as one session.`);
    assert.equal(t.server.requests.length, 0);
    // Attempts at 1 again: the next prompt is a prompt as usual.
    await below.handle({ type: 'pick_attempts', count: 1 });
    assert.equal(t.posted.filter((message) => message.type === 'busy').at(-1)?.type === 'busy' && (t.posted.filter((message) => message.type === 'busy').at(-1) as { busy: boolean }).busy, false);
    await below.dispose();
  });
  it("runs as many attempts at once as the provider's [limits] concurrency allows, as the CLI and ACP do", async () => {
    const host = t.host();
    const chat = { session: { agentName: 'build', models: {}, thoughtLevel: undefined }, id: 'chat' } as unknown as Parameters<typeof attemptSessions>[0]['chat'];
    // A server on loopback is one of your own: one at a time, unless [limits] concurrency says more.
    assert.equal((await attemptSessions({ host, chat, count: 3 })).concurrency, 1);
    mkdirSync(join(t.home, 'config', 'crow-agent'), { recursive: true });
    writeFileSync(join(t.home, 'config', 'crow-agent', 'config.toml'), '[limits.concurrency]\nanthropic = 3\n');
    assert.equal((await attemptSessions({ host, chat, count: 3 })).concurrency, 3);
  });
});
