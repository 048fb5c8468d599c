/**
 * The chat's attempts with a check command (setting crow.attempts.check,
 * as `crow run --check`): each attempt's check result on its row and the
 * command on the card; a workspace's command runs only in a trusted
 * workspace (the card names it otherwise). And what attempts cost stays in
 * the session's meter when it is resumed: the same total as live.
 */
import assert from 'node:assert/strict';
import type { ChatController } from '../../src/adapters/vscode/chat/chat-controller';
import type { ChatHost } from '../../src/adapters/vscode/chat/chat-session';
import type { AttemptsCardView } from '../../webview/chat/protocol';
import { scriptAttempts } from '../support/attempts-fixture';
import { chatAttempts } from '../support/chat-attempts-fixture';

const RANKING = '```json\n{"ranking": [{"attempt": 1, "reason": "Says hello."}, {"attempt": 2, "reason": "Says hallo."}]}\n```';
/** Passes where greet.js says hello, fails where it says anything else. */
const CHECK = `node -e "process.exit(require('./greet.js')() === 'hello' ? 0 : 1)"`;

describe('VS Code chat: a check for each attempt, and what attempts cost kept on resume', function () {
  this.timeout(120_000);
  const t = chatAttempts('crow-chat-check-', RANKING);
  const controller = (extra: Partial<ChatHost> = {}): ChatController => t.controller(undefined, extra);
  const card = (): AttemptsCardView => t.posted.flatMap((message) => (message.type === 'attempts' ? [message.card] : [])).at(-1)!;

  it("runs the user's check in each worktree: the card names it, and each row says passed or failed", async () => {
    const chat = controller({ attemptsCheck: () => ({ user: CHECK }) });
    await chat.handle({ type: 'pick_attempts', count: 2 });
    await chat.handle({ type: 'send', text: 'Make greet.js say hello' });
    assert.equal(card().phase, 'ranked');
    assert.equal(card().check, CHECK);
    assert.deepEqual(card().rows.map((row) => [row.n, row.check]), [[1, true], [2, false]]);
    await chat.dispose();
  });

  it("does not run a workspace's check in an untrusted workspace (the card names it), and runs it once trusted", async () => {
    let trusted = false;
    const chat = controller({ attemptsCheck: () => ({ project: CHECK }), trusted: () => trusted });
    await chat.handle({ type: 'pick_attempts', count: 2 });
    await chat.handle({ type: 'send', text: 'Make greet.js say hello' });
    assert.equal(card().check, undefined);
    assert.equal(card().checkWithheld, CHECK);
    assert.ok(card().rows.every((row) => row.check === undefined), 'no check ran');
    await chat.handle({ type: 'dismiss_attempts', run: card().id });

    trusted = true;
    scriptAttempts(t.server, RANKING);
    await chat.handle({ type: 'send', text: 'Make greet.js say hello' });
    assert.equal(card().check, CHECK);
    assert.deepEqual(card().rows.map((row) => row.check), [true, false]);
    await chat.dispose();
  });

  it('a resumed session shows what its attempts and their judge cost, the same total as live', async () => {
    const chat = controller();
    await chat.handle({ type: 'pick_attempts', count: 2 });
    await chat.handle({ type: 'send', text: 'Make greet.js say hello' });
    await chat.handle({ type: 'apply_attempt', run: card().id, n: 1 });
    const live = t.posted.findLast((message) => message.type === 'meter');
    assert.ok(live?.type === 'meter' && live.session.inputTokens > 0);
    const id = chat.sessionId!;
    await chat.dispose();

    t.posted = [];
    const again = controller();
    await again.handle({ type: 'resume', sessionId: id });
    const resumed = t.posted.findLast((message) => message.type === 'meter');
    assert.ok(resumed?.type === 'meter');
    assert.deepEqual(
      [resumed.session.inputTokens, resumed.session.outputTokens, resumed.session.costUsd],
      [live.session.inputTokens, live.session.outputTokens, live.session.costUsd],
      'the attempts (2 × 2 calls) and the judge count again',
    );
    await again.dispose();
  });
});
