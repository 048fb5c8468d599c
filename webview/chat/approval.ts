/**
 * An approval the policy asks for, inline in the transcript under the tool
 * call it gates: what the agent wants to do (title, the command and its
 * folder, paths), the change a write would make as a diff with "Preview" in
 * VS Code's diff editor, who asks, and three buttons. An agent's own request
 * for approval shows its question and details, with Approve and Deny. Where
 * the call's arguments may be changed, Edit opens them: a file change in VS
 * Code's diff editor, its proposed side editable (the card then says so,
 * its diff follows the person's text, and "Allow with my changes" allows
 * what the editor holds); a command's command line alone in a text box
 * ("Run this command"); other calls' arguments as JSON ("Allow with these
 * arguments", seed 002's Modify). An edit the host does not accept is shown
 * with what is wrong, the text kept for another try. "Deny and say why…" sends the person's reason with the no: the agent
 * reads it as the denial. While pending it sticks to the bottom of the transcript, so it is
 * never scrolled out of sight. A click posts `approve` (or `approve_edited`)
 * and disables the buttons; the buttons go away when the host reports
 * `approval_done` (answered here, answered elsewhere, or withdrawn by a
 * cancel), leaving a line that says what was decided.
 */
import { actorBadge, button, el, fileLink } from './elements';
import { fileOpener, type Post } from './host';
import { t } from './l10n';
import type { ApprovalDecision, ApprovalOutcome, ApprovalRequest } from './protocol';
import { renderDiff } from './tool-card';

/** The codicon of each answer: VS Code's check, check-all and close. */
const DECISION_ICON: Record<ApprovalDecision, string> = { allow_once: 'check', allow_always: 'check-all', reject_once: 'close' };

/** What an answered approval says it came to (a function: the words are read when drawn, after the page's bundle). */
function outcome(decision: ApprovalOutcome): string {
  switch (decision) {
    case 'allow_once':
      return t('Allowed once');
    case 'allow_always':
      return t('Always allowed');
    case 'allow_edited':
      return t('Allowed with your changes');
    case 'reject_once':
      return t('Denied');
    case 'withdrawn':
      return t('No longer needed');
  }
}

export class ApprovalView {
  readonly element: HTMLElement;
  private readonly actions = el('div', 'approval-actions');
  /** The arguments being edited, once Edit was chosen; no text box when the change is edited in the diff editor. */
  private editor: { section: HTMLElement; text?: HTMLTextAreaElement; problem: HTMLElement; allow: HTMLButtonElement } | undefined;
  /** The box for the reason of a denial, once "Deny and say why…" was chosen. */
  private reason: HTMLElement | undefined;

  constructor(private readonly request: ApprovalRequest, private readonly post: Post) {
    this.element = el('section', `approval approval-${request.category}${request.question ? ' approval-question' : ''}`);
    this.element.dataset['id'] = request.id;
    this.element.setAttribute('role', 'group');
    // Focusable so that focus can stay here while the answer is on its way (disabled buttons drop it).
    this.element.tabIndex = -1;
    const label = request.question ? t('Approval requested') : t('Approval needed');
    this.element.setAttribute('aria-label', `${label}: ${request.title}`);
    const head = el('div', 'approval-head');
    head.append(el('span', 'approval-label', label), actorBadge(request.actor), el('strong', 'approval-title', request.title));
    this.element.append(head);
    if (request.question?.details) this.element.append(el('p', 'approval-details', request.question.details));
    if (request.command) {
      this.element.append(el('pre', 'approval-command', request.command));
      if (request.cwd !== undefined && request.cwd !== '.') this.element.append(el('div', 'approval-cwd', t`in ${request.cwd}`));
    }
    if (request.diff) this.element.append(this.change(request.diff));
    else if (request.paths.length > 0) this.element.append(this.paths());
    if (request.question) {
      this.actions.append(this.choice('allow_once', t('Approve'), t`Approve: ${request.title}`), this.choice('reject_once', t('Deny'), t`Deny: ${request.title}`));
      if (request.arguments !== undefined) this.actions.append(this.editButton(t('Edit…'), t('Change the question, then approve it as changed')));
    } else {
      this.actions.append(
        this.choice('allow_once', t('Allow once'), t`Allow ${request.title} this time`),
        this.choice('allow_always', t('Always'), t`Always allow ${request.alwaysScope}`),
        this.choice('reject_once', t('Deny'), t`Deny ${request.title}`),
      );
      if (request.editInEditor && request.diff) this.actions.append(this.editButton(t('Edit…'), t('Edit the change in the diff editor, then allow it with your changes'), () => this.post({ type: 'edit_change', id: request.id })));
      else if (request.arguments !== undefined) this.actions.append(this.editButton(t('Edit…'), t("Edit the call's arguments, then allow it once")));
    }
    this.element.append(this.actions);
    // Under the buttons, so they keep one line in a narrow sidebar.
    const keys = request.question ? t('Keys: y approve · n deny') : t('Keys: y allow once · a always · n deny');
    const scope = request.question ? keys : `${t`\u201cAlways\u201d covers ${request.alwaysScope}.`} ${keys}`;
    const scopeLine = el('p', 'approval-scope', `${scope} `);
    const why = button(t('Deny and say why…'), 'approval-deny-why', () => this.openReason());
    why.title = t('Deny it and tell the agent why, in your words');
    scopeLine.append(why);
    this.element.append(scopeLine);
    this.element.addEventListener('keydown', (event) => this.onKey(event));
  }

