/**
 * Background runs in the chat: "Run in background" sends a prompt to a new
 * session of the chat's agent (its models too) that nobody watches, so the
 * chat is free for the next prompt; the folder's rules decide alone (what
 * they say to ask about is refused with how to allow it), as with the
 * CLI's `crow run --background`. Each run is recorded where the CLI records
 * its own (src/host/background-records.ts, door `vscode`, this extension
 * host's pid), and the chat lists both kinds for its folder: running ones
 * can be stopped (this window's by cancelling, a CLI run by SIGTERM as
 * `crow sessions stop` does), ended ones open as the session they are.
 * A run lives as long as its window: closing or reloading it stops the run
 * (its record says stopped, or gone if the window died first).
 *
 * The list follows the records folder (a watcher, and a re-read every 2 s
 * only while a run of another process is running). The records are
 * hostile input: one that does not read is skipped, with a line in Crow's
 * output channel. Plain Node, like the rest of the controller.
 */
import { existsSync, type FSWatcher, mkdirSync, watch } from 'node:fs';
import { join } from 'node:path';
import { PRIVATE_DIR_MODE } from '../../../config/paths';
import { type BackgroundState, backgroundState, listBackground, processStart, writeEnd, writeRecord } from '../../../host/background-records';
import { errorText } from '../../../vocabulary/text';
import type { BackgroundRunState, BackgroundRunView, HostMessage, PromptStatus, TranscriptEvent } from '../../../../webview/chat/protocol';
import { keptExists } from '../../../attempts/kept-attempts';
import { t } from '../l10n';
import { checkBackgroundAttempts, runBackgroundAttempts } from './chat-background-attempts';
import { notice } from './transcript-translator';
import { type ChatHost, ChatSession } from './chat-session';

export interface BackgroundParts {
  host: ChatHost;
  post: (message: HostMessage) => void;
  /** Shows a transcript event (a notice) in the open session. */
  show: (event: TranscriptEvent) => void;
  /** The session on screen (its agent and models are the run's). */
  current: () => ChatSession | undefined;
  /** Opens the stored session `id` in the chat (the controller's Resume). */
  open: (id: string) => Promise<void>;
  /** The session list changed (a run stored its session, or ended). */
  sessionsChanged: () => void;
  /** Opens the comparison card of the finished background attempts `id` (chat-kept-attempts.ts). */
  openAttempts: (id: string) => Promise<void>;
}

interface OwnRun {
  /** Stops it (its record then says stopped). */
  cancel: () => void;
  done: Promise<void>;
}

/** How often the list is read again while a run of another process runs (its end is written in a folder the watcher does not see). */
const REREAD_MS = 2_000;

export class ChatBackground {
  private readonly own = new Map<string, OwnRun>();
  /** Every run this window started, ended ones too (they are "here", not another window's). */
  private readonly startedHere = new Set<string>();
  private watcher: FSWatcher | undefined;
  private timer: ReturnType<typeof setInterval> | undefined;
  private closed = false;
  /** What was posted last, to post only changes. */
  private last = '';

  constructor(private readonly parts: BackgroundParts) {}

  /** Starts `text` as a background run; resolves once it runs (not when it ends). */
  async start(text: string): Promise<void> {
    if (text.trim() === '') return;
    const { host } = this.parts;
    const chat = await this.unattended();
    const pidStart = processStart(process.pid);
    writeRecord(host.dataHome, { id: chat.id, pid: process.pid, cwd: host.root, prompt: text, startedAt: Date.now(), door: 'vscode', ...(pidStart !== undefined ? { pidStart } : {}) });
    const done = this.follow(chat, text);
    this.own.set(chat.id, { cancel: () => chat.cancel(), done });
    this.startedHere.add(chat.id);
    this.watch();
    this.announce();
    this.parts.show(notice('info', t('Running in the background: the Background runs list shows it, and opens it once it ends.')));
  }

