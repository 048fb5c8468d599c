/**
 * Background attempts in the VS Code chat, through the controller the view
 * talks to: Background with the Attempts picker at 3 starts them as a
 * background run (no card in the session on screen; listed with "3
 * attempts"); once it ends, Open shows the comparison card and Apply
 * brings an attempt into the folder through the chat's session, so Undo
 * puts the file back; a run applied once is not applied again. A CLI run
 * (`crow run --background --attempts`) opens the same way; a kept patch
 * altered to write into .git/ applies nothing; a folder that is not a git
 * repository is refused before anything starts.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ChatController } from '../../src/adapters/vscode/chat/chat-controller';
import { FakeLlmServer } from '../../testkit/fake-llm-server';
import type { AttemptsCardView, BackgroundRunView, HostMessage, TranscriptEvent } from '../../webview/chat/protocol';
import { ORIGINAL, WRITES, git, greeterRepository, scriptAttempts } from '../support/attempts-fixture';
import { folderChatHost, waitFor } from '../support/chat-host';
import { runCrow } from '../support/crow-binary';
import { isolatedEnv } from '../support/isolated-env';
import { quietViewActions } from '../support/view-actions';

const RANKING = '{"ranking": [{"attempt": 3, "reason": "Correct, and documents the function."}, {"attempt": 1, "reason": "Correct but bare."}, {"attempt": 2, "reason": "Says hallo, not hello."}]}';

describe('VS Code chat: attempts in the background, opened once they end and one applied', function () {
  this.timeout(120_000);
  let server: FakeLlmServer;
  let home: string;
  let repo: string;
  let env: NodeJS.ProcessEnv;
  let posted: HostMessage[];

  before(async () => (server = await FakeLlmServer.start()));
  after(() => server.close());
  beforeEach(() => {
    server.reset();
    home = mkdtempSync(join(tmpdir(), 'crow-chat-bg-attempts-'));
    repo = join(home, 'project');
    greeterRepository(repo);
    env = isolatedEnv(home, { ANTHROPIC_API_KEY: 'sk-ant-test-bg-attempts', ANTHROPIC_BASE_URL: server.anthropicBaseUrl });
    posted = [];
    scriptAttempts(server, RANKING);
  });
  afterEach(() => rmSync(home, { recursive: true, force: true, maxRetries: 10, retryDelay: 50 }));

  function controller(root = repo): ChatController {
    const settings: Record<string, unknown> = { provider: 'anthropic', baseUrls: { anthropic: server.anthropicBaseUrl } };
    return new ChatController(folderChatHost(root, env, (key) => settings[key]), (message) => posted.push(structuredClone(message)), quietViewActions());
  }
  const cards = (): AttemptsCardView[] => posted.flatMap((message) => (message.type === 'attempts' ? [message.card] : []));
  const latest = (): BackgroundRunView[] => posted.flatMap((message) => (message.type === 'background_runs' ? [message.runs] : [])).at(-1) ?? [];
  const shown = (): TranscriptEvent[] => posted.flatMap((message) => (message.type === 'events' ? message.events : []));
  const notices = (): string[] => shown().flatMap((event) => (event.type === 'notice' ? [event.text] : []));
  const finished = (id?: string): Promise<BackgroundRunView> => waitFor(() => latest().find((run) => (id === undefined || run.id === id) && run.state === 'finished'), 60_000);

  it('starts them in the background with no card, lists them, opens the comparison once they end, applies attempt 2 through the chat, and Undo takes it back', async () => {
    const chat = controller();
    await chat.handle({ type: 'ready' });
    await chat.handle({ type: 'pick_attempts', count: 3 });
    await chat.handle({ type: 'send_background', text: 'Make greet.js say hello' });
    assert.equal(chat.busy, false, 'the chat is free while they run');
    assert.match(notices().at(-1)!, /Running 3 attempts in the background/);
    const run = await finished();
    assert.equal(run.attempts, 3);
    assert.equal(run.openable, true);
    assert.equal(cards().length, 0, 'no card in the session on screen');
    assert.equal(readFileSync(join(repo, 'greet.js'), 'utf8'), ORIGINAL);
    assert.equal(git(repo, 'worktree', 'list', '--porcelain').split('\n').filter((line) => line.startsWith('worktree ')).length, 1, 'the worktrees are gone');

    await chat.handle({ type: 'open_background', id: run.id });
    const card = cards().at(-1)!;
    assert.deepEqual([card.id, card.phase, card.kept], [run.id, 'ranked', true]);
    assert.deepEqual(card.rows.map((row) => row.n), [3, 1, 2]);
    assert.equal(card.rows.find((row) => row.n === 2)?.diffs?.[0]?.path, 'greet.js');
    assert.match(card.rows.find((row) => row.n === 2)!.diffs![0]!.unified, /^\+module\.exports = \(\) => 'hallo';$/m);

    await chat.handle({ type: 'apply_attempt', run: run.id, n: 2 });
    assert.equal(readFileSync(join(repo, 'greet.js'), 'utf8'), WRITES[2]);
    assert.deepEqual([cards().at(-1)!.phase, cards().at(-1)!.applied], ['applied', 2]);
    const end = shown().findLast((event) => event.type === 'prompt_end');
    assert.deepEqual(end?.type === 'prompt_end' ? end.changes?.map((file) => file.path) : undefined, ['greet.js'], 'the changes bar lists the file');

    // Opened again, it says it was applied; the CLI refuses a second apply too.
    await chat.handle({ type: 'open_background', id: run.id });
    assert.deepEqual([cards().at(-1)!.phase, cards().at(-1)!.applied], ['applied', 2]);
    const again = await runCrow(['sessions', 'apply', run.id, '1'], env, repo);
    assert.equal(again.code, 2);
    assert.match(again.stderr, /already applied \(attempt 2\)/);

    await chat.handle({ type: 'undo_prompt' });
    assert.equal(readFileSync(join(repo, 'greet.js'), 'utf8'), ORIGINAL);
    await chat.dispose();
  });

  it("opens a CLI run's attempts the same way, and applies nothing from a kept patch altered to write into .git/", async () => {
    const started = await runCrow(['run', '--background', '--attempts', '3', '--concurrency', '3', '--provider', 'anthropic', 'Make greet.js say hello'], env, repo);
    assert.equal(started.code, 0, started.stderr);
    const id = started.stdout.trim();
    const chat = controller();
    await chat.handle({ type: 'ready' });
    // A CLI run's end is seen by the list's re-read every 2 s while it runs.
    const run = await waitFor(() => latest().find((one) => one.id === id && one.state === 'finished'), 60_000);
    assert.deepEqual([run.door, run.attempts, run.openable], ['cli', 3, true]);

    const patch = join(home, 'data', 'crow-agent', 'background', id, 'attempt-1.patch');
    writeFileSync(patch, 'diff --git a/.git/hooks/pre-commit b/.git/hooks/pre-commit\nnew file mode 100755\n--- /dev/null\n+++ b/.git/hooks/pre-commit\n@@ -0,0 +1 @@\n+touch owned\n');
    await chat.handle({ type: 'open_background', id });
    assert.equal(cards().at(-1)!.phase, 'ranked');
    await chat.handle({ type: 'apply_attempt', run: id, n: 1 });
    assert.ok(!existsSync(join(repo, '.git', 'hooks', 'pre-commit')));
    assert.match(JSON.stringify(shown()), /\.git\/hooks\/pre-commit, a protected path/);
    assert.equal(cards().at(-1)!.phase, 'ranked', 'still open to pick another');

    await chat.handle({ type: 'apply_attempt', run: id, n: 3 });
    assert.equal(readFileSync(join(repo, 'greet.js'), 'utf8'), WRITES[3]);
    await chat.dispose();
  });

  it('refuses background attempts in a folder that is not a git repository, before anything starts', async () => {
    const plain = join(home, 'plain');
    mkdirSync(plain);
    writeFileSync(join(plain, 'README.md'), '# Plain\n');
    const chat = controller(plain);
    await chat.handle({ type: 'ready' });
    await chat.handle({ type: 'pick_attempts', count: 2 });
    await chat.handle({ type: 'send_background', text: 'Make greet.js say hello' });
    assert.match(notices().at(-1)!, /is not in a git repository: attempts run in git worktrees/);
    assert.ok(!existsSync(join(home, 'data', 'crow-agent', 'background')) || latest().length === 0, 'nothing started');
    assert.equal(server.requests.length, 0);
    await chat.dispose();
  });
});