  /** y, a and n answer the approval the focus is in, as the terminal's prompt does (not while typing in the editor). */
  private onKey(event: KeyboardEvent): void {
    if (!this.pending || event.ctrlKey || event.altKey || event.metaKey || (event.target as HTMLElement | null)?.tagName === 'TEXTAREA') return;
    const decision: ApprovalDecision | undefined =
      event.key === 'y' ? 'allow_once' : event.key === 'n' ? 'reject_once' : event.key === 'a' && !this.request.question ? 'allow_always' : undefined;
    if (decision === undefined) return;
    const choice = this.actions.querySelector<HTMLButtonElement>(`button[data-decision="${decision}"]`);
    if (!choice || choice.disabled || choice.hidden) return;
    event.preventDefault();
    choice.click();
  }

  /** The tool call the question gates. */
  get callId(): string {
    return this.request.callId;
  }

  get pending(): boolean {
    return this.element.dataset['decision'] === undefined;
  }

  done(decision: ApprovalOutcome): void {
    this.element.dataset['decision'] = decision;
    // Answered: the tool card above shows the change once the call ends; here it would only repeat it.
    this.element.querySelector('.approval-diff')?.remove();
    this.editor?.section.remove();
    this.reason?.remove();
    this.actions.remove();
    this.element.querySelector('.approval-scope')?.remove();
    this.element.append(el('p', 'approval-outcome', outcome(decision)));
  }

  /** The host refused the edit (or to open the editor): say why, give the buttons back, keep the text as typed. */
  invalid(problem: string): void {
    const line = this.editor?.problem ?? this.element.querySelector<HTMLElement>('.approval-problem') ?? this.problemLine();
    if (!line.isConnected) this.element.insertBefore(line, this.actions);
    line.textContent = problem;
    line.hidden = false;
    this.enable(true);
    (this.editor?.text ?? this.editor?.allow)?.focus();
  }

  /**
   * The change is open in the diff editor: the card says so, offers "Allow
   * with my changes" in place of Allow once and Always, and shows `diff`,
   * the change as the person's text now makes it.
   */
  editing(diff: NonNullable<ApprovalRequest['diff']>): void {
    if (!this.pending) return;
    const change = this.change(diff);
    const shown = this.element.querySelector('.approval-diff');
    if (shown) shown.replaceWith(change);
    else this.element.insertBefore(change, this.actions);
    if (this.editor) return;
    for (const answer of this.actions.querySelectorAll<HTMLButtonElement>('[data-decision="allow_once"], [data-decision="allow_always"], [data-decision="edit"]')) answer.hidden = true;
    // A refusal shown before the editor opened is old news.
    this.element.querySelector('.approval-problem')?.remove();
    // Only n still answers from the keyboard: y and a would allow the model's version.
    const keys = this.element.querySelector('.approval-scope')?.firstChild;
    if (keys) keys.textContent = `${t('Keys: n deny')} `;
    const section = el('section', 'approval-edit approval-editing');
    const [before, after] = t('Editing in the editor: change the right side of {0}, then allow it here or with ✓ in the editor\'s title bar.').split('{0}');
    const note = el('p', 'approval-editing-note', before ?? '');
    note.append(el('code', undefined, diff.path), after ?? '');
    const problem = this.problemLine();
    const allow = button(t('Allow with my changes'), 'approval-choice choice-allow_edited', () => this.send({ type: 'approve_change', id: this.request.id }), 'check');
    allow.dataset['decision'] = 'allow_edited';
    allow.title = t('Allow the change as the diff editor holds it now');
    const show = button(t('Show editor'), 'approval-choice choice-show-editor', () => this.post({ type: 'edit_change', id: this.request.id }), 'go-to-file');
    show.title = t('Bring the diff editor with your version to the front');
    const row = el('div', 'approval-edit-actions');
    row.append(allow, show);
    section.append(note, problem, row);
    this.editor = { section, problem, allow };
    this.element.insertBefore(section, this.actions);
  }

  private problemLine(): HTMLElement {
    const problem = el('p', 'approval-problem');
    problem.hidden = true;
    problem.setAttribute('role', 'alert');
    return problem;
  }

