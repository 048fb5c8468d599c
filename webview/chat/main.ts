/**
 * The chat view's browser app. The host (src/adapters/vscode/) loads it into a
 * WebviewView with a nonce-based CSP and talks to it only through the message
 * unions of protocol.ts: HostMessages arrive as `message` events, the view
 * answers with WebviewMessages. After a (re)load the view posts `ready` and the
 * host answers with `init`, then replays the transcript as `events`.
 *
 * Stable DOM hooks (Playwright checks of the real VS Code UI rely on them):
 * `textarea#prompt`, `#send`, `#cancel`,
 * `#transcript`, `.msg-user`, `.msg-assistant`, `details.msg-thinking`,
 * `.tool-card[data-call-id][data-status]` with `.diff` and `button.open-diff`,
 * `.approval[data-id]` with `button[data-decision]`, an MCP server's
 * `.question[data-id]` with its fields' labelled controls and
 * `button[data-action]`, `#agent`,
 * `.model[data-role]`, `#thinking`, `#meter`, `#sessions`, `.queue`, the
 * set-up's `#setup-key`, `#setup-url`, `#setup-model`, the changes bar's
 * `.changes-keep` and `.changes-undo`, and on messages and cards
 * `[data-checkpoint]` with `button.checkpoint-restore` (and
 * `button.checkpoint-edit` on messages). Send, Cancel, New, Trace, Keep,
 * Undo and the set-up's buttons are `vscode-button`s, the pickers and the
 * set-up's model `vscode-single-select`s, its fields `vscode-textfield`s
 * (controls.ts); test/support/vscode-elements.ts drives them. Parallel
 * attempts: the `#attempts` picker, and `.attempts-card[data-run-id][data-phase]`
 * with `.attempt-row[data-n]`, `details.attempt-diff`, `.attempt-apply[data-n]`
 * and `.attempts-dismiss`. Background runs: `#background` (Run in background, beside Send) and
 * `#background-runs` (background-list.ts).
 */
import { showNetCounts, showUndone } from './changes-bar';
import { hunkKept, hunkUndone, showHunks } from './changes-hunks';
import { holdWhileBusy, showRewound } from './checkpoint-actions';
import { Composer } from './composer';
import { el } from './elements';
import { Host, isHostMessage } from './host';
import { usePageBundle } from './l10n';
import { MeterView } from './meter';
import { AttemptsCards } from './attempts-card';
import { PlanView } from './plan';
import { QueueView } from './queue-view';
import { RulesView } from './rules-view';
import type { HostMessage } from './protocol';
import { SessionList } from './session-list';
import { BackgroundList } from './background-list';
import { Toolbar } from './toolbar';
import { SetupView } from './setup-view';
import { Transcript } from './transcript';
import './chat.css';

class ChatApp {
  private readonly host = new Host();
  private readonly toolbar = new Toolbar(this.host.post);
  private readonly sessions = new SessionList(this.host.post, this.host.saved.sessionsOpen, (open) => this.host.save({ sessionsOpen: open }));
  private readonly background = new BackgroundList(this.host.post);
  private readonly plan = new PlanView();
  private readonly composer = new Composer(this.host.post, this.host.saved.draft, (draft) => this.host.save({ draft }));
  private readonly setup = new SetupView(this.host.post);
  private readonly transcript = new Transcript(
    this.host.post,
    this.plan,
    () => this.composer.input.focus(),
    (text) => this.composer.prefill(text),
    () => this.setup.open(),
  );
  private readonly meter = new MeterView();
  private readonly queue = new QueueView(this.host.post);
  private readonly rules = new RulesView(this.host.post);
  private readonly attempts = new AttemptsCards(this.host.post, (card) => this.transcript.placeInSight(card));

  constructor(root: HTMLElement) {
    const footer = el('footer', 'footer');
    this.composer.lead(this.toolbar.pickers);
    footer.append(this.plan.element, this.setup.element, this.queue.element, this.rules.element, this.composer.element, this.meter.element);
    root.replaceChildren(this.toolbar.element, this.sessions.element, this.background.element, this.transcript.element, footer);
    window.addEventListener('message', (event: MessageEvent<unknown>) => {
      if (isHostMessage(event.data)) this.receive(event.data);
    });
    // "Focus on Chat View" focuses the webview: the caret belongs in the prompt, not on the page.
    window.addEventListener('focus', () => {
      if (document.activeElement === document.body) this.composer.input.focus();
    });
    this.host.post({ type: 'ready' });
  }

