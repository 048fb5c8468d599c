/** Tokens and cost of the current prompt and of the whole session. */
import { el } from './elements';
import { meterText } from './format';
import type { Meter } from './protocol';

export class MeterView {
  readonly element = el('div', 'meter');
  private readonly prompt = el('span', 'meter-prompt');
  private readonly session = el('span', 'meter-session');

  constructor() {
    this.element.id = 'meter';
    this.element.setAttribute('aria-label', 'Token and cost meter');
    this.element.append(this.prompt, this.session);
  }

  show(prompt: Meter, session: Meter): void {
    this.prompt.textContent = `Prompt: ${meterText(prompt)}`;
    this.session.textContent = `Session: ${meterText(session)}`;
  }
}
