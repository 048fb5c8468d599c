/** Tokens and cost of the current prompt and of the whole session, and how full each agent's context window is. */
import { el } from './elements';
import { meterText } from './format';
import type { Meter } from './protocol';

export class MeterView {
  readonly element = el('div', 'meter');
  private readonly prompt = el('span', 'meter-prompt');
  private readonly session = el('span', 'meter-session');
  private readonly context = el('span', 'meter-context');
  private readonly windows = new Map<string, { used: number; window: number }>();

  constructor() {
    this.element.id = 'meter';
    this.element.setAttribute('aria-label', 'Token, cost and context meter');
    this.context.hidden = true;
    this.element.append(this.prompt, this.session, this.context);
  }

  show(prompt: Meter, session: Meter): void {
    this.prompt.textContent = `Prompt: ${meterText(prompt)}`;
    this.session.textContent = `Session: ${meterText(session)}`;
  }

  /** An agent's context after its turn: every agent of the session in one line, a warning once one is nearly full. */
  showContext(agent: string, used: number, window: number): void {
    this.windows.set(agent, { used, window });
    const parts = [...this.windows].map(([name, size]) => `${name} ${thousands(size.used)} of ${thousands(size.window)} (${percent(size)})`);
    const full = [...this.windows.values()].some((size) => size.used / size.window >= 0.8);
    this.context.hidden = false;
    this.context.textContent = `Context: ${parts.join(' · ')}${full ? ' · send /compact to free it' : ''}`;
    this.context.classList.toggle('meter-full', full);
  }

  /** A new or reopened session: its agents' context is told again by their next turns. */
  clearContext(): void {
    this.windows.clear();
    this.context.hidden = true;
  }
}

function thousands(tokens: number): string {
  return tokens >= 1000 ? `${(tokens / 1000).toFixed(tokens >= 10_000 ? 0 : 1)}k` : String(tokens);
}

function percent({ used, window }: { used: number; window: number }): string {
  return `${Math.round((used / window) * 100)}%`;
}
