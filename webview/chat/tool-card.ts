/**
 * A tool call as a card: its head says what happened in plain words
 * ("Edited greeting.txt +1 −1", "Ran npm test — failed, exit 254"), with
 * who called it, its time and state; the tool's name and arguments, and its
 * output, are folded below (one click away); then the files it changed and,
 * for edits, the diff with an "Open diff" action. A call the person or the
 * settings refused is a neutral "Not allowed: …" card. The card is created by
 * `tool_start`, shows its time and the end of its output while it runs
 * (`tool_progress`), and is completed in place by `tool_end`. Text only: no
 * tool output is ever parsed as HTML.
 */
import { actorBadge, button, details, el, fileLink } from './elements';
import { t } from './l10n';
import { diffLines } from './diff-lines';
import { duration } from './format';
import type { CallWords, CardDiff, TranscriptEvent } from './protocol';
import { fileOpener, type Post } from './host';
import { notAllowedWords, refusedWords } from '../../src/transcript/words';

type ToolStart = Extract<TranscriptEvent, { type: 'tool_start' }>;
type ToolProgress = Extract<TranscriptEvent, { type: 'tool_progress' }>;
type ToolEnd = Extract<TranscriptEvent, { type: 'tool_end' }>;

/** Kinds whose title is a file (`src/app.ts:1-40`), so the title opens it. */
const FILE_KINDS: ReadonlySet<string> = new Set(['read', 'edit', 'delete', 'move']);
/** The person's answer to the call's approval, as its card states it once the call ended (the question itself is gone then). */
function answered(approval: NonNullable<ToolEnd['approval']>): string {
  switch (approval) {
    case 'allow_once':
      return t('allowed once');
    case 'allow_edited':
      return t('allowed with your changes');
    case 'allow_always':
      return t('always allowed');
    case 'reject_once':
      return t('denied');
    case 'reject_always':
      return t('always denied');
  }
}
function statusText(status: string): string | undefined {
  const words: Record<string, () => string> = {
    running: () => t('running'),
    waiting: () => t('waiting for you'),
    completed: () => t('done'),
    failed: () => t('failed'),
    cancelled: () => t('cancelled'),
    stopped: () => t('stopped'),
    denied: () => t('not allowed'),
  };
  return words[status]?.();
}
/** Who refused a call, as its card says it: the transcript model's words. */
function refusedBy(who: NonNullable<ToolEnd['denied']>): string {
  return refusedWords(who, t);
}

export class ToolCard {
  readonly element: HTMLElement;
  private readonly state = el('span', 'tool-state');
  private readonly took = el('span', 'tool-duration');
  private readonly head = el('header', 'tool-head');
  /** What the call does: its verb ("Editing", then "Edited") and its target. */
  private readonly what = el('span', 'tool-what');
  private readonly verb = el('span', 'tool-verb');
  private readonly outcome = el('span', 'tool-outcome');
  private readonly words: CallWords;
  private readonly title: string;
  private readonly openFile: (path: string, line?: number) => void;
  /** Stops the running command (execute calls only); gone once the call ended. */
  private stopButton: HTMLButtonElement | undefined;
  /** What the running call shows of its work: its step and the end of its output. */
  private liveView: { root: HTMLElement; step: HTMLElement; caption: HTMLElement; tail: HTMLPreElement } | undefined;

  constructor(start: ToolStart, private readonly post: Post) {
    this.openFile = fileOpener(post);
    this.words = start.words ?? { doing: start.tool, done: start.tool, ask: `use ${start.tool}`, target: start.title };
    // What a screen reader and the aria-label say: what the call did, then its state.
    this.title = `${this.words.done} ${this.words.target}`.trim();
    this.element = el('article', 'tool-card');
    this.element.dataset['callId'] = start.callId;
    this.element.dataset['kind'] = start.kind;
    this.element.dataset['tool'] = start.tool;
    this.verb.textContent = this.words.doing;
    this.what.append(this.verb);
    if (this.words.target !== '') this.what.append(' ', this.target(this.words, start.kind));
    this.outcome.hidden = true;
    // How it ended right after what it did ("Ran npm test · failed, exit 254"); its time and sandbox after that.
    this.head.append(el('span', 'tool-mark'), actorBadge(start.actor), this.what, this.outcome, this.state, this.took, this.traceLink(start.callId));
    // A command can be stopped on its own while it runs; the agent is told and goes on.
    if (start.kind === 'execute') {
      this.stopButton = button(t('Stop'), 'tool-stop', () => {
        this.stopButton!.disabled = true;
        this.post({ type: 'stop_call', callId: start.callId });
      }, 'debug-stop');
      this.stopButton.title = t('Stop this command; the agent is told and goes on');
      this.stopButton.setAttribute('aria-label', t`Stop ${this.title}`);
      this.head.append(this.stopButton);
    }
    this.element.append(this.head);
    // The machinery, on demand: which tool, with which arguments.
    const args = details('tool-args', t('Details'));
    const id = el('div', 'tool-id', `${t('Tool')} `);
    id.append(el('code', 'tool-name', start.tool));
    args.root.append(id);
    if (start.argumentsText.trim()) args.root.append(el('pre', 'tool-text', start.argumentsText));
    this.element.append(args.root);
    this.setStatus('running');
  }

