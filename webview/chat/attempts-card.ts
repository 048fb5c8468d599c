/**
 * The card of a prompt run as parallel attempts: one per run, redrawn
 * whole each time the host sends it (attempts-protocol.ts). While they run,
 * a row per attempt says how far it is; once ranked, best first, each with
 * how it ended, its check, its files (+/−), its cost, the judge's reason
 * (or its own summary), its diff folded per file, and Apply; under them
 * Apply none. Text from the attempts and the judge goes in as text only.
 * A redraw keeps which diffs are open and where the focus was.
 */
import { setDisabled, vsButton } from './controls';
import { details, el } from './elements';
import { cost, count } from './format';
import type { Post } from './host';
import { t } from './l10n';
import type { AttemptRowView, AttemptsCardView, AttemptStatus } from './attempts-protocol';
import { renderDiff } from './tool-card';

export class AttemptsCards {
  private readonly shown = new Map<string, HTMLElement>();

  constructor(
    private readonly post: Post,
    /** Puts a new card at the end of the transcript, in sight. */
    private readonly place: (card: HTMLElement) => void,
  ) {}

  show(card: AttemptsCardView): void {
    const old = this.shown.get(card.id);
    const open = new Set([...(old?.querySelectorAll<HTMLDetailsElement>('details.attempt-diff[open]') ?? [])].map((item) => item.dataset['n']));
    const focused = old?.contains(document.activeElement) ? (document.activeElement as HTMLElement | null)?.dataset['focusKey'] : undefined;
    const element = this.draw(card, open);
    this.shown.set(card.id, element);
    if (old) old.replaceWith(element);
    else this.place(element);
    if (focused !== undefined) element.querySelector<HTMLElement>(`[data-focus-key="${CSS.escape(focused)}"]`)?.focus();
  }

  /** The transcript was cleared (another session): its cards went with it. */
  clear(): void {
    this.shown.clear();
  }

  private draw(card: AttemptsCardView, open: Set<string | undefined>): HTMLElement {
    const root = el('section', 'attempts-card');
    root.dataset['runId'] = card.id;
    root.dataset['phase'] = card.phase;
    root.setAttribute('role', 'group');
    root.setAttribute('aria-label', t`${card.count} attempts of one prompt`);
    const heading = el('div', 'attempts-heading', headingText(card));
    heading.setAttribute('role', 'status');
    root.append(heading);
    if (card.problem) root.append(el('p', 'attempts-problem', card.problem));
    // The command is the person's setting (or their trusted workspace's): shown as text, so they see what ran in each worktree.
    if (card.check !== undefined) root.append(el('p', 'attempts-check-command', t`Check in each worktree: ${card.check}`));
    if (card.checkWithheld !== undefined) root.append(el('p', 'attempts-check-withheld', t`The workspace's check (${card.checkWithheld}) was not run: trust this workspace to run it.`));
    if (card.phase === 'failed') return root;
    const list = el('ol', 'attempts-rows');
    const ranked = card.rows.some((row) => row.diffs !== undefined);
    card.rows.forEach((row, index) => list.append(this.row(card, row, ranked ? index + 1 : undefined, open.has(String(row.n)))));
    root.append(list);
    if (card.phase === 'ranked') {
      const none = vsButton(t('Apply none'), 'attempts-dismiss', () => this.post({ type: 'dismiss_attempts', run: card.id }), { icon: 'close', secondary: true });
      none.dataset['focusKey'] = 'none';
      none.setAttribute('aria-label', t('Apply none of the attempts, and remove them'));
      const actions = el('div', 'attempts-actions');
      actions.append(none);
      root.append(actions);
    }
    return root;
  }

