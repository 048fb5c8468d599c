/**
 * The provider set-up, above the input while no provider can answer: first,
 * when VS Code already offers chat models (Copilot's, other extensions'),
 * one of those (no key needed); a key for Anthropic or OpenAI (kept in VS
 * Code's secret storage by the host); or an OpenAI-compatible server of the
 * person's (Ollama, LM Studio, vLLM): its address and, when it asks for one,
 * its key, with a Test that says "Connected" and lists its models to pick
 * from. One form that fits a 300 px side bar without scrolling inside
 * itself. Opened by the host at start when a key is missing, and when a
 * prompt finds none.
 */
import { setOptions, vsButton, vsSelect, vsTextfield, type VscodeButton } from './controls';
import { t } from './l10n';
import { el } from './elements';
import type { Post } from './host';
import type { SetupChoice, SetupNeed } from './protocol';

const choices = (): { choice: SetupChoice; label: string }[] => [
  { choice: 'vscode', label: t('A model in VS Code') },
  { choice: 'anthropic', label: 'Anthropic' },
  { choice: 'openai', label: 'OpenAI' },
  { choice: 'server', label: t('My own server') },
];

export class SetupView {
  readonly element = el('section', 'setup');
  private readonly why = el('p', 'setup-why');
  private readonly choices = el('div', 'setup-choices');
  private readonly keyPart = el('div', 'setup-part setup-key');
  private readonly serverPart = el('div', 'setup-part setup-server');
  private readonly vscodePart = el('div', 'setup-part setup-vscode');
  private readonly vscodeModelSelect = vsSelect('setup-vscode-model');
  private readonly keyInput = vsTextfield('setup-key', 'password', t('Paste the API key'));
  private readonly urlInput = vsTextfield('setup-url', 'url', 'http://localhost:11434/v1');
  private readonly serverKeyInput = vsTextfield('setup-server-key', 'password', t('Only if the server asks for one'));
  private readonly modelSelect = vsSelect('setup-model');
  private readonly useServer: VscodeButton;
  /** The model picker and "Use this", shown once a Test listed models. */
  private readonly serverPicked = el('div', 'setup-part setup-picked');
  private readonly result = el('p', 'setup-result');
  private readonly error = el('p', 'setup-error');
  private choice: SetupChoice = 'anthropic';

  constructor(private readonly post: Post) {
    this.element.hidden = true;
    this.element.setAttribute('aria-label', t('Set up a provider'));
    const head = el('div', 'setup-head');
    head.append(el('strong', 'setup-title', t('Connect Crow to a model')), vsButton(t('Later'), 'setup-later', () => this.hide(), { secondary: true }));
    this.choices.setAttribute('role', 'radiogroup');
    this.choices.setAttribute('aria-label', t('Provider'));
    for (const { choice, label } of choices()) {
      const option = vsButton(label, 'setup-choice', () => this.pick(choice), { secondary: true });
      option.dataset['choice'] = choice;
      option.setAttribute('role', 'radio');
      this.choices.append(option);
    }
    this.keyInput.autocomplete = 'off';
    this.keyInput.addEventListener('keydown', (event) => event.key === 'Enter' && this.saveKey());
    this.keyPart.append(
      label(t('API key'), this.keyInput),
      row(this.keyInput, vsButton(t('Save key'), 'setup-save', () => this.saveKey())),
      el('p', 'setup-note', t("Kept in VS Code's secret storage, never in settings or logs.")),
    );
    this.urlInput.addEventListener('keydown', (event) => event.key === 'Enter' && this.test());
    this.serverKeyInput.autocomplete = 'off';
    this.serverKeyInput.addEventListener('keydown', (event) => event.key === 'Enter' && this.test());
    this.modelSelect.id = 'setup-model';
    this.useServer = vsButton(t('Use this'), 'setup-use', () => this.use());
    this.result.setAttribute('role', 'status');
    this.serverPicked.hidden = true;
    this.serverPicked.append(label(t('Model'), this.modelSelect), row(this.modelSelect, this.useServer));
    this.serverPart.append(
      label(t('Server address (Ollama, LM Studio, vLLM…)'), this.urlInput),
      this.urlInput,
      label(t('API key'), this.serverKeyInput),
      row(this.serverKeyInput, vsButton(t('Test'), 'setup-test', () => this.test(), { secondary: true })),
      this.result,
      this.serverPicked,
    );
    this.vscodeModelSelect.id = 'setup-vscode-model';
    this.vscodePart.append(
      label(t('Model'), this.vscodeModelSelect),
      row(this.vscodeModelSelect, vsButton(t('Use this'), 'setup-use-vscode', () => this.useVscodeModel())),
      el('p', 'setup-note', t('No key needed: VS Code asks once whether Crow may use it.')),
    );
    this.error.setAttribute('role', 'alert');
    this.element.append(head, this.why, this.choices, this.vscodePart, this.keyPart, this.serverPart, this.error);
    this.offerVscodeModels([]);
    this.pick('anthropic');
  }