  get status(): string {
    return this.element.dataset['status'] ?? 'running';
  }

  /** Whether the call has not ended: it runs, or waits for the person's answer. */
  get live(): boolean {
    return this.status === 'running' || this.status === 'waiting';
  }

  /** The call waits for the person's answer to its approval (true), or goes on after it (false). */
  waiting(waits: boolean): void {
    if (this.live) this.setStatus(waits ? 'waiting' : 'running');
  }

  /** The call is still running: its time so far, its step, the last lines of its output (kept scrolled to the newest). */
  progress(event: ToolProgress): void {
    if (!this.live) return;
    if (this.status === 'waiting') this.setStatus('running');
    this.took.textContent = duration(event.elapsedMs);
    if (event.tail === undefined && event.step === undefined) return;
    const live = (this.liveView ??= this.liveSection());
    live.step.textContent = event.step ?? '';
    live.step.hidden = event.step === undefined;
    live.caption.hidden = live.tail.hidden = event.tail === undefined;
    if (event.tail === undefined) return;
    const lines = event.lines ?? 0;
    live.caption.textContent = lines === 1 ? t('Output so far (1 line)') : t`Output so far (${lines} lines)`;
    live.tail.textContent = event.tail;
    live.tail.scrollTop = live.tail.scrollHeight;
  }

  finish(end: ToolEnd): void {
    this.liveView?.root.remove();
    this.liveView = undefined;
    this.stopButton?.remove();
    this.stopButton = undefined;
    if (end.denied) return this.refused(end);
    // A command that exited non-zero did not do what was asked, though it ran: its card says so.
    const exitedBadly = end.exitCode !== undefined && end.exitCode !== 0;
    if (end.status === 'completed') this.verb.textContent = this.words.done;
    else if (end.status === 'failed') this.verb.textContent = end.exitCode !== undefined ? this.words.done : t`Could not ${this.words.ask}`;
    this.setStatus(exitedBadly && end.status === 'completed' ? 'failed' : end.status, exitedBadly ? t`failed, exit ${end.exitCode ?? ''}` : undefined);
    if (end.outcome) {
      this.outcome.textContent = end.outcome;
      this.outcome.hidden = false;
      this.element.setAttribute('aria-label', `${this.title} ${end.outcome}: ${this.state.title}`);
    }
    this.took.textContent = duration(end.durationMs);
    if (end.sandboxed) this.took.before(sandboxBadge());
    const note = [
      end.approval !== undefined ? answered(end.approval) : '',
      end.waitedMs !== undefined ? t`waited ${duration(end.waitedMs)} for approval` : '',
      end.setupMs !== undefined ? `${duration(end.setupMs)} to start` : '',
    ].filter(Boolean);
    // Under the head, so the head keeps its one line: tool, target, time, state.
    if (note.length > 0) this.head.after(el('div', 'tool-note', note.join(' · ')));
    this.appendOutput(end.output, this.status === 'failed');
    // The diff names its own file; list only the others the call changed.
    const others = end.files.filter((path) => path !== end.diff?.path);
    if (others.length > 0) this.element.append(this.filesChanged(others));
    if (end.diff) this.element.append(this.diffSection(end.diff, end.callId));
  }

  /** A call the person or the settings refused: said in their words, neutrally; what the model was told stays folded in its output. */
  private refused(end: ToolEnd): void {
    this.verb.textContent = notAllowedWords(this.words.ask, t);
    this.setStatus('denied', '');
    this.element.setAttribute('aria-label', `${t`Not allowed: ${this.words.ask} ${this.words.target}.`} ${refusedBy(end.denied!)}`.trim());
    this.head.after(el('div', 'tool-note', refusedBy(end.denied!)));
    this.appendOutput(end.output, false);
  }

