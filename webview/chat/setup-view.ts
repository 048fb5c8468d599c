/**
 * The provider set-up, above the input while no provider can answer: a key
 * for Anthropic or OpenAI (kept in VS Code's secret storage by the host),
 * or an OpenAI-compatible server of the person's (Ollama, LM Studio, vLLM)
 * with a Test that lists its models. Opened by the host at start when a key
 * is missing, and from an error card that says so.
 */
import { button, el } from './elements';
import type { Post } from './host';
import type { SetupChoice, SetupNeed } from './protocol';

const CHOICES: { choice: SetupChoice; label: string }[] = [
  { choice: 'anthropic', label: 'Anthropic' },
  { choice: 'openai', label: 'OpenAI' },
  { choice: 'server', label: 'Local server' },
];

export class SetupView {
  readonly element = el('section', 'setup');
  private readonly why = el('p', 'setup-why');
  private readonly choices = el('div', 'setup-choices');
  private readonly keyPart = el('div', 'setup-part setup-key');
  private readonly serverPart = el('div', 'setup-part setup-server');
  private readonly keyInput = el('input', 'setup-input');
  private readonly urlInput = el('input', 'setup-input');
  private readonly modelSelect = el('select', 'setup-model');
  private readonly useServer: HTMLButtonElement;
  private readonly result = el('p', 'setup-result');
  private readonly error = el('p', 'setup-error');
  private choice: SetupChoice = 'anthropic';

  constructor(private readonly post: Post) {
    this.element.hidden = true;
    this.element.setAttribute('aria-label', 'Set up a provider');
    const head = el('div', 'setup-head');
    head.append(el('strong', 'setup-title', 'Connect Crow to a model'), button('Later', 'setup-later secondary-action', () => this.hide()));
    this.choices.setAttribute('role', 'radiogroup');
    this.choices.setAttribute('aria-label', 'Provider');
    for (const { choice, label } of CHOICES) {
      const option = button(label, 'setup-choice', () => this.pick(choice));
      option.dataset['choice'] = choice;
      option.setAttribute('role', 'radio');
      this.choices.append(option);
    }
    this.keyInput.type = 'password';
    this.keyInput.id = 'setup-key';
    this.keyInput.placeholder = 'Paste the API key';
    this.keyInput.autocomplete = 'off';
    this.keyInput.addEventListener('keydown', (event) => event.key === 'Enter' && this.saveKey());
    this.keyPart.append(
      label('API key', this.keyInput),
      this.keyInput,
      button('Save key', 'setup-save', () => this.saveKey()),
      el('p', 'setup-note', "Kept in VS Code's secret storage: never in settings, logs or traces."),
    );
    this.urlInput.id = 'setup-url';
    this.urlInput.type = 'url';
    this.urlInput.placeholder = 'http://localhost:11434/v1';
    this.urlInput.addEventListener('keydown', (event) => event.key === 'Enter' && this.test());
    this.modelSelect.id = 'setup-model';
    this.modelSelect.setAttribute('aria-label', 'Model');
    this.modelSelect.hidden = true;
    this.useServer = button('Use this server', 'setup-use', () => this.use());
    this.useServer.hidden = true;
    this.serverPart.append(
      label('Server address (Ollama, LM Studio, vLLM, llama.cpp)', this.urlInput),
      this.urlInput,
      button('Test', 'setup-test', () => this.test()),
      this.result,
      this.modelSelect,
      this.useServer,
    );
    this.error.setAttribute('role', 'alert');
    this.element.append(head, this.why, this.choices, this.keyPart, this.serverPart, this.error);
    this.pick('anthropic');
  }

  /** Shows the set-up for what is missing; none: a provider answers now, so it goes. */
  show(need: SetupNeed | undefined): void {
    if (need === undefined) return this.hide();
    this.why.textContent = `Crow has no key for ${need.provider} yet (${need.variable}). Add one, or use a model server of your own.`;
    if (need.provider === 'openai' || need.provider === 'anthropic') this.pick(need.provider);
    this.open();
  }

  /** Opens it from an error card: the key was missing when a prompt was sent. */
  open(): void {
    this.element.hidden = false;
    this.error.textContent = '';
    (this.choice === 'server' ? this.urlInput : this.keyInput).focus();
  }

  /** The server's answer to Test: what it said, and its models to pick from. */
  tested(answer: { url: string; ok: boolean; message: string; models: string[] }): void {
    this.result.textContent = answer.message;
    this.result.dataset['ok'] = String(answer.ok);
    this.modelSelect.replaceChildren(...answer.models.map((model) => el('option', undefined, model)));
    this.modelSelect.hidden = answer.models.length === 0;
    this.useServer.hidden = answer.models.length === 0;
  }

  failed(message: string): void {
    this.error.textContent = message;
  }

  private hide(): void {
    this.element.hidden = true;
  }

  private pick(choice: SetupChoice): void {
    this.choice = choice;
    for (const option of this.choices.querySelectorAll<HTMLButtonElement>('.setup-choice')) {
      option.setAttribute('aria-checked', String(option.dataset['choice'] === choice));
    }
    this.keyPart.hidden = choice === 'server';
    this.serverPart.hidden = choice !== 'server';
    this.error.textContent = '';
  }

  private saveKey(): void {
    const key = this.keyInput.value.trim();
    if (key === '') return this.failed('Paste the key first.');
    if (this.choice === 'server') return;
    this.post({ type: 'setup_key', provider: this.choice, key });
    this.keyInput.value = '';
  }

  private test(): void {
    const url = this.urlInput.value.trim();
    if (url === '') return this.failed("Type the server's address first, e.g. http://localhost:11434/v1.");
    this.error.textContent = '';
    this.result.textContent = `Asking ${url} for its models…`;
    delete this.result.dataset['ok'];
    this.post({ type: 'test_server', url });
  }

  private use(): void {
    const model = this.modelSelect.value;
    if (model === '') return this.failed('Test the server, then pick one of its models.');
    this.post({ type: 'use_server', url: this.urlInput.value.trim(), model });
  }
}

function label(text: string, control: HTMLElement): HTMLLabelElement {
  const element = el('label', 'setup-label', text);
  element.htmlFor = control.id;
  return element;
}
