/**
 * The chat view's brain: it answers the webview's messages (send, cancel,
 * resume, pickers, approvals) with the host's, keeps the transcript of the
 * open session so a reloaded view can be rebuilt, and asks approvals inline.
 * Plain Node: what only VS Code can do (diff editors, opening files, the
 * trace panel) goes through ViewActions.
 */
import { randomUUID } from 'node:crypto';
import { t } from '../l10n';
import type { PromptHunk } from '../../../journal/hunk-restore';
import { errorText } from '../../../vocabulary/text';
import type { HostMessage, RoleModelChoice, TranscriptEvent, WebviewMessage } from '../../../../webview/chat/protocol';
import { ChatAsking } from './chat-asking';
import { ChatSession, type ChatHost } from './chat-session';
import { ProviderSetup } from './provider-setup';
import { ChatPickers, type Pick } from './chat-pickers';
import { ChatQueue } from './chat-queue';
import { editorAction, type ViewActions } from './chat-actions';
import { ShownTranscript } from './shown-transcript';
import { notice } from './transcript-translator';
import { RestoreRecord } from './chat-restore';
import { ChatClicks } from './chat-clicks';
import { storedRewinds } from './stored-rewinds';
import { ChatAttempts } from './chat-attempts';
import { ChatBackground } from './chat-background';
import { ChatPrompts } from './chat-prompts';

export class ChatController {
  private chat: ChatSession | undefined;
  /** Everything shown of the open session, to rebuild a reloaded view. */
  private readonly shown = new ShownTranscript();
  /** Approvals and servers' questions shown in the view, waiting for the person. */
  private readonly asking: ChatAsking;
  /** Prompts followed in the view, and the meters. */
  private readonly prompts: ChatPrompts;
  /** The last prompt sent, for Retry after an error. */
  private lastPrompt: string | undefined;
  /** Messages sent while the agents work, not given to them yet. */
  private readonly queue: ChatQueue;
  private readonly setup: ProviderSetup;
  /** What the view was told of the open session's clicked restores and net counts, for a reloaded view. */
  private readonly record = new RestoreRecord();
  /** The view's Undo, Restore and Edit buttons. */
  private readonly clicks: ChatClicks;
  private readonly pickers: ChatPickers;
  /** The Attempts picker, and a prompt run as parallel attempts with its card. */
  private readonly attempts: ChatAttempts;
  /** Prompts run in the background, and the folder's list of them (the CLI's too). */
  private readonly background: ChatBackground;
  private readonly unwatchModels: (() => void) | undefined;
  /** New Session and Resume, one after another; how many are asked for or running. */
  private resets: Promise<unknown> = Promise.resolve();
  private resetting = 0;

  constructor(
    private readonly host: ChatHost,
    private readonly post: (message: HostMessage) => void,
    private readonly actions: ViewActions,
  ) {
    this.asking = new ChatAsking(post, (agent) => this.shown.actor(agent), actions);
    this.setup = new ProviderSetup(host, post, actions);
    this.clicks = new ChatClicks({
      current: () => this.chat,
      session: () => this.session(),
      shown: this.shown,
      record: this.record,
      store: host.store,
      post,
      confirm: actions.confirm,
      open: (id) => this.reset(id),
      send: (text) => this.send(text),
    });
    this.prompts = new ChatPrompts({
      host,
      post,
      show: (event) => this.show(event),
      current: () => this.chat,
      starting: () => (this.record.counts = undefined),
      ended: () => this.asking.withdrawAll(),
      needsSetup: () => this.setup.announce(),
      sessionsChanged: () => actions.sessionsChanged(),
    });
    this.background = new ChatBackground({
      host,
      post,
      show: (event) => this.show(event),
      current: () => this.chat,
      open: (id) => this.reset(id),
      openAttempts: async (id) => this.attempts.openKept(id, await this.session()),
      sessionsChanged: () => {
        this.post({ type: 'sessions', sessions: ChatSession.listed(host), current: this.chat?.id });
        actions.sessionsChanged();
      },
    });
    this.queue = new ChatQueue(post, randomUUID);
    this.pickers = new ChatPickers({ host, post, actions, current: () => this.chat, session: () => this.session() });
    this.attempts = new ChatAttempts({
      host,
      post,
      show: (event) => this.show(event),
      current: () => this.chat,
      runInSession: (chat, text, start) => this.prompts.run(chat, text, start),
      meter: () => this.prompts.attemptsMeter(),
    });
    // Pickers and set-up list VS Code's models; a model arriving later (Copilot's after sign-in) shows at once.
    this.unwatchModels = host.watchVscodeModels?.(() => void this.modelsChanged().catch(() => undefined));
  }