  /** Starts `text` as `count` attempts in the background (chat-background-attempts.ts); resolves once they run. */
  async startAttempts(text: string, count: number): Promise<void> {
    if (text.trim() === '') return;
    const { host } = this.parts;
    await checkBackgroundAttempts(host);
    const chat = await this.unattended();
    const pidStart = processStart(process.pid);
    writeRecord(host.dataHome, { id: chat.id, pid: process.pid, cwd: host.root, prompt: text, attempts: count, startedAt: Date.now(), door: 'vscode', ...(pidStart !== undefined ? { pidStart } : {}) });
    const abort = new AbortController();
    const done = this.ended(chat, () => runBackgroundAttempts(host, chat, text, count, abort.signal));
    this.own.set(chat.id, { cancel: () => abort.abort(), done });
    this.startedHere.add(chat.id);
    this.watch();
    this.announce();
    this.parts.show(notice('info', t`Running ${count} attempts in the background: the Background runs list shows them, and opens their comparison once they end.`));
  }

  /** A session of the chat's agent and models that nobody watches: a background run's own. */
  private async unattended(): Promise<ChatSession> {
    const on = this.parts.current();
    const chat = await ChatSession.startUnattended(this.parts.host, on?.session.agentName);
    for (const [role, model] of Object.entries(on?.session.models ?? {})) if (model) await chat.setModel(role as 'primary' | 'coagent', model).catch(() => undefined);
    if (on?.session.thoughtLevel !== undefined) chat.session.thoughtLevel = on.session.thoughtLevel;
    return chat;
  }

  /**
   * Waits for `run` (its exit code), records its end, and lists it as
   * ended. `starts`: a failure is the run not starting (a prompt refused),
   * said so; otherwise the run failed on its way.
   */
  private async ended(chat: ChatSession, run: () => Promise<number>, starts = false): Promise<void> {
    let code = 1;
    try {
      code = await run();
    } catch (err) {
      const what = starts ? 'could not start' : 'failed';
      this.parts.host.log?.(`The background run ${chat.id} ${what}: ${errorText(err)}`);
      if (!this.closed) this.parts.show(notice('error', starts ? t`The background run could not start: ${errorText(err)}` : t`The background run failed: ${errorText(err)}`));
    }
    try {
      writeEnd(this.parts.host.dataHome, chat.id, { endedAt: Date.now(), exitCode: code });
    } catch (err) {
      this.parts.host.log?.(`Could not record how the background run ${chat.id} ended: ${errorText(err)}`);
    }
    await chat.close().catch(() => undefined);
    this.own.delete(chat.id);
    if (this.closed) return;
    this.announce();
    this.parts.sessionsChanged();
  }

  /** A prompt run in the background: listed among the sessions once it stored one (its first event). */
  private follow(chat: ChatSession, text: string): Promise<void> {
    let listed = false;
    const run = async (): Promise<number> => {
      const outcome = await chat.prompt(text, {
        onEvent: () => {
          if (listed) return;
          listed = true;
          this.parts.sessionsChanged();
        },
        onMeter: () => undefined,
      });
      return exitCodeOf(outcome.status);
    };
    return this.ended(chat, run, true);
  }

  /** The folder's background runs as the view lists them, newest first. */
  runs(): BackgroundRunView[] {
    const { host } = this.parts;
    const states = listBackground(host.dataHome, { cwd: host.root, warn: (line) => this.warn(line) });
    return states.map((state) => this.view(state));
  }

  /** Posts the list when it changed (or always, for a reloaded view). */
  announce(always = false): void {
    const runs = this.runs();
    const text = JSON.stringify(runs);
    if (!always && text === this.last) return;
    this.last = text;
    this.parts.post({ type: 'background_runs', runs });
    this.pollWhileOthersRun(runs);
  }

  /** Stop: this window's run is cancelled; a CLI run gets SIGTERM (as `crow sessions stop`); another window's says where to stop it. */
  async stop(id: string): Promise<void> {
    const mine = this.own.get(id);
    if (mine) {
      mine.cancel();
      await mine.done;
      return;
    }
    const state = this.stateOf(id);
    if (state.state !== 'running') return this.announce(true);
    if (state.record.door === 'vscode') throw new Error(t('That run belongs to another VS Code window: stop it there.'));
    try {
      process.kill(state.record.pid, 'SIGTERM');
    } catch (err) {
      throw new Error(t`Could not stop the run (pid ${state.record.pid}): ${errorText(err)}`);
    }
    this.parts.host.log?.(`Sent SIGTERM to the background run ${id} (pid ${state.record.pid}).`);
  }

