/**
 * What a prompt changed, under its end, as Copilot's "files changed" bar:
 * each file with the lines added and removed (from the calls' diffs; a file
 * a command changed has none to count), opened in the diff editor from
 * here, and Keep or Undo (VS Code buttons) for all of it. Undo goes through the prompt's undo
 * point (the host asks before restoring, as /undo does).
 */
import { vsButton } from './controls';
import { button, el, fileLink } from './elements';
import { diffLines } from './diff-lines';
import { fileOpener, type Post } from './host';
import type { TranscriptEvent } from './protocol';

type ToolEnd = Extract<TranscriptEvent, { type: 'tool_end' }>;

interface FileChange {
  added: number;
  removed: number;
  /** Whether any change to it came with a diff to count. */
  counted: boolean;
  /** The last call that changed it with a diff: what Open shows. */
  callId?: string;
}

/** The changes of one prompt, gathered from its calls as they end. */
export class PromptChanges {
  private readonly files = new Map<string, FileChange>();

  add(end: ToolEnd): void {
    if (end.status !== 'completed' && end.status !== 'failed') return;
    const counts = end.diff ? countLines(end.diff.unified) : undefined;
    for (const path of new Set([...end.files, ...(end.diff ? [end.diff.path] : [])])) {
      const file = this.files.get(path) ?? { added: 0, removed: 0, counted: false };
      if (counts && end.diff?.path === path) {
        file.added += counts.added;
        file.removed += counts.removed;
        file.counted = true;
        file.callId = end.callId;
      }
      this.files.set(path, file);
    }
  }

  get empty(): boolean {
    return this.files.size === 0;
  }

  /**
   * The bar for these changes; Keep and Undo take it down to a line saying
   * which was chosen. `retire` takes the choice away once a later prompt
   * ran (Undo undoes the latest prompt only).
   */
  bar(post: Post): { element: HTMLElement; retire(): void } {
    const section = el('section', 'changes-bar');
    section.setAttribute('aria-label', 'Files this prompt changed');
    const count = this.files.size;
    const head = el('div', 'changes-head');
    head.append(el('strong', 'changes-title', `${count} file${count === 1 ? '' : 's'} changed`));
    const keep = vsButton('Keep', 'changes-keep', () => settle('Kept.'), { icon: 'check', secondary: true });
    keep.title = 'Keep these changes (they stay; this only closes the list)';
    const undo = vsButton('Undo', 'changes-undo', () => {
      post({ type: 'undo_prompt' });
      settle('Undo asked for: confirm it below.');
    }, { icon: 'discard' });
    undo.title = "Put every file this prompt changed back as it was (you are asked first; your own edits stay)";
    head.append(keep, undo);
    const list = el('ul', 'changes-files');
    const open = fileOpener(post);
    for (const [path, file] of [...this.files].sort(([a], [b]) => a.localeCompare(b))) {
      const row = el('li', 'changes-file');
      row.append(fileLink(path, open));
      if (file.counted) row.append(el('span', 'changes-added', `+${file.added}`), el('span', 'changes-removed', `−${file.removed}`));
      else row.append(el('span', 'changes-uncounted', 'changed by a command'));
      if (file.callId !== undefined) {
        const callId = file.callId;
        const diff = button('Diff', 'changes-diff', () => post({ type: 'open_diff', callId }), 'diff');
        diff.setAttribute('aria-label', `Open the change to ${path} in the diff editor`);
        row.append(diff);
      }
      list.append(row);
    }
    section.append(head, list);
    function settle(outcome: string): void {
      if (!keep.isConnected) return;
      keep.remove();
      undo.remove();
      if (outcome) head.append(el('span', 'changes-outcome', outcome));
    }
    return { element: section, retire: () => settle('') };
  }
}

/** Lines added and removed in a unified diff, leaving out its file headers. */
export function countLines(unified: string): { added: number; removed: number } {
  const lines = diffLines(unified);
  return { added: lines.filter((line) => line.kind === 'add').length, removed: lines.filter((line) => line.kind === 'del').length };
}