  private receive(message: HostMessage): void {
    switch (message.type) {
      case 'init':
        if (message.welcome) this.transcript.setWelcome(message.welcome);
        this.transcript.clear();
        this.attempts.clear();
        this.toolbar.showAgents(message.agents, message.agent, message.models, message.thinking);
        this.sessions.show(message.sessions, message.sessionId);
        this.toolbar.setTitle(message.sessions.find((session) => session.id === message.sessionId)?.title ?? '');
        this.meter.show(message.meter.prompt, message.meter.session);
        this.setBusy(message.busy);
        break;
      case 'reset':
        this.transcript.clear();
        this.attempts.clear();
        this.meter.clearContext();
        this.toolbar.setTitle(message.title);
        this.sessions.setCurrent(message.sessionId);
        // The list has done its job once another session opens: the transcript gets the room back.
        if (message.opened) this.sessions.fold();
        // How many sessions this view has opened: what follows a New Session from the title bar can tell it has landed.
        document.body.dataset['opened'] = String(Number(document.body.dataset['opened'] ?? '0') + 1);
        break;
      case 'events': {
        this.transcript.applyAll(message.events);
        // A prompt that found no key: the set-up opens beside its card, rather than only a button to it.
        if (message.events.some((event) => event.type === 'prompt_end' && event.hint?.setup)) this.setup.open();
        for (const event of message.events) if (event.type === 'context') this.meter.showContext(event.agent, event.used, event.window);
        // The first prompt titles the session at once; the host's title follows when the prompt ends.
        const first = message.events.find((event) => event.type === 'user_message');
        if (first && this.toolbar.untitled) this.toolbar.setTitle(firstLine(first.text));
        break;
      }
      case 'agents':
        if (message.welcome) this.transcript.setWelcome(message.welcome);
        this.toolbar.showAgents(message.agents, message.agent, message.models, message.thinking);
        break;
      case 'sessions': {
        this.sessions.show(message.sessions, message.current);
        const current = message.sessions.find((session) => session.id === message.current);
        if (current) this.toolbar.setTitle(current.title);
        break;
      }
      case 'busy':
        this.setBusy(message.busy);
        break;
      case 'background_runs':
        this.background.show(message.runs);
        break;
      case 'queue':
        this.queue.show(message.items);
        break;
      case 'meter':
        this.meter.show(message.prompt, message.session);
        break;
      case 'approval':
        this.transcript.showApproval(message.request);
        break;
      case 'approval_done':
        this.transcript.approvalDone(message.id, message.decision);
        break;
      case 'approval_invalid':
        this.transcript.approval(message.id)?.invalid(message.problem);
        break;
      case 'approval_change':
        this.transcript.approval(message.id)?.editing(message.diff);
        break;
      case 'question':
        this.transcript.questions.show(message.question);
        break;
      case 'question_done':
        this.transcript.questions.done(message.id, message.outcome);
        break;
      case 'question_invalid':
        this.transcript.questions.get(message.id)?.invalid(message.problem);
        break;
      case 'suggestions':
        this.composer.suggestions(message);
        break;
      case 'prefill':
        this.composer.prefill(message.text);
        break;
      case 'setup':
        this.setup.show(message.need);
        break;
      case 'server_test':
        this.setup.tested(message);
        break;
      case 'setup_error':
        this.setup.failed(message.message);
        break;
      case 'restored':
        showUndone(this.transcript.element, message);
        showRewound(this.transcript.element, message);
        break;
      case 'change_counts':
        showNetCounts(this.transcript.element, message.files);
        break;
      case 'hunks':
        showHunks(this.transcript.element, message.path, message.hunks, this.host.post);
        break;
      case 'hunk_undone':
        hunkUndone(this.transcript.element, message.path, message.hunk, message.restored, message.message);
        break;
      case 'hunk_kept':
        hunkKept(this.transcript.element, message.path, message.hunk);
        break;
      case 'rules':
        this.rules.show(message.rules);
        break;
      case 'attempts_count':
        this.toolbar.showAttempts(message.count);
        break;
      case 'attempts':
        this.attempts.show(message.card);
        break;
      default:
        unreachable(message);
    }
  }

  private setBusy(busy: boolean): void {
    document.body.dataset['busy'] = String(busy);
    holdWhileBusy(this.transcript.element, busy);
    this.composer.setBusy(busy);
    this.transcript.setBusy(busy);
  }
}

function firstLine(text: string): string {
  const line = text.trim().split('\n')[0] ?? '';
  return line.length > 80 ? `${line.slice(0, 79)}…` : line;
}

function unreachable(value: never): never {
  throw new Error(`unhandled host message: ${JSON.stringify(value)}`);
}

/** The host's page may hold an `<div id="app">`; otherwise the app adds one, leaving the page's scripts alone. */
function start(): void {
  usePageBundle();
  let root = document.getElementById('app');
  if (!root) {
    root = el('div');
    root.id = 'app';
    document.body.append(root);
  }
  new ChatApp(root);
}

if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start, { once: true });
else start();