  /** Shows the set-up for what is missing; none: a provider answers now, so it goes. */
  show(need: SetupNeed | undefined): void {
    if (need === undefined) return this.hide();
    const models = need.vscodeModels ?? [];
    this.offerVscodeModels(models);
    this.why.textContent = models.length > 0 ? t`Crow has no key for ${need.provider} yet. Use a model VS Code already has, add a key, or use a server of your own.` : t`Crow has no key for ${need.provider} yet. Add one, or use a server of your own.`;
    this.why.title = t`The key ${need.provider} reads: ${need.variable}`;
    if (models.length > 0) this.pick('vscode');
    else if (need.provider === 'openai' || need.provider === 'anthropic') this.pick(need.provider);
    this.open();
  }

  /** The VS Code choice is there only while VS Code offers models. */
  private offerVscodeModels(models: readonly { id: string; label: string }[]): void {
    setOptions(this.vscodeModelSelect, models.map((model) => ({ value: model.id, label: model.label })), models[0]?.id);
    const option = this.choices.querySelector<VscodeButton>('.setup-choice[data-choice="vscode"]');
    if (option) option.hidden = models.length === 0;
    if (models.length === 0 && this.choice === 'vscode') this.pick('anthropic');
  }

  /** Opens it from an error card: the key was missing when a prompt was sent. */
  open(): void {
    this.element.hidden = false;
    this.error.textContent = '';
    (this.choice === 'server' ? this.urlInput : this.choice === 'vscode' ? this.vscodeModelSelect : this.keyInput).focus();
  }

  /** The server's answer to Test: what it said ("Connected: …"), and its models to pick from, in sight. */
  tested(answer: { url: string; ok: boolean; message: string; models: string[] }): void {
    this.result.textContent = answer.message;
    this.result.dataset['ok'] = String(answer.ok);
    setOptions(this.modelSelect, answer.models.map((model) => ({ value: model })), answer.models[0]);
    this.serverPicked.hidden = answer.models.length === 0;
    if (answer.models.length > 0) this.useServer.scrollIntoView({ block: 'nearest' });
  }

  failed(message: string): void {
    this.error.textContent = message;
  }

  private hide(): void {
    this.element.hidden = true;
  }

  private pick(choice: SetupChoice): void {
    this.choice = choice;
    for (const option of this.choices.querySelectorAll<VscodeButton>('.setup-choice')) {
      const checked = option.dataset['choice'] === choice;
      option.setAttribute('aria-checked', String(checked));
      // The chosen provider in the primary colour, the others grey.
      option.secondary = !checked;
    }
    this.keyPart.hidden = choice === 'server' || choice === 'vscode';
    this.serverPart.hidden = choice !== 'server';
    this.vscodePart.hidden = choice !== 'vscode';
    this.error.textContent = '';
  }

  private saveKey(): void {
    const key = this.keyInput.value.trim();
    if (key === '') return this.failed(t('Paste the key first.'));
    if (this.choice === 'server' || this.choice === 'vscode') return;
    this.post({ type: 'setup_key', provider: this.choice, key });
    this.keyInput.value = '';
  }

  private test(): void {
    const url = this.urlInput.value.trim();
    if (url === '') return this.failed(t("Type the server's address first, e.g. http://localhost:11434/v1."));
    this.error.textContent = '';
    this.result.textContent = t`Asking ${url} for its models\u2026`;
    delete this.result.dataset['ok'];
    const key = this.serverKeyInput.value.trim();
    this.post({ type: 'test_server', url, ...(key ? { key } : {}) });
  }

  private useVscodeModel(): void {
    const model = this.vscodeModelSelect.value;
    if (model === '') return this.failed(t('Pick one of the models VS Code offers.'));
    this.post({ type: 'use_vscode_model', model });
  }

  private use(): void {
    const model = this.modelSelect.value;
    if (model === '') return this.failed(t('Test the server, then pick one of its models.'));
    const key = this.serverKeyInput.value.trim();
    this.post({ type: 'use_server', url: this.urlInput.value.trim(), model, ...(key ? { key } : {}) });
    this.serverKeyInput.value = '';
  }
}

/** A field and its button side by side (they wrap under each other only where the row has no room). */
function row(...children: HTMLElement[]): HTMLElement {
  const element = el('div', 'setup-row');
  element.append(...children);
  return element;
}

function label(text: string, control: HTMLElement & { label?: string }): HTMLLabelElement {
  const element = el('label', 'setup-label', text);
  element.htmlFor = control.id;
  // The text box is inside the component's shadow root, where the label cannot point: it gets the name itself.
  control.label = text;
  return element;
}
