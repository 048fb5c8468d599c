/**
 * The list that opens over the prompt box while the person types a `/`
 * command at the start of the prompt (and then its arguments), or an `@`
 * mention anywhere: the folder's commands and the MCP servers' prompts,
 * the values a server suggests for the argument being typed, or the
 * resources and resource templates the servers list. The view asks the host (`suggest`, a moment after the
 * typing pauses) and shows its answer only while that word is still the
 * one typed. ↑ and ↓ move, Enter or Tab puts the choice in place of the
 * word, Escape closes the list (and only the list); a click picks too.
 * The box is a combobox to screen readers, the list its listbox.
 */
import { el } from './elements';
import { t } from './l10n';
import type { Post } from './host';
import type { HostMessage, SuggestTrigger, Suggestion } from './protocol';

/** The word being completed: its trigger, what follows it, and where it sits in the text. */
export interface TypedWord {
  trigger: SuggestTrigger;
  query: string;
  start: number;
  end: number;
}

/** How long the typing pauses before the host is asked. */
const PAUSE_MS = 120;
/** The longest query the host takes (message-checks.ts); past it nothing is asked. */
const MAX_QUERY = 200;

/**
 * The word before the caret when it is a mention (`@` after a space or at
 * the start), a command (`/` opening the prompt), or an argument of that
 * command on its first line (the query is then the command and its
 * arguments so far, the word the argument being typed).
 */
export function typedWord(text: string, caret: number): TypedWord | undefined {
  const before = text.slice(0, caret);
  const found = wordBefore(before, caret);
  return found && found.query.length <= MAX_QUERY ? found : undefined;
}

function wordBefore(before: string, caret: number): TypedWord | undefined {
  const mention = /(?:^|\s)@(\S*)$/.exec(before);
  if (mention) return { trigger: '@', query: mention[1]!, start: caret - mention[1]!.length - 1, end: caret };
  const command = /^\s*\/(\S*)$/.exec(before);
  if (command) return { trigger: '/', query: command[1]!, start: caret - command[1]!.length - 1, end: caret };
  const argument = /^\s*\/(\S+)[ \t]+([^\n]*)$/.exec(before);
  if (!argument) return undefined;
  const word = /\S*$/.exec(before)![0];
  return { trigger: '/', query: `${argument[1]} ${argument[2]}`, start: caret - word.length, end: caret };
}

export class SuggestMenu {
  readonly element = el('ul', 'suggest-menu');
  private items: Suggestion[] = [];
  private active = 0;
  private word: TypedWord | undefined;
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly input: HTMLTextAreaElement,
    private readonly post: Post,
    /** The text changed by a pick. */
    private readonly changed: (text: string) => void,
  ) {
    this.element.id = 'suggestions';
    this.element.setAttribute('role', 'listbox');
    this.element.setAttribute('aria-label', t('Suggestions'));
    this.element.hidden = true;
    // A click on the list keeps the focus in the prompt box.
    this.element.addEventListener('mousedown', (event) => event.preventDefault());
    input.setAttribute('role', 'combobox');
    input.setAttribute('aria-autocomplete', 'list');
    input.setAttribute('aria-controls', this.element.id);
    input.setAttribute('aria-expanded', 'false');
  }

  get open(): boolean {
    return !this.element.hidden;
  }

  /** The text or the caret moved: ask about the word now typed (after a pause), or close. */
  update(): void {
    clearTimeout(this.timer);
    const word = typedWord(this.input.value, this.input.selectionStart ?? this.input.value.length);
    this.word = word;
    if (!word) return this.close();
    this.timer = setTimeout(() => this.post({ type: 'suggest', trigger: word.trigger, query: word.query }), PAUSE_MS);
  }

  /** The host's answer: shown when it is for the word still typed. */
  show(message: Extract<HostMessage, { type: 'suggestions' }>): void {
    const word = this.word;
    if (!word || word.trigger !== message.trigger || word.query !== message.query || document.activeElement !== this.input) return;
    if (message.items.length === 0) return this.close();
    this.items = message.items;
    this.active = 0;
    this.element.replaceChildren(...message.items.map((item, index) => this.option(item, index)));
    this.element.hidden = false;
    this.input.setAttribute('aria-expanded', 'true');
    this.highlight();
  }

  /** The prompt box's keys while the list is open; true when the list took the key. */
  onKey(event: KeyboardEvent): boolean {
    if (!this.open || event.isComposing) return false;
    switch (event.key) {
      case 'ArrowDown':
      case 'ArrowUp':
        this.active = (this.active + (event.key === 'ArrowDown' ? 1 : this.items.length - 1)) % this.items.length;
        this.highlight();
        break;
      case 'Enter':
      case 'Tab':
        if (event.shiftKey) return false;
        this.pick(this.active);
        break;
      case 'Escape':
        this.close();
        break;
      default:
        return false;
    }
    event.preventDefault();
    return true;
  }

  close(): void {
    this.element.hidden = true;
    this.element.replaceChildren();
    this.items = [];
    this.input.setAttribute('aria-expanded', 'false');
    this.input.removeAttribute('aria-activedescendant');
  }

  private option(item: Suggestion, index: number): HTMLElement {
    const option = el('li', 'suggestion');
    option.id = `suggestion-${index}`;
    option.setAttribute('role', 'option');
    option.append(el('span', 'suggestion-label', item.label));
    if (item.detail) option.append(el('span', 'suggestion-detail', item.detail));
    option.addEventListener('click', () => this.pick(index));
    return option;
  }

  private highlight(): void {
    for (const [index, option] of [...this.element.children].entries()) option.setAttribute('aria-selected', String(index === this.active));
    const current = this.element.children[this.active];
    if (!current) return;
    this.input.setAttribute('aria-activedescendant', current.id);
    current.scrollIntoView({ block: 'nearest' });
  }

  /** Puts the choice in place of the typed word, the caret after it. */
  private pick(index: number): void {
    const item = this.items[index];
    const word = this.word;
    if (!item || !word) return;
    const text = this.input.value;
    this.input.value = text.slice(0, word.start) + item.insert + text.slice(word.end);
    const caret = word.start + item.insert.length;
    this.input.setSelectionRange(caret, caret);
    this.word = undefined;
    this.close();
    this.changed(this.input.value);
    this.input.focus();
    // What comes next may have suggestions of its own: the rest of a template's mention, a command's next argument.
    this.update();
  }
}
