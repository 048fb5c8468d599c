/**
 * Background runs in the VS Code chat, through the controller the view
 * talks to: "Run in background" starts a session the chat does not wait
 * for (the next prompt runs meanwhile), listed running then finished with
 * its record where the CLI keeps its own; Open shows it as the session it
 * is and goes on in it; a CLI run of this folder is listed and stopped
 * (SIGTERM), another folder's is not; and the records folder is attacked
 * (bad JSON, symlinks, a FIFO, a forged id, a huge file): each is skipped
 * with a line in the log, and nothing outside the data folder is read.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ChatController } from '../../src/adapters/vscode/chat/chat-controller';
import { FakeLlmServer } from '../../testkit/fake-llm-server';
import type { BackgroundRunView, HostMessage, TranscriptEvent } from '../../webview/chat/protocol';
import { folderChatHost, waitFor } from '../support/chat-host';
import { isolatedEnv } from '../support/isolated-env';
import { quietViewActions } from '../support/view-actions';

describe('VS Code chat: background runs, listed with the CLI\'s, stopped and opened as sessions', function () {
  this.timeout(60_000);
  let server: FakeLlmServer;
  let home: string;
  let root: string;
  let data: string;
  let posted: HostMessage[];
  let logged: string[];
  const children: ChildProcess[] = [];

  before(async () => (server = await FakeLlmServer.start()));
  after(() => server.close());
  beforeEach(() => {
    server.reset();
    home = mkdtempSync(join(tmpdir(), 'crow-chat-background-'));
    root = join(home, 'project');
    mkdirSync(root);
    writeFileSync(join(root, 'README.md'), '# Project\n');
    data = join(home, 'data', 'crow-agent');
    posted = [];
    logged = [];
  });
  afterEach(() => {
    for (const child of children.splice(0)) child.kill('SIGKILL');
    rmSync(home, { recursive: true, force: true, maxRetries: 10, retryDelay: 50 });
  });

  function controller(): ChatController {
    const env = isolatedEnv(home, { ANTHROPIC_API_KEY: 'sk-ant-test-background' });
    const settings: Record<string, unknown> = { provider: 'anthropic', baseUrls: { anthropic: server.anthropicBaseUrl } };
    const host = folderChatHost(root, env, (key) => settings[key], { log: (line) => void logged.push(line) });
    return new ChatController(host, (message) => posted.push(structuredClone(message)), quietViewActions());
  }
  const lists = (): BackgroundRunView[][] => posted.flatMap((message) => (message.type === 'background_runs' ? [message.runs] : []));
  const latest = (): BackgroundRunView[] => lists().at(-1) ?? [];
  const shown = (): TranscriptEvent[] => posted.flatMap((message) => (message.type === 'events' ? message.events : []));
  const notices = (): string[] => shown().flatMap((event) => (event.type === 'notice' ? [event.text] : []));

  it('runs a prompt in the background while the chat answers another, lists it running then finished, and opens it as its session', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    server.enqueue('anthropic', { blocks: [{ type: 'text', text: ['Background work ', 'is done.'] }], pauses: [{ before: 'is done.', until: held }] });
    const chat = controller();
    await chat.handle({ type: 'ready' });
    await chat.handle({ type: 'send_background', text: 'Tidy the README' });
    const running = await waitFor(() => latest().find((run) => run.prompt === 'Tidy the README' && run.state === 'running'));
    assert.equal(running.here, true);
    assert.equal(running.stoppable, true);
    assert.equal(running.openable, false);
    assert.equal(chat.busy, false, 'the chat is free');
    // The record is where the CLI keeps its own, private.
    const folder = join(data, 'background', running.id);
    const record = JSON.parse(readFileSync(join(folder, 'background.json'), 'utf8')) as { door: string; pid: number; cwd: string };
    assert.deepEqual([record.door, record.pid, record.cwd], ['vscode', process.pid, root]);
    assert.equal(statSync(folder).mode & 0o777, 0o700);
    assert.equal(statSync(join(folder, 'background.json')).mode & 0o777, 0o600);
    // Opening it while it runs says to wait.
    await chat.handle({ type: 'open_background', id: running.id });
    assert.match(notices().at(-1)!, /still running/);

    // The chat answers the next prompt meanwhile.
    server.enqueue('anthropic', { blocks: [{ type: 'text', text: 'Foreground answer.' }] });
    await chat.handle({ type: 'send', text: 'Say something' });
    assert.ok(shown().some((event) => event.type === 'text_delta' && event.delta.includes('Foreground')));
    assert.ok(!shown().some((event) => event.type === 'text_delta' && event.delta.includes('Background work')), 'the background run shows nothing in the chat');

    release();
    const finished = await waitFor(() => latest().find((run) => run.id === running.id && run.state === 'finished'));
    assert.equal(finished.openable, true);
    assert.equal(finished.here, true, 'still this window\'s once ended');
    assert.ok(finished.endedAt !== undefined);
    assert.deepEqual(JSON.parse(readFileSync(join(folder, 'background-end.json'), 'utf8')).exitCode, 0);

    await chat.handle({ type: 'open_background', id: running.id });
    const reset = posted.findLast((message) => message.type === 'reset');
    assert.equal(reset?.type === 'reset' && reset.sessionId, running.id);
    assert.equal(chat.sessionId, running.id);
    assert.ok(shown().some((event) => event.type === 'user_message' && event.text === 'Tidy the README'));
    // ... and goes on as that session.
    server.enqueue('anthropic', { blocks: [{ type: 'text', text: 'Continued.' }] });
    await chat.handle({ type: 'send', text: 'And now?' });
    assert.match(JSON.stringify(server.requests.at(-1)?.body), /Tidy the README[\s\S]*Background work is done[\s\S]*And now\?/);
    await chat.dispose();
  });

  it('Stop cancels a run of this window; closing the view stops what still runs, and its record says stopped', async () => {
    server.respondWith('anthropic', () => ({ blocks: [{ type: 'text', text: 'never sent' }], fault: { kind: 'stall_before_first_byte' } }));
    const chat = controller();
    await chat.handle({ type: 'ready' });
    await chat.handle({ type: 'send_background', text: 'First' });
    await chat.handle({ type: 'send_background', text: 'Second' });
    const first = await waitFor(() => latest().find((run) => run.prompt === 'First' && run.state === 'running'));
    const second = await waitFor(() => latest().find((run) => run.prompt === 'Second' && run.state === 'running'));
    await waitFor(() => (server.requests.length >= 2 ? true : undefined));
    await chat.handle({ type: 'stop_background', id: first.id });
    await waitFor(() => latest().find((run) => run.id === first.id && run.state === 'stopped'));
    await chat.dispose();
    assert.equal(JSON.parse(readFileSync(join(data, 'background', second.id, 'background-end.json'), 'utf8')).exitCode, 143);
  });

  it("lists this folder's CLI run (not another folder's), stops it with SIGTERM, then shows it gone; a VS Code run of another window is not signalled", async () => {
    const id = '0c1a2b3c-0000-4000-8000-000000000001';
    // A process whose command line names the run's id, as a CLI background run's does.
    const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)', id], { stdio: 'ignore' });
    children.push(child);
    const write = (runId: string, record: object): void => {
      mkdirSync(join(data, 'background', runId), { recursive: true });
      writeFileSync(join(data, 'background', runId, 'background.json'), JSON.stringify({ id: runId, ...record }));
    };
    write(id, { pid: child.pid, cwd: root, prompt: 'CLI work', startedAt: Date.now() - 5000 });
    write('0c1a2b3c-0000-4000-8000-000000000002', { pid: child.pid, cwd: join(home, 'elsewhere'), prompt: 'Other folder', startedAt: Date.now() });
    // "Another window": this process, with a start time that is not its own.
    write('0c1a2b3c-0000-4000-8000-000000000003', { pid: process.pid, cwd: root, prompt: 'Other window', startedAt: Date.now(), door: 'vscode', pidStart: '1' });
    const chat = controller();
    await chat.handle({ type: 'ready' });
    const runs = latest();
    assert.deepEqual(runs.map((run) => run.prompt).sort(), ['CLI work', 'Other window']);
    const cli = runs.find((run) => run.id === id)!;
    assert.deepEqual([cli.state, cli.door, cli.stoppable, cli.here], ['running', 'cli', true, false]);
    assert.equal(runs.find((run) => run.prompt === 'Other window')!.state, 'gone', 'a pid that is not the recorded process is not taken for it');
    const exited = new Promise((resolve) => child.once('exit', (_code, signal) => resolve(signal)));
    await chat.handle({ type: 'stop_background', id });
    assert.equal(await exited, 'SIGTERM');
    // The list follows (re-read every 2 s while a run of another process runs).
    await waitFor(() => latest().find((run) => run.id === id && run.state === 'gone'), 6_000);
    await chat.dispose();
  });

  it('skips hostile records with a line in the log, never reads through a symlink, and never crashes the list', async () => {
    const outside = join(home, 'secret.json');
    const good = '0c1a2b3c-0000-4000-8000-00000000000a';
    writeFileSync(outside, JSON.stringify({ id: 'x', pid: 1, cwd: root, prompt: 'SECRET OUTSIDE', startedAt: 1 }));
    const folderOf = (name: string): string => {
      mkdirSync(join(data, 'background', name), { recursive: true });
      return join(data, 'background', name);
    };
    writeFileSync(join(folderOf(good), 'background.json'), JSON.stringify({ id: good, pid: 999_999_999, cwd: root, prompt: 'Good old run', startedAt: 1000 }));
    writeFileSync(join(folderOf('bad-json'), 'background.json'), '{ not json');
    writeFileSync(join(folderOf('forged-id'), 'background.json'), JSON.stringify({ id: good, pid: 1, cwd: root, prompt: 'Forged', startedAt: 1 }));
    symlinkSync(outside, join(folderOf('linked-file'), 'background.json'));
    const linkedFolderTarget = join(home, 'elsewhere-run');
    mkdirSync(linkedFolderTarget);
    writeFileSync(join(linkedFolderTarget, 'background.json'), JSON.stringify({ id: 'linked-folder', pid: 1, cwd: root, prompt: 'SECRET FOLDER', startedAt: 1 }));
    symlinkSync(linkedFolderTarget, join(data, 'background', 'linked-folder'));
    execFileSync('mkfifo', [join(folderOf('fifo'), 'background.json')]);
    writeFileSync(join(folderOf('huge'), 'background.json'), `{"id":"huge","prompt":"${'x'.repeat(300 * 1024)}"}`);
    writeFileSync(join(folderOf('bad-fields'), 'background.json'), JSON.stringify({ id: 'bad-fields', pid: -4, cwd: root, prompt: 'Bad', startedAt: 1 }));
    symlinkSync(outside, join(folderOf(good), 'background-end.json'));
    mkdirSync(join(data, 'background', '..hidden'), { recursive: true });

    const chat = controller();
    await chat.handle({ type: 'ready' });
    const runs = latest();
    assert.deepEqual(runs.map((run) => [run.prompt, run.state]), [['Good old run', 'gone']], 'only the good record, its symlinked end not taken');
    assert.ok(!JSON.stringify(posted).includes('SECRET'), 'nothing from outside the data folder reached the view');
    const log = logged.join('\n');
    for (const expected of [/bad-json: its background\.json is not valid JSON/, /forged-id: its background\.json names another run/, /linked-file: its background\.json is a symlink/, /linked-folder: .* is not a plain folder/, /fifo: its background\.json is not a plain file/, /huge: its background\.json is too large/, /bad-fields: its background\.json has no valid pid/, /background-end\.json is a symlink/, /\.\.hidden: not a background run's folder/]) {
      assert.match(log, expected);
    }
    // Asking for runs the list does not have (a symlinked one, a path) opens nothing and stops nothing.
    for (const id of ['linked-folder', '../../secret', 'fifo']) {
      await chat.handle({ type: 'open_background', id });
      assert.match(notices().at(-1)!, /That background run is gone from the list/);
      await chat.handle({ type: 'stop_background', id });
    }
    assert.equal(chat.sessionId === undefined || chat.sessionId !== 'linked-folder', true);
    // Read again, the same lines are not logged twice.
    const before = logged.length;
    await chat.handle({ type: 'ready' });
    assert.equal(logged.length, before);
    await chat.dispose();
  });
});