  private row(card: AttemptsCardView, row: AttemptRowView, rank: number | undefined, open: boolean): HTMLElement {
    const item = el('li', 'attempt-row');
    item.dataset['n'] = String(row.n);
    item.dataset['state'] = row.state;
    if (card.applied === row.n) item.dataset['applied'] = 'true';
    const line = el('div', 'attempt-line');
    if (rank !== undefined) line.append(el('span', 'attempt-rank', `#${rank}`));
    line.append(el('span', 'attempt-name', t`Attempt ${row.n}`), el('span', `attempt-state attempt-${row.status ?? row.state}`, stateText(row)));
    if (row.check !== undefined) line.append(el('span', row.check ? 'attempt-check passed' : 'attempt-check failed', row.check ? t('check passed') : t('check FAILED')));
    if (row.state === 'ended') line.append(el('span', 'attempt-files', filesText(row)), el('span', 'attempt-cost', row.costUsd !== undefined ? cost(row.costUsd) : t`${count(row.tokens)} tokens`));
    item.append(line);
    if (row.why) item.append(el('p', 'attempt-why', row.why));
    if (row.diffs && row.diffs.length > 0) item.append(diffOf(row, open));
    if (card.phase === 'ranked' && row.files.length > 0) {
      const apply = vsButton(t`Apply attempt ${row.n}`, 'attempt-apply', () => this.post({ type: 'apply_attempt', run: card.id, n: row.n }), { icon: 'check', secondary: rank !== 1 });
      apply.dataset['n'] = String(row.n);
      apply.dataset['focusKey'] = `apply-${row.n}`;
      apply.setAttribute('aria-label', t`Apply attempt ${row.n} to your files (Undo takes it back)`);
      item.append(apply);
    }
    if (card.phase === 'applying' && card.applied === row.n) {
      const applying = vsButton(t('Applying\u2026'), 'attempt-apply', () => undefined, { icon: 'loading' });
      setDisabled(applying, true);
      item.append(applying);
    }
    return item;
  }
}

function headingText(card: AttemptsCardView): string {
  switch (card.phase) {
    case 'running':
      return t`Running ${card.count} attempts side by side, each in its own git worktree\u2026`;
    case 'judging':
      return t('The judge is comparing the attempts\u2026');
    case 'ranked':
    case 'applying': {
      const how = card.judged?.used === false ? t`not judged (${card.judged.why}): ranked by how they ended, then cost` : t('ranked by the judge');
      const total = card.costUsd !== undefined ? t`; ${cost(card.costUsd)} in all` : '';
      return t`Attempts, best first, ${how}${total}. Apply one, or none.`;
    }
    case 'applied':
      if (card.kept) return card.applied === undefined ? t('An attempt of this background run was applied: Undo takes it back.') : t`Attempt ${card.applied} applied: Undo takes it back.`;
      return t`Attempt ${card.applied ?? 0} applied: the changes bar below can undo it. The other attempts were removed.`;
    case 'dismissed':
      if (card.kept) return t('None applied: the background run keeps its attempts (Background runs, Open).');
      return t('None applied: the attempts were removed.');
    case 'cancelled':
      return t('The attempts were cancelled; nothing was applied.');
    case 'failed':
      return t('The attempts could not run.');
  }
}

function stateText(row: AttemptRowView): string {
  if (row.state === 'waiting') return t('waiting');
  if (row.state === 'running') return row.steps === 1 ? t('running, 1 step') : t`running, ${row.steps} steps`;
  return endedText(row.status ?? 'error');
}

function endedText(status: AttemptStatus): string {
  switch (status) {
    case 'completed':
    case 'needs_input':
      return t('finished');
    case 'limit':
    case 'budget':
      return t('stopped by a limit');
    case 'cancelled':
      return t('cancelled');
    case 'error':
      return t('failed');
  }
}

function filesText(row: AttemptRowView): string {
  if (row.files.length === 0) return t('no changes');
  const added = row.files.reduce((sum, file) => sum + file.added, 0);
  const removed = row.files.reduce((sum, file) => sum + file.removed, 0);
  const files = row.files.length === 1 ? t('1 file') : t`${row.files.length} files`;
  return `${files} +${added} \u2212${removed}`;
}

/** The attempt's changes, folded: one diff per file, named once. */
function diffOf(row: AttemptRowView, open: boolean): HTMLElement {
  const { root, summary } = details('attempt-diff', t`Diff of attempt ${row.n}`, open);
  root.dataset['n'] = String(row.n);
  summary.dataset['focusKey'] = `diff-${row.n}`;
  for (const diff of row.diffs ?? []) {
    const section = el('section', 'tool-diff');
    section.append(el('div', 'diff-head attempt-diff-path', diff.path));
    section.append(diff.unified ? renderDiff(diff.unified) : el('p', 'attempt-diff-note', t('Not shown here (a binary file, or past what the card shows); Apply brings it in whole.')));
    root.append(section);
  }
  return root;
}
