/**
 * An approval the policy asks for, inline in the transcript under the tool
 * call it gates: what the agent wants to do (title, the command and its
 * folder, paths), the change a write would make as a diff with "Preview" in
 * VS Code's diff editor, who asks, and three buttons. While pending it sticks
 * to the bottom of the transcript, so it is never scrolled out of sight. A click
 * posts `approve` and disables the buttons; the buttons go away when the host
 * reports `approval_done` (answered here, answered elsewhere, or withdrawn by
 * a cancel), leaving a line that says what was decided.
 */
import { actorBadge, button, el, fileLink } from './elements';
import { fileOpener, type Post } from './host';
import type { ApprovalDecision, ApprovalRequest } from './protocol';
import { renderDiff } from './tool-card';

const OUTCOME: Record<ApprovalDecision | 'withdrawn', string> = {
  allow_once: 'Allowed once',
  allow_always: 'Always allowed',
  reject_once: 'Denied',
  withdrawn: 'No longer needed',
};

export class ApprovalView {
  readonly element: HTMLElement;
  private readonly actions = el('div', 'approval-actions');

  constructor(private readonly request: ApprovalRequest, private readonly post: Post) {
    this.element = el('section', `approval approval-${request.category}`);
    this.element.dataset['id'] = request.id;
    this.element.setAttribute('role', 'group');
    // Focusable so that focus can stay here while the answer is on its way (disabled buttons drop it).
    this.element.tabIndex = -1;
    this.element.setAttribute('aria-label', `Approval needed: ${request.title}`);
    const head = el('div', 'approval-head');
    head.append(el('span', 'approval-label', 'Approval needed'), actorBadge(request.actor), el('strong', 'approval-title', request.title));
    this.element.append(head);
    if (request.command) {
      this.element.append(el('pre', 'approval-command', request.command));
      if (request.cwd !== undefined && request.cwd !== '.') this.element.append(el('div', 'approval-cwd', `in ${request.cwd}`));
    }
    if (request.diff) this.element.append(this.change(request.diff));
    else if (request.paths.length > 0) this.element.append(this.paths());
    this.actions.append(
      this.choice('allow_once', 'Allow once', `Allow ${request.title} this time`),
      this.choice('allow_always', 'Always allow', `Always allow ${request.alwaysScope}`),
      this.choice('reject_once', 'Deny', `Deny ${request.title}`),
    );
    this.actions.append(el('span', 'approval-scope', `“Always” covers ${request.alwaysScope}.`));
    this.element.append(this.actions);
  }

  /** The tool call the question gates. */
  get callId(): string {
    return this.request.callId;
  }

  get pending(): boolean {
    return this.element.dataset['decision'] === undefined;
  }

  done(decision: ApprovalDecision | 'withdrawn'): void {
    this.element.dataset['decision'] = decision;
    // Answered: the tool card above shows the change once the call ends; here it would only repeat it.
    this.element.querySelector('.approval-diff')?.remove();
    this.actions.remove();
    this.element.append(el('p', 'approval-outcome', OUTCOME[decision]));
  }

  private choice(decision: ApprovalDecision, label: string, description: string): HTMLButtonElement {
    const choice = button(label, `approval-choice choice-${decision}`, () => {
      const hadFocus = this.element.contains(document.activeElement);
      for (const other of this.actions.querySelectorAll('button')) other.disabled = true;
      if (hadFocus) this.element.focus();
      this.post({ type: 'approve', id: this.request.id, decision });
    });
    choice.dataset['decision'] = decision;
    choice.title = description;
    return choice;
  }

  /** The change asked about, before anyone decides: its file, the diff, and Preview in the diff editor. */
  private change(diff: NonNullable<ApprovalRequest['diff']>): HTMLElement {
    const section = el('section', 'approval-diff');
    const head = el('div', 'diff-head');
    const preview = button('Preview', 'preview-change', () => this.post({ type: 'preview_approval', id: this.request.id }));
    preview.setAttribute('aria-label', `Preview the change to ${diff.path} in the diff editor`);
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
