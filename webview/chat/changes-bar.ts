/**
 * What a prompt changed, under its end, as Copilot's "files changed" bar:
 * each file with the lines added and removed, opened in the diff editor
 * from here, Keep or Undo for one file, and Keep or Undo (VS Code buttons)
 * for all of it. The files and their counts are the journal's (the host
 * sends them with the prompt's end, and again after an Undo of one file):
 * exactly what Undo would put back, each file counted net, before the
 * prompt against now, so a file written and put back is not listed and a
 * file a command changed is. Undo acts at once on the click (the host
 * asks only when a file the bar does not list would change); `showUndone`
 * says how it went.
 */
import { vsButton, type VscodeButton } from './controls';
import { t } from './l10n';
import { button, el, fileLink } from './elements';
import { diffLines } from './diff-lines';
import { hunksToggle } from './changes-hunks';
import { fileOpener, type Post } from './host';
import type { FileCount, HostMessage, TranscriptEvent } from './protocol';

type ToolEnd = Extract<TranscriptEvent, { type: 'tool_end' }>;
type Restored = Extract<HostMessage, { type: 'restored' }>;

/** The calls of one prompt that changed a file with a diff, gathered as they end: what a file's Diff opens. */
export class PromptChanges {
  private readonly diffs = new Map<string, string>();

  add(end: ToolEnd): void {
    if ((end.status === 'completed' || end.status === 'failed') && end.diff) this.diffs.set(end.diff.path, end.callId);
  }

  /**
   * The bar for `files` (the journal's), or undefined when the prompt
   * changed nothing; Keep and Undo take it down to a line saying which was
   * chosen. `retire` takes the choice away once a later prompt ran (Undo
   * undoes the latest prompt only).
   */
  bar(post: Post, files: readonly FileCount[]): { element: HTMLElement; retire(): void } | undefined {
    if (files.length === 0) return undefined;
    const section = el('section', 'changes-bar');
    section.setAttribute('aria-label', t('Files this prompt changed'));
    // The journal's counts: each file before the prompt against now.
    section.dataset['counts'] = 'net';
    const head = el('div', 'changes-head');
    head.append(el('strong', 'changes-title', filesChanged(files.length)));
    const keep = vsButton(t('Keep'), 'changes-keep', () => settle(section, t('Kept.')), { icon: 'check', secondary: true });
    keep.title = t('Keep these changes (they stay; this only closes the list)');
    const undo = vsButton(t('Undo'), 'changes-undo', () => {
      post({ type: 'undo_prompt' });
      pending(section, t('Undoing…'));
    }, { icon: 'discard' });
    undo.title = t('Put every file this prompt changed back as it was, now');
    head.append(keep, undo);
    const list = el('ul', 'changes-files');
    const open = fileOpener(post);
    for (const file of [...files].sort((a, b) => a.path.localeCompare(b.path))) list.append(fileRow(file, this.diffs.get(file.path), post, open));
    section.append(head, list);
    return { element: section, retire: () => settle(section, '') };
  }
}

function filesChanged(count: number): string {
  return count === 1 ? t('1 file changed') : t`${count} files changed`;
}

function fileRow(file: FileCount, callId: string | undefined, post: Post, open: (path: string, line?: number) => void): HTMLElement {
  const { path } = file;
  const row = el('li', 'changes-file');
  row.dataset['path'] = path;
  row.append(fileLink(path, open), ...countsOf(file));
  if (callId !== undefined) {
    const diff = button(t('Diff'), 'changes-diff', () => post({ type: 'open_diff', callId }), 'diff');
    diff.setAttribute('aria-label', t`Open the change to ${path} in the diff editor`);
    row.append(diff);
  }
  if (!file.binary) row.append(hunksToggle(path, row, post));
  const keepFile = button(t('Keep'), 'changes-file-keep', () => settleRow(row, t('kept')), 'check');
  keepFile.setAttribute('aria-label', t`Keep the change to ${path}`);
  keepFile.title = t`Keep the change to ${path}`;
  const undoFile = button(t('Undo'), 'changes-file-undo', () => {
    post({ type: 'undo_prompt', path });
    for (const action of row.querySelectorAll<HTMLButtonElement>('.changes-file-keep, .changes-file-undo')) action.disabled = true;
  }, 'discard');
  undoFile.setAttribute('aria-label', t`Undo the change to ${path}`);
  undoFile.title = t`Put ${path} back as it was before this prompt, now`;
  row.append(keepFile, undoFile);
  return row;
}