  get sessionId(): string | undefined {
    return this.chat?.id;
  }

  get busy(): boolean {
    return (this.chat?.busy ?? false) || this.attempts.running;
  }

  /** The hunks of the last prompt's change to `path` in the open session, as the bar lists them; [] with no session open. */
  promptHunks(path: string): Promise<PromptHunk[]> {
    return this.chat?.promptHunks(path) ?? Promise.resolve([]);
  }

  async handle(message: WebviewMessage): Promise<void> {
    try {
      await this.dispatch(message);
    } catch (err) {
      this.show(notice('error', errorText(err)));
    }
  }

  /** Puts text into the view's input (Send Selection / Send File). */
  prefill(text: string): void {
    this.post({ type: 'prefill', text });
  }

  async newSession(): Promise<void> {
    await this.dispatch({ type: 'new_session' });
  }

  /** The agents offered and the open session's, for the Pick Agent command. */
  agentChoices(): Promise<{ agents: { name: string; description: string }[]; current: string }> {
    return this.pickers.agentChoices();
  }

  modelChoicesNow(): Promise<RoleModelChoice[]> {
    return this.pickers.modelChoicesNow();
  }

  /** Picks an agent or a model as the view's pickers do, and tells the view. */
  async pick(choice: Pick): Promise<void> {
    await this.dispatch('agent' in choice ? { type: 'pick_agent', agent: choice.agent } : { type: 'pick_model', role: choice.role, model: choice.model });
  }

  cancel(): void {
    if (this.attempts.cancel()) return;
    this.chat?.cancel();
  }

  /** Answers the approval that has waited longest (the keyboard's allow and deny); false when none waits. */
  answerWaiting(decision: 'allow_once' | 'reject_once'): boolean {
    return this.asking.answerWaiting(decision);
  }

  /** The view goes away with the window: a running prompt ends as interrupted, to be offered for resuming when the view opens again. */
  async dispose(): Promise<void> {
    this.unwatchModels?.();
    // The prompt's close starts before anything is awaited: on a window reload the extension host may end before a
    // promise settles, and only what ran synchronously (stopping the running command) is sure to have happened.
    await Promise.all([this.chat?.close({ interrupted: true }), this.attempts.close(), this.background.close()]);
  }

  /** Offers the models VS Code offers now, once the view has a session to show them in. */
  private async modelsChanged(): Promise<void> {
    if (!this.chat) return;
    await this.pickers.announce();
    await this.setup.announce();
  }

