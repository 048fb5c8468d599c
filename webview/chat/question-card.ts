/**
 * A question an MCP server asks while a prompt runs, as a card at the end
 * of the transcript: who asks and their message, then either the form
 * (each question labelled, its description under it, a control for its
 * kind: text of a format, a number within bounds, yes/no, one choice,
 * several) or the page to open, its domain first and the whole address
 * under it. Send (or Open page), Decline and Dismiss answer it; the host
 * checks a form's answers and, when they do not fit, the card says why and
 * keeps what was typed. Once answered or withdrawn, a line says which.
 */
import { button, el } from './elements';
import { t } from './l10n';
import type { Post } from './host';
import type { ElicitField, ElicitValue, QuestionAction, ServerQuestion } from './protocol';

function outcomeWords(outcome: QuestionAction | 'withdrawn'): string {
  switch (outcome) {
    case 'accept':
      return t('Answered');
    case 'decline':
      return t('Declined');
    case 'cancel':
      return t('Dismissed');
    case 'withdrawn':
      return t('No longer asked');
  }
}

/** The input type of a text question's format. */
const TEXT_INPUT: Record<NonNullable<Extract<ElicitField, { kind: 'text' }>['format']> | 'plain', string> = {
  plain: 'text',
  email: 'email',
  uri: 'url',
  date: 'date',
  'date-time': 'datetime-local',
};

/** One question's control, and how to read its answer (undefined: not answered). */
interface FieldControl {
  element: HTMLElement;
  read(): ElicitValue | undefined;
}

/** The question cards of the shown session, by id. */
export class QuestionCards {
  private readonly cards = new Map<string, QuestionCard>();

  constructor(
    private readonly post: Post,
    /** Puts a new card at the end of the transcript, in sight. */
    private readonly place: (card: HTMLElement) => void,
    /** The focus was on a card that has just lost its buttons. */
    private readonly onFocusLost: () => void,
  ) {}

  show(question: ServerQuestion): void {
    if (this.cards.has(question.id)) return;
    const card = new QuestionCard(question, this.post);
    this.cards.set(question.id, card);
    this.place(card.element);
  }

  /** The card `id`, while it is shown. */
  get(id: string): QuestionCard | undefined {
    return this.cards.get(id);
  }

  /** Answered or withdrawn: the card keeps a line saying which, where it was asked. */
  done(id: string, outcome: QuestionAction | 'withdrawn'): void {
    const card = this.cards.get(id);
    if (!card?.pending) return;
    const hadFocus = card.element.contains(document.activeElement);
    card.done(outcome);
    if (hadFocus) this.onFocusLost();
  }

  clear(): void {
    this.cards.clear();
  }
}

export class QuestionCard {
  readonly element: HTMLElement;
  private readonly actions = el('div', 'question-actions');
  private readonly problem = el('p', 'question-problem');
  private readonly controls = new Map<string, FieldControl>();

  constructor(private readonly question: ServerQuestion, private readonly post: Post) {
    this.element = el('section', `question${question.page ? ' question-page' : ''}`);
    this.element.dataset['id'] = question.id;
    this.element.setAttribute('role', 'group');
    this.element.tabIndex = -1;
    const asker = t`MCP server "${question.server}"`;
    this.element.setAttribute('aria-label', t`${asker} asks: ${question.message}`);
    const head = el('div', 'question-head');
    head.append(el('span', 'question-label', question.page ? t('Page to open') : t('Question')), el('strong', 'question-server', asker));
    this.element.append(head, el('p', 'question-message', question.message));
    this.problem.setAttribute('role', 'alert');
    this.problem.hidden = true;
    if (question.page) this.showPage(question.page);
    else this.showForm(question.fields ?? []);
  }

  get pending(): boolean {
    return this.element.dataset['outcome'] === undefined;
  }

  done(outcome: QuestionAction | 'withdrawn'): void {
    this.element.dataset['outcome'] = outcome;
    this.element.querySelector('form')?.remove();
    this.element.querySelector('.question-url')?.remove();
    this.actions.remove();
    this.problem.remove();
    const said = this.question.page && outcome === 'accept' ? t('Opened in the browser') : outcomeWords(outcome);
    this.element.append(el('p', 'question-outcome', said));
  }

  /** The host did not take the answers: say why, give the buttons back, keep what was typed. */
  invalid(problem: string): void {
    this.problem.textContent = problem;
    this.problem.hidden = false;
    this.enable(true);
  }

  private showPage(page: NonNullable<ServerQuestion['page']>): void {
    const where = el('p', 'question-domain', `${t('Opens a page on')} `);
    where.append(el('strong', undefined, page.domain));
    const url = el('code', 'question-url', page.url);
    this.actions.append(this.answer('accept', t('Open page'), t`Open ${page.domain} in the browser`, 'link-external'), ...this.refusals());
    this.element.append(where, url, this.problem, this.actions);
  }