/** A file's counts as the journal gives them: "+2 −1", "new +3 −0", "removed −4", or "binary". */
function countsOf(file: FileCount): HTMLElement[] {
  if (file.binary) return [el('span', 'changes-uncounted', file.status === 'deleted' ? t('removed') : t('binary'))];
  const counts = [el('span', 'changes-added', `+${file.added}`), el('span', 'changes-removed', `−${file.removed}`)];
  if (file.status === 'added') return [el('span', 'changes-uncounted', t('new')), ...counts];
  if (file.status === 'deleted') return [el('span', 'changes-uncounted', t('removed')), ...counts];
  return counts;
}

/** Takes the bar's choices away and says what became of it ('' says nothing: a later prompt retired it). */
function settle(section: HTMLElement, outcome: string): void {
  const head = section.querySelector('.changes-head');
  if (!head?.querySelector('.changes-keep')) return;
  for (const action of section.querySelectorAll('.changes-keep, .changes-undo, .changes-file-keep, .changes-file-undo')) action.remove();
  head.querySelector('.changes-outcome')?.remove();
  if (outcome) head.append(outcomeLine(outcome));
}

/** The bar while its Undo is done: the buttons wait, the line says so. */
function pending(section: HTMLElement, text: string): void {
  for (const action of section.querySelectorAll<VscodeButton | HTMLButtonElement>('.changes-keep, .changes-undo, .changes-file-keep, .changes-file-undo')) action.disabled = true;
  const head = section.querySelector('.changes-head')!;
  head.querySelector('.changes-outcome')?.remove();
  head.append(outcomeLine(text));
}

function settleRow(row: HTMLElement, word: string): void {
  for (const action of row.querySelectorAll('.changes-file-keep, .changes-file-undo')) action.remove();
  row.querySelector('.changes-file-outcome')?.remove();
  row.append(el('span', 'changes-file-outcome', word));
}

function outcomeLine(text: string): HTMLElement {
  const line = el('span', 'changes-outcome', text);
  line.setAttribute('role', 'status');
  return line;
}

/** Takes a bar's choices away without a word: its files went back with a rewind, or a later prompt ran. */
export function retireBar(section: HTMLElement): void {
  settle(section, '');
}

/** The latest bar that still offers Undo, in `transcript`. */
function liveBar(transcript: HTMLElement): HTMLElement | undefined {
  return [...transcript.querySelectorAll<HTMLElement>('.changes-bar')].reverse().find((bar) => bar.querySelector('.changes-undo, .changes-file-undo'));
}

/** How an Undo clicked on a bar ended: the bar (or the file's row) says so; one that did not happen gives the buttons back. */
export function showUndone(transcript: HTMLElement, restored: Restored): void {
  if (restored.target.kind !== 'undo') return;
  const bar = liveBar(transcript);
  if (!bar) return;
  const { path } = restored.target;
  const row = path === undefined ? undefined : [...bar.querySelectorAll<HTMLElement>('.changes-file')].find((candidate) => candidate.dataset['path'] === path);
  if (restored.outcome === 'restored') {
    if (row) {
      settleRow(row, t('undone'));
      if (!bar.querySelector('.changes-file-undo')) settle(bar, restored.message);
    } else settle(bar, restored.message);
    return;
  }
  for (const action of bar.querySelectorAll<VscodeButton | HTMLButtonElement>('.changes-keep, .changes-undo, .changes-file-keep, .changes-file-undo')) action.disabled = false;
  const head = bar.querySelector('.changes-head')!;
  head.querySelector('.changes-outcome')?.remove();
  head.append(outcomeLine(restored.message));
}

/**
 * The journal's counts for the latest bar, again (after an Undo of one
 * file): each listed file's +/− replaced, a file no longer changed shows
 * +0 −0 (it is back as it was).
 */
export function showNetCounts(transcript: HTMLElement, files: readonly FileCount[]): void {
  const bar = [...transcript.querySelectorAll<HTMLElement>('.changes-bar')].at(-1);
  if (!bar) return;
  const byPath = new Map(files.map((file) => [file.path, file]));
  for (const row of bar.querySelectorAll<HTMLElement>('.changes-file')) {
    if (!row.querySelector('.changes-added')) continue;
    const net = byPath.get(row.dataset['path'] ?? '') ?? { added: 0, removed: 0 };
    row.querySelector('.changes-added')!.textContent = `+${net.added}`;
    row.querySelector('.changes-removed')!.textContent = `−${net.removed}`;
  }
  bar.dataset['counts'] = 'net';
}

/** Lines added and removed in a unified diff, leaving out its file headers. */
export function countLines(unified: string): { added: number; removed: number } {
  const lines = diffLines(unified);
  return { added: lines.filter((line) => line.kind === 'add').length, removed: lines.filter((line) => line.kind === 'del').length };
}
