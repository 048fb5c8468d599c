/**
 * The folder's background runs (folded; shown once there is one): each
 * with its prompt, how it stands, when it started and how long it ran,
 * Stop while it runs (when it can be stopped from here) and Open once it
 * ended (its session in the chat, continued as that session; a run of
 * attempts, their comparison card). The prompt
 * is shown as text only. DOM hooks: `#background-runs`, `.background-run[data-run-id][data-state]`,
 * `.background-open`, `.background-stop`.
 */
import { vsButton } from './controls';
import { el } from './elements';
import { ago, duration } from './format';
import type { Post } from './host';
import { t } from './l10n';
import type { BackgroundRunState, BackgroundRunView } from './background-protocol';

export class BackgroundList {
  readonly element: HTMLDetailsElement;
  private readonly summary = el('summary', undefined, t('Background runs'));
  private readonly list = el('ul', 'background-items');

  constructor(private readonly post: Post) {
    this.element = el('details', 'background-runs');
    this.element.id = 'background-runs';
    this.element.append(this.summary, this.list);
    this.element.hidden = true;
  }

  show(runs: BackgroundRunView[]): void {
    const running = runs.filter((run) => run.state === 'running').length;
    this.summary.textContent = running > 0 ? t`Background runs (${running} running, ${runs.length} in all)` : t`Background runs (${runs.length})`;
    this.element.hidden = runs.length === 0;
    this.list.replaceChildren(...runs.map((run) => this.item(run)));
  }

  private item(run: BackgroundRunView): HTMLLIElement {
    const row = el('li', 'background-run');
    row.dataset['runId'] = run.id;
    row.dataset['state'] = run.state;
    const prompt = run.prompt.replace(/\s+/g, ' ').trim();
    const title = el('span', 'background-prompt', prompt.length > 120 ? `${prompt.slice(0, 119)}…` : prompt);
    title.title = prompt;
    const took = run.endedAt !== undefined ? ` · ${duration(Date.parse(run.endedAt) - Date.parse(run.startedAt))}` : '';
    const who = run.door === 'cli' ? ` · ${t('CLI')}` : run.here ? '' : ` · ${t('another window')}`;
    const what = run.attempts !== undefined ? ` · ${t`${run.attempts} attempts`}` : '';
    const meta = el('span', 'background-meta', `${stateText(run.state)} · ${ago(run.startedAt)}${took}${who}${what}`);
    row.append(title, meta);
    const actions = el('span', 'background-actions');
    if (run.stoppable) {
      const stop = vsButton(t('Stop'), 'background-stop', () => this.post({ type: 'stop_background', id: run.id }), { icon: 'debug-stop', secondary: true });
      stop.setAttribute('aria-label', t`Stop the background run: ${prompt}`);
      actions.append(stop);
    }
    if (run.openable) {
      const open = vsButton(t('Open'), 'background-open', () => this.post({ type: 'open_background', id: run.id }), { icon: 'go-to-file', secondary: true });
      open.setAttribute('aria-label', run.attempts !== undefined ? t`Open the background run's attempts, to apply one: ${prompt}` : t`Open the background run's session: ${prompt}`);
      actions.append(open);
    }
    row.append(actions);
    return row;
  }
}

function stateText(state: BackgroundRunState): string {
  switch (state) {
    case 'running':
      return t('running');
    case 'finished':
      return t('finished');
    case 'stopped':
      return t('stopped');
    case 'failed':
      return t('failed');
    case 'gone':
      return t('gone (its process ended without saying how)');
  }
}