  private choice(decision: ApprovalDecision, label: string, description: string): HTMLButtonElement {
    const choice = button(label, `approval-choice choice-${decision}`, () => this.send({ type: 'approve', id: this.request.id, decision }), DECISION_ICON[decision]);
    choice.dataset['decision'] = decision;
    choice.title = description;
    return choice;
  }

  /** Posts an answer, the buttons disabled until the host reports on it. */
  private send(message: Parameters<Post>[0]): void {
    const hadFocus = this.element.contains(document.activeElement);
    this.enable(false);
    if (hadFocus) this.element.focus();
    this.post(message);
  }

  private enable(enabled: boolean): void {
    for (const other of this.element.querySelectorAll<HTMLButtonElement>('.approval-actions button, .approval-edit button, .approval-reason button, .approval-deny-why')) other.disabled = !enabled;
    if (this.editor?.text) this.editor.text.readOnly = !enabled;
  }

  private editButton(label: string, description: string, open = (): void => this.openEditor()): HTMLButtonElement {
    const edit = button(label, 'approval-choice choice-edit', open, 'edit');
    edit.dataset['decision'] = 'edit';
    edit.title = description;
    return edit;
  }

  /**
   * Shows what may be changed, with the button that allows the call as
   * edited: a command's command line alone, else the arguments as JSON.
   */
  private openEditor(): void {
    if (this.editor) {
      this.editor.text?.focus();
      return;
    }
    const section = el('section', 'approval-edit');
    const text = el('textarea', 'approval-arguments');
    const command = commandArguments(this.request);
    text.value = command ? command.command : (this.request.arguments ?? '{}');
    text.spellcheck = false;
    text.rows = Math.min(16, Math.max(command ? 2 : 3, text.value.split('\n').length + 1));
    text.setAttribute('aria-label', command ? t('The command line') : this.request.question ? t('The question, as JSON') : t("The call's arguments, as JSON"));
    if (command) text.classList.add('approval-command-line');
    const problem = this.problemLine();
    const label = command ? t('Run this command') : this.request.question ? t('Approve as changed') : t('Allow with these arguments');
    const allow = button(label, 'approval-choice choice-allow_edited', () =>
      this.send({ type: 'approve_edited', id: this.request.id, arguments: command ? JSON.stringify({ ...command.all, command: text.value }) : text.value }),
    );
    allow.dataset['decision'] = 'allow_edited';
    section.append(text, problem, allow);
    this.editor = { section, text, problem, allow };
    this.element.insertBefore(section, this.actions);
    text.focus();
  }

  /** A box for why the person denies it, with the button that denies it so. */
  private openReason(): void {
    const open = this.reason?.querySelector('textarea');
    if (open) {
      open.focus();
      return;
    }
    const section = el('section', 'approval-reason');
    const text = el('textarea', 'approval-reason-text');
    text.rows = 2;
    text.placeholder = t('Why not, or what to do instead');
    text.setAttribute('aria-label', t('Why you deny it (the agent reads this)'));
    const deny = button(t('Deny with this reason'), 'approval-choice choice-deny_reason', () => this.send({ type: 'deny', id: this.request.id, reason: text.value }), 'close');
    deny.dataset['decision'] = 'deny_reason';
    section.append(text, deny);
    this.reason = section;
    this.element.insertBefore(section, this.actions);
    text.focus();
  }

  /** The change asked about, before anyone decides: its file, the diff, and Preview in the diff editor. */
  private change(diff: NonNullable<ApprovalRequest['diff']>): HTMLElement {
    const section = el('section', 'approval-diff');
    const head = el('div', 'diff-head');
    const preview = button(t('Preview'), 'preview-change', () => this.post({ type: 'preview_approval', id: this.request.id }), 'git-compare');
    preview.setAttribute('aria-label', t`Preview the change to ${diff.path} in the diff editor`);
    head.append(fileLink(diff.path, fileOpener(this.post)), preview);
    section.append(head, renderDiff(diff.unified));
    return section;
  }

  private paths(): HTMLElement {
    const list = el('div', 'approval-paths');
    list.append(...this.request.paths.map((path) => fileLink(path, fileOpener(this.post))));
    return list;
  }
}

/** A command's arguments, when the call is a command whose line may be edited on its own; undefined otherwise. */
function commandArguments(request: ApprovalRequest): { command: string; all: Record<string, unknown> } | undefined {
  if (request.command === undefined || request.arguments === undefined) return undefined;
  try {
    const all: unknown = JSON.parse(request.arguments);
    if (typeof all !== 'object' || all === null || Array.isArray(all)) return undefined;
    const command = (all as Record<string, unknown>)['command'];
    return typeof command === 'string' ? { command, all: all as Record<string, unknown> } : undefined;
  } catch {
    return undefined;
  }
}