  private async dispatch(message: WebviewMessage): Promise<void> {
    switch (message.type) {
      case 'ready':
        return this.ready();
      case 'send':
        return this.send(message.text);
      case 'cancel':
        return this.cancel();
      case 'new_session':
        return this.reset(undefined);
      case 'resume':
        return this.reset(message.sessionId);
      case 'pick_agent':
      case 'pick_model':
      case 'pick_thinking':
        return this.pickers.handle(message);
      case 'pick_attempts':
        return this.attempts.pick(message.count);
      case 'apply_attempt':
        if (this.chat?.busy) throw new Error(t('Crow is still working: apply the attempt once the run ends, or cancel it first.'));
        return this.attempts.apply(message.run, message.n);
      case 'dismiss_attempts':
        return this.attempts.dismiss(message.run);
      case 'send_background':
        return this.attempts.count > 1 ? this.background.startAttempts(message.text, this.attempts.count) : this.background.start(message.text);
      case 'open_background':
        return this.background.open(message.id);
      case 'stop_background':
        return this.background.stop(message.id);
      case 'approve':
      case 'deny':
      case 'approve_edited':
      case 'edit_change':
      case 'approve_change':
      case 'answer_question':
        await this.asking.handle(message);
        // The gate remembers an "always" once the answer reaches it, after this turn.
        if (message.type === 'approve' && message.decision === 'allow_always') setImmediate(() => this.announceRules());
        return;
      case 'suggest': {
        // Nothing when it cannot be known: the view then shows no list.
        const items = await (await this.session()).suggestions(message.trigger, message.query).catch(() => []);
        return this.post({ type: 'suggestions', trigger: message.trigger, query: message.query, items });
      }
      case 'revoke_rule':
        if (!this.chat?.revokeRule(message.id)) this.show(notice('info', t('That answer was already taken back.')));
        return this.announceRules();
      case 'retry':
        if (this.lastPrompt === undefined) throw new Error(t('Nothing to retry yet: send a prompt first.'));
        return this.send(this.lastPrompt);
      case 'restore':
      case 'edit_message':
      case 'undo_prompt':
      case 'show_hunks':
      case 'undo_hunk':
      case 'keep_hunk':
        return this.clicks.handle(message);
      case 'interrupt': // What is queued comes back when the run ends, and goes out as the next prompt at once.
        return this.cancel();
      case 'setup_key':
      case 'test_server':
      case 'use_server':
      case 'use_vscode_model':
        if (await this.setup.handle(message)) await this.pickers.announce();
        return;
      case 'stop_call':
        if (!this.chat?.stopCall(message.callId)) this.show(notice('info', t('That call has already ended.')));
        return;
      case 'apply_code':
        return this.prompts.applyCode(await this.session(), message, () => this.actions.pickFileForCode());
      case 'open_settings':
      case 'mcp_sign_in':
      case 'show_log':
      case 'open_diff':
      case 'preview_approval':
      case 'open_file':
      case 'show_trace':
      case 'copy_code':
      case 'insert_code':
        return editorAction(this.actions, message, {
          id: this.chat?.id,
          diffOf: (callId) => this.shown.diff(callId),
          approvalDiffOf: (id) => this.asking.approvalDiff(id),
        });
    }
  }

  private async ready(): Promise<void> {
    // A window reloaded while a prompt ran: the view opens on that session, which says it was interrupted and offers Resume.
    const reopened = !this.chat && (await this.reopenInterrupted());
    const chat = await this.session().catch((err: unknown) => {
      this.show(notice('error', errorText(err)));
      return undefined;
    });
    const { agents, models, thinking, welcome } = chat ? await chat.choices() : { agents: [], models: [], thinking: undefined, welcome: undefined };
    const sessions = ChatSession.listed(this.host);
    this.post({
      type: 'init',
      agents,
      agent: chat?.session.agentName ?? '',
      models: this.pickers.choices(models),
      ...(thinking ? { thinking } : {}),
      sessions,
      sessionId: sessions.some((stored) => stored.id === chat?.id) ? chat?.id : undefined,
      meter: this.prompts.meters(),
      busy: this.busy,
      ...(welcome ? { welcome } : {}),
    });
    this.post({ type: 'reset', sessionId: this.chat?.id, title: this.chat?.session.title ?? '', ...(reopened ? { opened: true } : {}) });
    const queued = this.queue.replay();
    if (queued) this.post(queued);
    for (const message of this.record.replay(this.shown.all)) this.post(message);
    for (const message of this.attempts.replay()) this.post(message);
    this.background.watch();
    this.background.announce(true);
    this.announceRules();
    // A reloaded view must still offer the questions a running prompt waits on.
    for (const message of this.asking.replay()) this.post(message);
    await this.setup.announce();
  }

