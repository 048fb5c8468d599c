/**
 * The conversation as the host reports it: user messages, streamed assistant
 * text (markdown) and thinking (folded), tool cards, handoffs, subagent
 * progress, notices, the end of each prompt, and inline approvals.
 *
 * Deltas only append to a block's text; the block's HTML is rebuilt at most
 * once per animation frame, so hundreds of deltas a second cost one markdown
 * render per frame, and a replay of a whole session costs one render per block.
 * The view stays pinned to the newest entry unless the user scrolled up.
 */
import { ApprovalView } from './approval';
import { t } from './l10n';
import { helperStateWords } from '../../src/transcript/words';
import { actorBadge, button, details, el, sameActor } from './elements';
import type { Post } from './host';
import { renderMarkdown } from './markdown';
import { answerClicks } from './transcript-clicks';
import { QuestionCards } from './question-card';
import { PromptChanges } from './changes-bar';
import { promptEndCard } from './prompt-end';
import type { PlanView } from './plan';
import type { Actor, ApprovalOutcome, ApprovalRequest, FileCount, TranscriptEvent } from './protocol';
import { CheckpointActions } from './checkpoint-actions';
import { handoff, message, notice, reviewStart, verdict } from './entries';
import { ToolCard } from './tool-card';

interface Stream {
  kind: 'text' | 'thinking';
  actor: Actor;
  body: HTMLElement;
  text: string;
}

type SubagentEvent = Extract<TranscriptEvent, { type: 'subagent' }>;

/** Prompts to start from, in the person's language (they are sent as typed). */
const starters = (): string[] => [t('Explain how this project is organised'), t('Find the failing test and fix it'), t('Review my uncommitted changes')];

/** How close to the bottom (px) still counts as "at the bottom". */
const PIN_SLACK = 32;

export class Transcript {
  readonly element = el('main', 'transcript');
  /** The block each actor is streaming into; any other entry closes them all. */
  private readonly open = new Map<string, Stream>();
  private readonly dirty = new Set<Stream>();
  private readonly cards = new Map<string, ToolCard>();
  private readonly approvals = new Map<string, ApprovalView>();
  /** MCP servers' questions, at the end of the transcript while they wait. */
  readonly questions: QuestionCards;
  private readonly checkpoints: CheckpointActions;
  /** What the running prompt changed so far, for the bar under its end. */
  private changes = new PromptChanges();
  /** Takes Keep and Undo off the last prompt's bar once another prompt runs. */
  private retireChanges: (() => void) | undefined;
  /** What the empty session says Crow does. */
  private welcomeText: string;
  /** The message a person sent last: a prompt's checkpoint goes on it. */
  private lastMessage: HTMLElement | undefined;
  /** Who acted in the last block: consecutive blocks of one agent show its badge once. */
  private lastActor: Actor | undefined;
  /** The agents that spoke in this session: badges show only once there are two (see chat.css). */
  private readonly voices = new Set<string>();
  private frame = 0;
  private pinned = true;
  private lastTop = 0;

  constructor(
    private readonly post: Post,
    private readonly plan: PlanView,
    private readonly onApprovalFocusLost: () => void,
    private readonly onStarter: (prompt: string) => void = () => undefined,
    private readonly onSetup: () => void = () => undefined,
  ) {
    this.welcomeText = t('Ask Crow to read, change or explain the code of this workspace.');
    this.checkpoints = new CheckpointActions(post);
    this.questions = new QuestionCards(post, (card) => this.placeInSight(card), onApprovalFocusLost);
    this.element.id = 'transcript';
    this.element.tabIndex = -1;
    this.element.setAttribute('role', 'log');
    this.element.setAttribute('aria-label', t('Conversation'));
    this.element.addEventListener('scroll', () => this.onScroll());
    const onClick = answerClicks(this.post);
    this.element.addEventListener('click', onClick);
    this.element.addEventListener('auxclick', onClick);
    this.welcome();
  }

  applyAll(events: TranscriptEvent[]): void {
    for (const event of events) this.apply(event);
  }

  apply(event: TranscriptEvent): void {
    switch (event.type) {
      case 'user_message': {
        this.retireChanges?.();
        this.retireChanges = undefined;
        this.pinned = true;
        this.lastActor = undefined;
        const entry = message(event.action ? 'msg-user msg-action' : event.steered ? 'msg-user msg-steered' : 'msg-user', event.text);
        if (event.steered) entry.prepend(el('div', 'msg-steered-note', t('Sent while the agents worked')));
        this.append(entry);
        this.lastMessage = entry;
        break;
      }
      case 'checkpoint':
        this.checkpoints.mark(event, this.lastMessage, (callId) => this.cards.get(callId)?.element);
        break;
      // The meter shows it (main.ts).
      case 'context':
        break;
      case 'text_delta':
      case 'thinking_delta':
        this.heard(event.actor.agent);
        this.stream(event.type === 'text_delta' ? 'text' : 'thinking', event.actor, event.delta);
        break;
      case 'tool_start':
        this.heard(event.actor.agent);
        this.addCard(new ToolCard(event, this.post), event.actor);
        break;
      case 'tool_progress':
        this.cards.get(event.callId)?.progress(event);
        break;
      case 'tool_end':
        this.cardFor(event.callId).finish(event);
        this.changes.add(event);
        this.settleApprovals(event.callId);
        break;
      case 'plan':
        this.plan.show(event.entries);
        break;
      case 'handoff':
        this.append(handoff(event));
        break;
      case 'subagent':
        this.heard(event.subagent);
        this.subagent(event);
        break;
      case 'notice':
        this.notice(event);
        break;
      case 'review_start':
        this.lastActor = undefined;
        this.append(reviewStart(event));
        break;
      case 'verdict':
        this.heard(event.reviewer.agent);
        this.lastActor = undefined;
        this.append(verdict(event));
        break;
      case 'prompt_end':
        this.endPrompt(event);
        this.showChanges(event.changes ?? []);
        break;
      default:
        unreachable(event);
    }
    this.schedule();
  }

