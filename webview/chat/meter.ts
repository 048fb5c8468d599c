/**
 * What the session has cost, as one quiet line under the input once
 * something was spent: the session's tokens and cost and how full the
 * fullest context window is. The detail (this prompt, the session, each
 * agent's window) is in its tooltip and its accessible name.
 */
import { el } from './elements';
import { t } from './l10n';
import { meterText } from './format';
import type { Meter } from './protocol';

export class MeterView {
  readonly element = el('div', 'meter');
  private readonly line = el('span', 'meter-line');
  private readonly windows = new Map<string, { used: number; window: number }>();
  private prompt: Meter | undefined;
  private session: Meter | undefined;

  constructor() {
    this.element.id = 'meter';
    this.element.append(this.line);
    this.render();
  }

  show(prompt: Meter, session: Meter): void {
    this.prompt = prompt;
    this.session = session;
    this.render();
  }

  /** An agent's context after its turn; a warning once one is nearly full. */
  showContext(agent: string, used: number, window: number): void {
    this.windows.set(agent, { used, window });
    this.render();
  }

  /** A new or reopened session: its agents' context is told again by their next turns. */
  clearContext(): void {
    this.windows.clear();
    this.render();
  }

  private render(): void {
    const spent = this.session !== undefined && this.session.inputTokens + this.session.outputTokens > 0;
    this.element.hidden = !spent && this.windows.size === 0;
    const fullest = Math.max(0, ...[...this.windows.values()].map((size) => size.used / size.window));
    const full = fullest >= 0.8;
    const parts = spent && this.session ? [meterText(this.session)] : [];
    if (this.windows.size > 0) parts.push(full ? t`context ${Math.round(fullest * 100)}%: send /compact to free it` : t`context ${Math.round(fullest * 100)}%`);
    this.line.textContent = parts.join(' · ');
    this.element.classList.toggle('meter-full', full);
    const detail = [
      ...(this.prompt ? [t`This prompt: ${meterText(this.prompt)}`] : []),
      ...(this.session ? [t`This session: ${meterText(this.session)}`] : []),
      ...[...this.windows].map(([name, size]) => t`Context of ${name}: ${thousands(size.used)} of ${thousands(size.window)} tokens (${percent(size)})`),
    ];
    this.element.title = detail.join('\n');
    this.element.setAttribute('aria-label', detail.join('. ') || t('Nothing spent yet'));
  }
}

function thousands(tokens: number): string {
  return tokens >= 1000 ? `${(tokens / 1000).toFixed(tokens >= 10_000 ? 0 : 1)}k` : String(tokens);
}

function percent({ used, window }: { used: number; window: number }): string {
  return `${Math.round((used / window) * 100)}%`;
}