  private async send(text: string): Promise<void> {
    if (text.trim() === '') return;
    const chat = await this.session();
    if (chat.busy) return this.queue.steer(chat, text, () => this.chat === chat, (next) => this.send(next));
    if (this.attempts.running) throw new Error(t('The attempts are still running: wait for their card, or cancel them, then send this again.'));
    this.lastPrompt = text;
    if (this.attempts.count > 1) return this.attempts.send(chat, text);
    await this.prompts.run(chat, text, (observer) => chat.prompt(text, observer));
  }

  /**
   * Closes the open session and opens a new one, or the stored session
   * `id`. Resets run one after another, and whatever asks for the session
   * meanwhile (a prompt sent right after New Session) waits for the one
   * they open.
   */
  private async reset(id: string | undefined): Promise<void> {
    this.resetting++;
    const run = this.resets.then(() => this.resetNow(id));
    this.resets = run.catch(() => undefined);
    try {
      await run;
    } finally {
      this.resetting--;
    }
  }

  private async resetNow(id: string | undefined): Promise<void> {
    if (this.chat?.busy) this.chat.cancel();
    await this.attempts.close();
    this.asking.withdrawAll();
    await this.chat?.close();
    this.chat = undefined;
    this.shown.clear();
    this.record.clear();
    this.queue.clear();
    this.prompts.reset();
    this.host.lastSession?.set(id);
    const chat = id === undefined ? await this.startedSession() : await this.open(id);
    this.post({ type: 'reset', sessionId: id, title: chat.session.title, opened: true });
    if (id !== undefined) {
      this.adoptStored(chat);
      for (const message of this.record.replay(this.shown.all)) this.post(message);
    }
    // A new session starts from zero; a resumed one shows what it has cost so far.
    this.post({ type: 'meter', ...this.prompts.meters() });
    await this.pickers.announce();
    this.post({ type: 'sessions', sessions: ChatSession.listed(this.host), current: id });
    this.announceRules();
    await this.setup.announce();
  }

  private async open(id: string): Promise<ChatSession> {
    this.chat = await ChatSession.resume(this.host, id, this.asking.askers);
    return this.chat;
  }

  /** The open session, started on first use; during a New Session or Resume, the one it opens. */
  private async session(): Promise<ChatSession> {
    if (this.resetting > 0) await this.resets;
    return this.startedSession();
  }

  private async startedSession(): Promise<ChatSession> {
    this.chat ??= await ChatSession.start(this.host, this.asking.askers);
    return this.chat;
  }

  /** Opens the session the view showed last when its last prompt was interrupted (true), or nothing (false). */
  private async reopenInterrupted(): Promise<boolean> {
    const id = this.host.lastSession?.get();
    const chat = id === undefined ? undefined : await ChatSession.reopenInterrupted(this.host, id, this.asking.askers);
    if (!chat || this.chat) {
      await chat?.close();
      return false;
    }
    this.chat = chat;
    this.adoptStored(chat);
    return true;
  }

  /**
   * What a stored session brings to the view: its transcript, its earlier
   * rewinds read from the session itself (so the view greys the same
   * turns, see stored-rewinds.ts), and what it has cost so far.
   */
  private adoptStored(chat: ChatSession): void {
    for (const event of chat.transcript()) this.shown.remember(event);
    for (const { at, message } of storedRewinds(chat.session, this.shown.all)) this.record.add(at, message);
    this.prompts.reset(chat.meter);
  }

  /** The open session's standing answers, to the view's list. */
  private announceRules(): void {
    this.post({ type: 'rules', rules: this.chat?.rules() ?? [] });
  }

  /** Shows an event and keeps it for a reload. */
  private show(event: TranscriptEvent): void {
    this.shown.remember(event);
    this.post({ type: 'events', events: [event] });
  }
}