  /** One more agent spoke: with two or more, every badge says who (a single agent's session needs none). */
  private heard(agent: string): void {
    if (this.voices.has(agent)) return;
    this.voices.add(agent);
    this.element.classList.toggle('many-voices', this.voices.size > 1);
  }

  /** The question goes under the card of the call it gates (or at the end, and under the card once it comes). */
  showApproval(request: ApprovalRequest): void {
    if (this.approvals.has(request.id)) return;
    const view = new ApprovalView(request, this.post);
    this.approvals.set(request.id, view);
    this.pinned = true;
    const card = this.cards.get(request.callId);
    card?.waiting(true);
    if (card) card.element.after(view.element);
    else this.append(view.element);
    this.schedule();
  }

  /** The approval card `id`, while it is shown (the host's word on an edit goes to it). */
  approval(id: string): ApprovalView | undefined {
    return this.approvals.get(id);
  }

  approvalDone(id: string, decision: ApprovalOutcome): void {
    const view = this.approvals.get(id);
    if (!view?.pending) return;
    const hadFocus = view.element.contains(document.activeElement);
    view.done(decision);
    this.cards.get(view.callId)?.waiting(false);
    if (hadFocus) this.onApprovalFocusLost();
  }

  /** Puts a card that waits for the person at the end, in sight. */
  placeInSight(card: HTMLElement): void {
    this.pinned = true;
    this.append(card);
    this.schedule();
  }

  /**
   * A call that ended says on its card what the person answered; its
   * answered question goes, so the transcript reads as its replay does.
   */
  private settleApprovals(callId: string): void {
    for (const [id, view] of this.approvals) {
      if (view.callId !== callId || view.pending) continue;
      view.element.remove();
      this.approvals.delete(id);
    }
  }

  clear(): void {
    this.open.clear();
    this.dirty.clear();
    this.cards.clear();
    this.changes = new PromptChanges();
    this.approvals.clear();
    this.questions.clear();
    this.checkpoints.clear();
    this.lastMessage = undefined;
    this.plan.show([]);
    this.pinned = true;
    this.lastActor = undefined;
    this.voices.clear();
    this.element.classList.remove('many-voices');
    this.element.replaceChildren();
    this.welcome();
  }

  /** What the empty session says Crow does (the host words it from the permissions in force). */
  setWelcome(text: string): void {
    this.welcomeText = text;
    const shown = this.element.querySelector('.welcome-text');
    if (shown) shown.textContent = text;
  }

  /** What an empty session shows: what Crow is for, and prompts to start from (put in the input, not sent). */
  private welcome(): void {
    const block = el('section', 'welcome');
    block.append(el('p', 'welcome-text', this.welcomeText));
    const list = el('div', 'welcome-starters');
    for (const prompt of starters()) list.append(button(prompt, 'starter', () => this.onStarter(prompt)));
    block.append(list);
    this.element.append(block);
  }

  setBusy(busy: boolean): void {
    // A screen reader reads the log once a prompt has finished, not every streamed frame.
    this.element.setAttribute('aria-busy', String(busy));
  }

  private stream(kind: Stream['kind'], actor: Actor, delta: string): void {
    const key = `${actor.role}\u0000${actor.agent}`;
    let current = this.open.get(key);
    if (!current || current.kind !== kind || !sameActor(current.actor, actor)) {
      current = kind === 'text' ? this.textBlock(actor) : this.thinkingBlock(actor);
      this.open.set(key, current);
      this.markActor(current.body.closest('.msg') as HTMLElement, actor);
    }
    current.text += delta;
    this.dirty.add(current);
  }

  private textBlock(actor: Actor): Stream {
    const block = el('div', 'msg msg-assistant');
    const body = el('div', 'markdown');
    const head = el('div', 'msg-head');
    head.append(actorBadge(actor));
    block.append(head, body);
    this.append(block, true);
    return { kind: 'text', actor, body, text: '' };
  }

  private thinkingBlock(actor: Actor): Stream {
    const { root, summary } = details('msg msg-thinking', '');
    summary.append(actorBadge(actor), el('span', 'thinking-label', t('Thinking')));
    const body = el('div', 'thinking-body');
    root.append(body);
    this.append(root, true);
    return { kind: 'thinking', actor, body, text: '' };
  }

