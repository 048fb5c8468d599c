/**
 * The top bar (the session's title; New Session and Show Trace are the
 * view's title-bar actions in package.json)
 * and the pickers the composer shows in its row: the agent (an ACP agent is
 * an autonomy level), one model per role, and the thinking level. Pickers
 * are updated in place so a focused one keeps focus when the host confirms
 * a choice.
 */
import { setOptions, vsSelect, type VscodeSingleSelect } from './controls';
import { t } from './l10n';
import { el } from './elements';
import type { Post } from './host';
import type { AgentChoice, RoleModelChoice, ThinkingChoice } from './protocol';
import { ATTEMPT_COUNTS } from './attempts-protocol';

export class Toolbar {
  readonly element = el('header', 'toolbar');
  /** The pickers, for the composer's row (they are chosen with the message, not above the transcript). */
  readonly pickers = el('div', 'pickers');
  private readonly title = el('h1', 'session-title', t('New session'));
  private readonly agent = vsSelect('picker-select', (agent) => this.post({ type: 'pick_agent', agent }));
  private readonly models = el('div', 'model-pickers');
  private readonly modelSelects = new Map<RoleModelChoice['role'], VscodeSingleSelect>();
  private readonly thinking = vsSelect('picker-select', (level) => this.post({ type: 'pick_thinking', level }));
  private readonly thinkingPicker = labelled(t('Thinking'), this.thinking);
  /** How many attempts a prompt runs as (1: as usual; more: side by side in git worktrees, compared on a card). */
  private readonly attempts = vsSelect('picker-select', (count) => this.post({ type: 'pick_attempts', count: Number(count) }));

  constructor(private readonly post: Post) {
    this.title.id = 'session-title';
    this.agent.id = 'agent';
    // Until the host has said which agents there are (the engine loading): a picker that says so, not an empty one.
    setOptions(this.agent, [{ value: '', label: t('Loading…') }], '');
    this.agent.disabled = true;
    this.thinking.id = 'thinking';
    this.thinkingPicker.hidden = true;
    const heading = el('div', 'toolbar-row');
    // New session and the trace are the view's title-bar actions (VS Code's place for them), not buttons here.
    heading.append(this.title);
    this.attempts.id = 'attempts';
    this.showAttempts(1);
    this.attempts.title = t('Attempts: how many times the next prompts run side by side, each in its own git worktree, for you to compare and apply one');
    this.pickers.append(labelled(t('Agent'), this.agent), this.models, this.thinkingPicker, labelled(t('Attempts'), this.attempts));
    this.element.append(heading);
  }

  /** Whether the session has a title of its own yet. */
  get untitled(): boolean {
    return this.title.textContent === t('New session');
  }

  setTitle(title: string): void {
    this.title.textContent = title.trim() || t('New session');
    this.title.title = this.title.textContent;
  }

  showAgents(agents: AgentChoice[], current: string, models: RoleModelChoice[], thinking?: ThinkingChoice): void {
    this.showThinking(thinking);
    const known = agents.some((agent) => agent.name === current) || !current ? agents : [...agents, { name: current, description: '' }];
    setOptions(this.agent, known.map((agent) => ({ value: agent.name, description: agent.description })), current);
    this.agent.disabled = false;
    const description = known.find((agent) => agent.name === current)?.description;
    this.agent.title = description ? t`Agent: ${description}` : t('Agent');
    this.showModels(models);
  }

  /** The Attempts picker shows `count`. */
  showAttempts(count: number): void {
    setOptions(
      this.attempts,
      ATTEMPT_COUNTS.map((n) => ({ value: String(n), label: n === 1 ? t('1 attempt') : t`${n} attempts` })),
      String(count),
    );
  }

  /** The thinking level, offered only when the agent's model thinks. */
  private showThinking(thinking: ThinkingChoice | undefined): void {
    this.thinkingPicker.hidden = thinking === undefined;
    if (!thinking) return;
    setOptions(this.thinking, thinking.levels.map((level) => ({ value: level })), thinking.current);
  }

  private showModels(models: RoleModelChoice[]): void {
    const roles = new Set(models.map((model) => model.role));
    // Two models (a builder's and a reviewer's): each picker shows whose it is, in print.
    this.pickers.dataset['roles'] = String(roles.size);
    for (const [role, select] of this.modelSelects) {
      if (roles.has(role)) continue;
      select.closest('label')?.remove();
      this.modelSelects.delete(role);
    }
    for (const choice of models) {
      let select = this.modelSelects.get(choice.role);
      if (!select) {
        select = this.modelSelect(choice.role);
        this.modelSelects.set(choice.role, select);
        this.models.append(labelled(choice.label, select));
      }
      const options = choice.options.includes(choice.current) || !choice.current ? choice.options : [choice.current, ...choice.options];
      setOptions(select, options.map((model) => ({ value: model, ...(choice.labels?.[model] ? { label: choice.labels[model] } : {}) })), choice.current);
      select.label = choice.label;
      const caption = select.closest('label')?.querySelector('.picker-label');
      if (caption) caption.textContent = choice.label;
    }
  }

  private modelSelect(role: RoleModelChoice['role']): VscodeSingleSelect {
    const select = vsSelect('model picker-select', (model) => this.post({ type: 'pick_model', role, model }));
    select.dataset['role'] = role;
    return select;
  }
}

function labelled(text: string, control: VscodeSingleSelect): HTMLLabelElement {
  const label = el('label', 'picker');
  // The label is read out and shown on hover; the row has no room to print it.
  if (!control.title) control.title = text;
  control.label = text;
  label.append(el('span', 'picker-label', text), control);
  return label;
}