  /** Opens the run's session in the chat: its transcript, then continued as that session. */
  async open(id: string): Promise<void> {
    const state = this.stateOf(id);
    if (state.state === 'running') throw new Error(t('That run is still running: open it once it ends (or stop it first).'));
    if (state.record.attempts !== undefined && keptExists(this.parts.host.dataHome, id)) return this.parts.openAttempts(id);
    if (!this.parts.host.store.has(id)) {
      throw new Error(t`That run stored no session to open, nor attempts to pick from (a run that failed to start, or attempts from before runs kept them). Its output: crow sessions show ${id}`);
    }
    await this.parts.open(id);
  }

  /** The window closes: this window's runs stop (their records say so), and the list stops following the folder. */
  async close(): Promise<void> {
    this.closed = true;
    this.watcher?.close();
    this.watcher = undefined;
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    const runs = [...this.own.values()];
    for (const run of runs) run.cancel();
    await Promise.all(runs.map((run) => run.done.catch(() => undefined)));
  }

  /** Watches the records folder (made if missing, 0700 like the CLI makes it) from the first list on. */
  watch(): void {
    if (this.watcher || this.closed) return;
    const folder = join(this.parts.host.dataHome, 'background');
    try {
      if (!existsSync(folder)) mkdirSync(folder, { recursive: true, mode: PRIVATE_DIR_MODE });
      this.watcher = watch(folder, () => this.announce());
      this.watcher.on('error', () => {
        this.watcher?.close();
        this.watcher = undefined;
      });
    } catch (err) {
      this.parts.host.log?.(`Background runs: cannot watch ${folder} (${errorText(err)}); the list is read again when it is shown.`);
    }
  }

  private pollWhileOthersRun(runs: BackgroundRunView[]): void {
    const others = runs.some((run) => run.state === 'running' && !run.here);
    if (others && !this.timer && !this.closed) this.timer = setInterval(() => this.announce(), REREAD_MS);
    if (!others && this.timer) {
      clearInterval(this.timer);
      this.timer = undefined;
    }
  }

  private stateOf(id: string): BackgroundState {
    const state = backgroundState(this.parts.host.dataHome, id, (line) => this.warn(line));
    if (!state || state.record.cwd !== this.parts.host.root) throw new Error(t('That background run is gone from the list: it was deleted, or is not of this folder.'));
    return state;
  }

  private view(state: BackgroundState): BackgroundRunView {
    const { record } = state;
    const live = this.own.has(record.id);
    const here = live || this.startedHere.has(record.id);
    const door = record.door ?? 'cli';
    const shown = live ? 'running' : stateWord(state);
    return {
      id: record.id,
      prompt: record.prompt,
      state: shown,
      startedAt: new Date(record.startedAt).toISOString(),
      ...(state.state === 'finished' ? { endedAt: new Date(state.end.endedAt).toISOString() } : {}),
      door,
      here,
      ...(record.attempts !== undefined ? { attempts: record.attempts } : {}),
      openable: shown !== 'running' && (this.parts.host.store.has(record.id) || (record.attempts !== undefined && keptExists(this.parts.host.dataHome, record.id))),
      stoppable: shown === 'running' && (live || door === 'cli'),
    };
  }

  /** One line per skipped record and reason, not one per re-read. */
  private readonly warned = new Set<string>();
  private warn(line: string): void {
    if (this.warned.has(line)) return;
    this.warned.add(line);
    this.parts.host.log?.(line);
  }
}

function stateWord(state: BackgroundState): BackgroundRunState {
  if (state.state !== 'finished') return state.state;
  const code = state.end.exitCode;
  if (code === 0) return 'finished';
  return code === 3 || code === 129 || code === 130 || code === 143 ? 'stopped' : 'failed';
}

/** A prompt's end as the CLI's exit codes say it (run-command.ts), so both doors' records read alike. */
function exitCodeOf(status: PromptStatus): number {
  switch (status) {
    case 'completed':
    case 'needs_input':
      return 0;
    case 'cancelled':
      return 143;
    case 'limit':
    case 'budget':
      return 3;
    case 'error':
      return 1;
  }
}