  private addCard(card: ToolCard, actor?: Actor): void {
    const id = card.element.dataset['callId']!;
    this.cards.set(id, card);
    if (actor) this.markActor(card.element, actor);
    this.append(card.element);
    this.checkpoints.cardAdded(id, card.element);
    // Its question may have come first.
    for (const view of this.approvals.values()) if (view.callId === id) card.element.after(view.element);
  }

  /** Consecutive blocks of one agent show its badge on the first only. */
  private markActor(block: HTMLElement, actor: Actor): void {
    block.classList.toggle('same-actor', this.lastActor !== undefined && sameActor(this.lastActor, actor));
    this.lastActor = actor;
  }

  /** A notice; one that replaces (retries of a request) updates the last such line instead of adding another. */
  private notice(event: Extract<TranscriptEvent, { type: 'notice' }>): void {
    if (event.replaces) {
      const last = this.element.lastElementChild as HTMLElement | null;
      if (last?.dataset['replaces'] === event.replaces) {
        last.textContent = event.text;
        return;
      }
    }
    const entry = notice(event.level, event.text);
    if (event.replaces) entry.dataset['replaces'] = event.replaces;
    const offer = event.action;
    if (offer?.kind === 'mcp_sign_in') entry.append(' ', button(t('Sign in…'), 'notice-action', () => this.post({ type: 'mcp_sign_in', server: offer.server })));
    this.append(entry);
  }

  /** The card of a call; one made up from the end alone if its start never arrived (a replay cut short). */
  private cardFor(callId: string): ToolCard {
    const known = this.cards.get(callId);
    if (known) return known;
    const card = new ToolCard({ type: 'tool_start', actor: { agent: 'agent', role: 'primary' }, callId, tool: 'tool', kind: 'other', title: '', argumentsText: '' }, this.post);
    this.addCard(card);
    return card;
  }

  /** A subagent's progress, on the card of the task call that started it, else as its own entry. */
  private subagent(event: SubagentEvent): void {
    const card = this.cards.get(event.callId)?.element;
    const scope = card ?? this.element;
    let line = [...scope.querySelectorAll<HTMLElement>('.msg-subagent')].find((item) => item.dataset['callId'] === event.callId);
    if (!line) {
      line = el('div', 'msg-subagent');
      line.dataset['callId'] = event.callId;
      line.append(actorBadge({ agent: event.subagent, role: 'subagent' }), el('span', 'subagent-state'), el('span', 'subagent-text'));
      if (card) card.append(line);
      else this.append(line);
    }
    line.dataset['state'] = event.state;
    line.querySelector('.subagent-state')!.textContent = helperStateWords(event.state, t);
    line.querySelector('.subagent-text')!.textContent = event.text;
  }

  private endPrompt(event: Extract<TranscriptEvent, { type: 'prompt_end' }>): void {
    const { status } = event;
    for (const card of this.cards.values()) card.stop();
    this.lastActor = undefined;
    // A retry line of a request that got through is history now; of one that gave up, the error card tells the end of it.
    const last = this.element.lastElementChild as HTMLElement | null;
    if (last?.dataset['replaces'] === 'retry' && status === 'error') last.remove();
    else delete last?.dataset['replaces'];
    const card = promptEndCard(event, this.post, () => this.onSetup());
    if (card) this.append(card);
  }

  /** What the prompt that just ended changed (the journal's `files`), with Keep and Undo; the next prompt gathers its own. */
  private showChanges(files: readonly FileCount[]): void {
    this.retireChanges?.();
    this.retireChanges = undefined;
    const bar = this.changes.bar(this.post, files);
    if (bar) {
      this.append(bar.element);
      this.retireChanges = bar.retire;
    }
    this.changes = new PromptChanges();
  }

  /** Adds an entry at the end; anything but a new streamed block closes the open ones. */
  private append(entry: HTMLElement, streamed = false): void {
    if (!streamed) this.open.clear();
    this.element.querySelector(':scope > .welcome')?.remove();
    this.element.append(entry);
  }

  private schedule(): void {
    if (this.frame) return;
    this.frame = requestAnimationFrame(() => this.flush());
  }

  private flush(): void {
    this.frame = 0;
    for (const stream of this.dirty) {
      if (stream.kind === 'text') stream.body.innerHTML = renderMarkdown(stream.text);
      else stream.body.textContent = stream.text;
    }
    this.dirty.clear();
    if (this.pinned) this.element.scrollTop = this.element.scrollHeight;
  }

  /** Content growing never unpins; only the user scrolling up does, and reaching the bottom pins again. */
  private onScroll(): void {
    const top = this.element.scrollTop;
    const distance = this.element.scrollHeight - top - this.element.clientHeight;
    if (distance < PIN_SLACK) this.pinned = true;
    else if (top < this.lastTop) this.pinned = false;
    this.lastTop = top;
  }
}

function unreachable(value: never): never {
  throw new Error(`unhandled transcript event: ${JSON.stringify(value)}`);
}
