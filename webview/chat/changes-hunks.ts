/**
 * A file's hunks in the changes bar: "Changes" on a file's row asks the
 * host for the hunks of what the prompt changed in it (before the prompt
 * against now, from its journal) and lists them under the row, each with
 * its lines and Keep or Undo. Undo asks the host to put back only those
 * lines; Keep takes the hunk off the list (nothing is written). The host
 * answers with the file's hunks again and the bar's counts.
 */
import { button, el } from './elements';
import { t } from './l10n';
import type { Post } from './host';
import type { HunkView } from './protocol';

/** Lines shown of each side of a hunk; the rest are counted. */
const SHOWN_LINES = 4;

/** The "Changes" toggle for a file's row. */
export function hunksToggle(path: string, row: HTMLElement, post: Post): HTMLButtonElement {
  const toggle = button(t('Changes'), 'changes-hunks-toggle', () => {
    const open = toggle.getAttribute('aria-expanded') === 'true';
    toggle.setAttribute('aria-expanded', String(!open));
    if (open) row.querySelector(':scope > .changes-hunks')?.remove();
    else post({ type: 'show_hunks', path });
  }, 'chevron-right');
  toggle.setAttribute('aria-expanded', 'false');
  toggle.setAttribute('aria-label', t`Show each change to ${path}`);
  toggle.title = t`Show each change to ${path}, to keep or undo one`;
  return toggle;
}

/** The row of `path` in the latest bar. */
function latestRow(transcript: HTMLElement, path: string): HTMLElement | undefined {
  const bar = [...transcript.querySelectorAll<HTMLElement>('.changes-bar')].at(-1);
  return [...(bar?.querySelectorAll<HTMLElement>('.changes-file') ?? [])].find((candidate) => candidate.dataset['path'] === path);
}

/** The row of `path` in the latest bar, when it is open for its hunks. */
function openRow(transcript: HTMLElement, path: string): HTMLElement | undefined {
  const row = latestRow(transcript, path);
  return row?.querySelector('.changes-hunks-toggle[aria-expanded="true"]') ? row : undefined;
}

/** The host's hunks of `path`, listed under its row (those the person kept stay hidden). */
export function showHunks(transcript: HTMLElement, path: string, hunks: readonly HunkView[], post: Post): void {
  const row = openRow(transcript, path);
  if (!row) return;
  const kept = keptOf(row);
  const said = row.querySelector(':scope > .changes-hunks > .changes-hunk-outcome');
  row.querySelector(':scope > .changes-hunks')?.remove();
  const list = el('ul', 'changes-hunks');
  list.setAttribute('aria-label', t`Changes to ${path}`);
  const shown = hunks.filter((hunk) => !kept.has(hunk.id));
  if (shown.length === 0) list.append(el('li', 'changes-hunk-none', hunks.length === 0 ? t('No change left in this file.') : t('Every change here is kept.')));
  for (const hunk of shown) list.append(hunkItem(path, hunk, row, post));
  if (said) list.append(said);
  row.append(list);
}

function hunkItem(path: string, hunk: HunkView, row: HTMLElement, post: Post): HTMLElement {
  const item = el('li', 'changes-hunk');
  item.dataset['hunk'] = hunk.id;
  const where = hunk.added.length > 0 ? t`Line ${hunk.newStart}` : t`After line ${hunk.newStart}`;
  const head = el('div', 'changes-hunk-head');
  head.append(el('span', 'changes-hunk-where', where));
  const keep = button(t('Keep'), 'changes-hunk-keep', () => {
    keptIn(row, hunk.id);
    post({ type: 'keep_hunk', path, hunk: hunk.id });
  }, 'check');
  keep.setAttribute('aria-label', t`Keep this change to ${path} (${where.toLowerCase()})`);
  const undo = button(t('Undo'), 'changes-hunk-undo', () => {
    keep.disabled = true;
    undo.disabled = true;
    post({ type: 'undo_hunk', path, hunk: hunk.id });
  }, 'discard');
  undo.setAttribute('aria-label', t`Undo this change to ${path} (${where.toLowerCase()})`);
  head.append(keep, undo);
  const lines = el('pre', 'changes-hunk-lines');
  for (const [mark, side, kind] of [['-', hunk.removed, 'del'], ['+', hunk.added, 'add']] as const) {
    for (const line of side.slice(0, SHOWN_LINES)) lines.append(el('span', `diff-${kind}`, `${mark}${line}\n`));
    if (side.length > SHOWN_LINES) lines.append(el('span', 'diff-more', `${mark} \u2026 ${t`${side.length - SHOWN_LINES} more`}\n`));
  }
  item.append(head, lines);
  return item;
}

/** A hunk of `path` kept, here or in the editor: the latest bar's row stops offering it. */
export function hunkKept(transcript: HTMLElement, path: string, hunk: string): void {
  const row = latestRow(transcript, path);
  if (row) keptIn(row, hunk);
}

/** The hunks of a row the person kept (held on the row, so a list drawn again leaves them out). */
function keptOf(row: HTMLElement): Set<string> {
  return new Set((row.dataset['kept'] ?? '').split(' ').filter(Boolean));
}

/** Marks `hunk` kept on its file's row and takes it off the list, which says so when none is left. */
function keptIn(row: HTMLElement, hunk: string): void {
  const kept = keptOf(row);
  kept.add(hunk);
  row.dataset['kept'] = [...kept].join(' ');
  const item = row.querySelector<HTMLElement>(`:scope > .changes-hunks > .changes-hunk[data-hunk="${CSS.escape(hunk)}"]`);
  const list = item?.parentElement;
  item?.remove();
  // The last one kept: the list says so rather than going blank.
  if (list && !list.querySelector('.changes-hunk') && !list.querySelector('.changes-hunk-none')) list.prepend(el('li', 'changes-hunk-none', t('Every change here is kept.')));
}

/** How one hunk's Undo ended, under the file's hunks; one refused gives its buttons back. */
export function hunkUndone(transcript: HTMLElement, path: string, hunk: string, restored: boolean, message: string): void {
  const row = openRow(transcript, path);
  const list = row?.querySelector(':scope > .changes-hunks');
  if (!row || !list) return;
  list.querySelector('.changes-hunk-outcome')?.remove();
  const line = el('li', `changes-hunk-outcome ${restored ? 'changes-hunk-restored' : 'changes-hunk-refused'}`, message);
  line.setAttribute('role', 'status');
  list.append(line);
  if (restored) return;
  for (const action of list.querySelectorAll<HTMLButtonElement>(`.changes-hunk[data-hunk="${CSS.escape(hunk)}"] button`)) action.disabled = false;
}