  private showForm(fields: ElicitField[]): void {
    const form = el('form', 'question-form');
    form.noValidate = true;
    for (const field of fields) {
      const control = fieldControl(field, `${this.question.id}-${this.controls.size}`);
      this.controls.set(field.name, control);
      form.append(control.element);
    }
    const send = this.answer('accept', t('Send'), t('Send these answers to the server'), 'check');
    send.type = 'submit';
    // Enter in a text box sends, as a form does; the button's click would send a second time.
    send.addEventListener('click', (event) => event.preventDefault(), { capture: true });
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      this.send('accept');
    });
    this.actions.append(send, ...this.refusals());
    form.append(this.problem, this.actions);
    this.element.append(form);
  }

  private refusals(): HTMLButtonElement[] {
    return [this.answer('decline', t('Decline'), t('Tell the server you decline'), 'close'), this.answer('cancel', t('Dismiss'), t('Dismiss the question without an answer'))];
  }

  private answer(action: QuestionAction, label: string, title: string, icon?: string): HTMLButtonElement {
    const choice = button(label, `question-choice choice-${action}`, () => this.send(action), icon);
    choice.dataset['action'] = action;
    choice.title = title;
    return choice;
  }

  private send(action: QuestionAction): void {
    if (!this.pending || this.actions.querySelector('button:disabled')) return;
    this.problem.hidden = true;
    this.enable(false);
    // Focus stays in the card while the answer travels (disabled buttons drop it).
    this.element.focus();
    const content = action === 'accept' && !this.question.page ? this.content() : undefined;
    this.post({ type: 'answer_question', id: this.question.id, action, ...(content ? { content } : {}) });
  }

  private content(): Record<string, ElicitValue> {
    const content: Record<string, ElicitValue> = {};
    for (const [name, control] of this.controls) {
      const value = control.read();
      if (value !== undefined) content[name] = value;
    }
    return content;
  }

  private enable(enabled: boolean): void {
    for (const choice of this.actions.querySelectorAll('button')) choice.disabled = !enabled;
  }
}

/** The control of one question, labelled with its title, its description under it. */
function fieldControl(field: ElicitField, id: string): FieldControl {
  const wrap = el('div', `question-field field-${field.kind}`);
  const label = el('label', 'question-field-label', field.title);
  if (!field.required) label.append(el('span', 'question-optional', ` ${t('(optional)')}`));
  const description = field.description ? el('p', 'question-field-description', field.description) : undefined;
  if (description) description.id = `${id}-description`;
  const { control, read } = controlOf(field, id);
  if (description) control.setAttribute('aria-describedby', description.id);
  if (field.kind === 'boolean') {
    // A check box reads with its label after it.
    label.htmlFor = id;
    const line = el('div', 'question-check');
    line.append(control, label);
    wrap.append(line);
  } else if (field.kind === 'choices') {
    control.setAttribute('aria-label', field.title);
    wrap.append(label, control);
  } else {
    label.htmlFor = id;
    wrap.append(label, control);
  }
  if (description) wrap.append(description);
  return { element: wrap, read };
}

function controlOf(field: ElicitField, id: string): { control: HTMLElement; read: () => ElicitValue | undefined } {
  switch (field.kind) {
    case 'text': {
      const input = el('input', 'question-input');
      input.id = id;
      input.type = TEXT_INPUT[field.format ?? 'plain'];
      input.required = field.required;
      if (field.maxLength !== undefined) input.maxLength = field.maxLength;
      if (field.default !== undefined) input.value = field.default;
      return { control: input, read: () => (input.value === '' ? undefined : input.value) };
    }
    case 'number': {
      const input = el('input', 'question-input');
      input.id = id;
      input.type = 'number';
      input.required = field.required;
      input.step = field.integer ? '1' : 'any';
      if (field.minimum !== undefined) input.min = String(field.minimum);
      if (field.maximum !== undefined) input.max = String(field.maximum);
      if (field.default !== undefined) input.value = String(field.default);
      // A number box that holds no number (empty, or typed text it cannot read) is no answer; the host says if one was needed.
      return { control: input, read: () => (input.value === '' || Number.isNaN(input.valueAsNumber) ? undefined : input.valueAsNumber) };
    }
    case 'boolean': {
      const input = el('input', 'question-checkbox');
      input.id = id;
      input.type = 'checkbox';
      input.checked = field.default ?? false;
      return { control: input, read: () => input.checked };
    }
    case 'choice': {
      const select = el('select', 'question-select');
      select.id = id;
      select.required = field.required;
      // Nothing chosen yet is a choice of its own, unless a default stands.
      if (field.default === undefined) select.append(option('', field.required ? t('Choose…') : t('(none)')));
      for (const { value, label } of field.options) select.append(option(value, label));
      select.value = field.default ?? '';
      return { control: select, read: () => (select.value === '' ? undefined : select.value) };
    }
    case 'choices': {
      const group = el('div', 'question-choices');
      group.id = id;
      group.setAttribute('role', 'group');
      const boxes = field.options.map(({ value, label }, index) => {
        const box = el('input', 'question-checkbox');
        box.type = 'checkbox';
        box.id = `${id}-${index}`;
        box.value = value;
        box.checked = field.default?.includes(value) ?? false;
        const name = el('label', undefined, label);
        name.htmlFor = box.id;
        const line = el('div', 'question-check');
        line.append(box, name);
        group.append(line);
        return box;
      });
      return { control: group, read: () => boxes.filter((box) => box.checked).map((box) => box.value) };
    }
  }
}

function option(value: string, label: string): HTMLOptionElement {
  const element = el('option', undefined, label);
  element.value = value;
  return element;
}