  private appendOutput(text: string, open: boolean): void {
    if (!text.trim()) return;
    const lines = text.split('\n').length;
    const output = details('tool-output', lines === 1 ? t('Output (1 line)') : t`Output (${lines} lines)`, open);
    const shown = el('pre', 'tool-text', text);
    // It scrolls when long or wide: focusable, so the keyboard can scroll it too.
    shown.tabIndex = 0;
    output.root.append(shown);
    this.element.append(output.root);
  }

  /** The prompt ended (cancelled, error) before the tool reported back. */
  stop(): void {
    this.stopButton?.remove();
    this.stopButton = undefined;
    if (this.live) this.setStatus('stopped');
  }

  /** Sets the card's state; `said` replaces the state's word (a command's "failed, exit 1"). A call that did what it said shows no word: its ✓ and its words say it. */
  private setStatus(status: string, said?: string): void {
    const text = said ?? statusText(status) ?? status;
    this.element.dataset['status'] = status;
    this.state.textContent = status === 'completed' ? '' : text;
    this.state.hidden = this.state.textContent === '';
    this.state.title = text;
    if (status === 'running' || status === 'waiting') this.verb.textContent = this.words.doing;
    this.element.setAttribute('aria-label', `${this.title}: ${text}`);
  }

  private liveSection(): NonNullable<ToolCard['liveView']> {
    const root = el('section', 'tool-live');
    root.setAttribute('aria-live', 'off');
    const step = el('div', 'tool-step');
    const caption = el('div', 'tool-live-caption');
    const tail = el('pre', 'tool-text tool-tail');
    root.append(step, caption, tail);
    this.head.after(root);
    return { root, step, caption, tail };
  }

  private target(words: CallWords, kind: string): HTMLElement {
    const looksLikePath = /^[\w@./\\-]+(:\d+(-\d+)?)?$/.test(words.target);
    if ((words.file ?? FILE_KINDS.has(kind)) && looksLikePath) return fileLink(words.target, this.openFile);
    const title = el('span', 'tool-title', words.target);
    title.title = words.target;
    return title;
  }

  private traceLink(callId: string): HTMLButtonElement {
    const link = button(t('Trace'), 'trace-link', () => this.post({ type: 'show_trace', callId }), 'list-tree');
    link.setAttribute('aria-label', t`Show ${this.title} in the trace`);
    link.title = t('Show this call in the trace');
    return link;
  }

  private filesChanged(files: string[]): HTMLElement {
    const list = el('div', 'tool-files');
    list.append(el('span', 'tool-files-label', t('Changed')), ...files.map((path) => fileLink(path, this.openFile)));
    return list;
  }

  private diffSection(diff: CardDiff, callId: string): HTMLElement {
    const section = el('section', 'tool-diff');
    const head = el('div', 'diff-head');
    const open = button(t('Open diff'), 'open-diff', () => this.post({ type: 'open_diff', callId }), 'diff');
    open.setAttribute('aria-label', t`Open diff of ${diff.path}`);
    head.append(fileLink(diff.path, this.openFile), open);
    section.append(head, renderDiff(diff.unified));
    return section;
  }

}

/** Says a command ran contained, and what that means, on hover and to a screen reader. */
function sandboxBadge(): HTMLElement {
  const badge = el('span', 'tool-sandboxed', t('sandboxed'));
  badge.title = t('Ran in the sandbox: it could write only inside this workspace, with no network and no API keys.');
  badge.setAttribute('aria-label', badge.title);
  return badge;
}

/**
 * A unified diff, one line per row, coloured by its first character. The
 * file is named once by whoever shows the diff, so git's header lines are
 * left out; a hunk's @@ line becomes a quiet "line N" separator.
 */
export function renderDiff(unified: string): HTMLElement {
  const view = el('div', 'diff');
  view.setAttribute('role', 'figure');
  view.setAttribute('aria-label', t('Diff'));
  view.append(
    ...diffLines(unified).map((line) =>
      line.kind === 'hunk'
        ? el('div', 'diff-line diff-hunk', line.start !== undefined ? t`line ${line.start}` : '⋯')
        : el('div', `diff-line diff-${line.kind}`, line.text || ' '),
    ),
  );
  return view;
}
