/**
 * The last prompt's hunks as the editor shows them (issue 39, item 8): each
 * hunk of a file the prompt changed gets Keep and Undo where it sits (see
 * hunk-lens.ts, the VS Code side). Undo goes through the same message as
 * the changes bar's (`undo_hunk`, the journal's one restore), so the bar's
 * counts and hunks follow; a bar's Undo, a file's Undo, a whole Undo or a
 * new prompt moves the editor too, read from what the host tells the view.
 * Keep hides a hunk in the editor and writes nothing, and so does the
 * bar's: each follows the other's (`keep_hunk`, answered by `hunk_kept`).
 * No `vscode` here.
 */
import type { PromptHunk } from '../../../journal/hunk-restore';
import type { HostMessage } from '../../../../webview/chat/protocol';

/** Where the hunks come from and where Undo goes: the chat's open session, as the bar reaches it. */
export interface HunkSource {
  /** The hunks of the last prompt's change to `path` (relative to the workspace, `/`-separated); [] while a prompt runs. */
  hunks(path: string): Promise<PromptHunk[]>;
  /** Puts back one hunk as the bar's Undo does; the outcome comes back as the host's `hunk_undone` message. */
  undo(path: string, id: string): Promise<void>;
  /** Keeps one hunk as the bar's Keep does (the host's `hunk_kept` tells the bar). */
  keep(path: string, id: string): Promise<void>;
}

/** How one hunk's Undo clicked in the editor ended, for the editor to say when nothing was put back. */
export type HunkOutcome = Extract<HostMessage, { type: 'hunk_undone' }>;

export class EditorHunks {
  /** The files the last prompt changed that may have hunks to show (the journal's list, as the bar got it). */
  private changed = new Set<string>();
  /** Hunks the person kept in the editor, by file. */
  private readonly kept = new Map<string, Set<string>>();
  /** Undos clicked in the editor, waiting for their outcome. */
  private readonly asked = new Set<string>();
  private readonly listeners = new Set<(paths: readonly string[] | undefined) => void>();
  private readonly outcomes = new Set<(outcome: HunkOutcome) => void>();

  constructor(private readonly source: HunkSource) {}

  /** The hunks of `path` to show: none for a file the last prompt did not change, or while a prompt runs. */
  async hunks(path: string): Promise<PromptHunk[]> {
    if (!this.changed.has(path)) return [];
    const kept = this.kept.get(path);
    const hunks = await this.source.hunks(path);
    return kept ? hunks.filter((hunk) => !kept.has(hunk.id)) : hunks;
  }

  /** Hides one hunk in the editor (the change stays), and in the bar. */
  keep(path: string, id: string): Promise<void> {
    this.hide(path, id);
    return this.source.keep(path, id);
  }

  /** Puts back one hunk's lines, as the bar's Undo does. */
  async undo(path: string, id: string): Promise<void> {
    this.asked.add(`${path}\u0000${id}`);
    await this.source.undo(path, id);
  }

  /** Called with the files whose hunks changed (undefined: any file). */
  onDidChange(listener: (paths: readonly string[] | undefined) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Called when an Undo clicked in the editor ended (put back, or why not). */
  onUndone(listener: (outcome: HunkOutcome) => void): () => void {
    this.outcomes.add(listener);
    return () => this.outcomes.delete(listener);
  }

  /** Follows what the host tells the chat view: the prompt's end, new counts, the bar's hunks, restores, another session. */
  observe(message: HostMessage): void {
    switch (message.type) {
      case 'init':
      case 'reset':
        return this.follow([]);
      case 'events':
        for (const event of message.events) {
          if (event.type === 'user_message' && !event.steered) this.follow([]);
          if (event.type === 'prompt_end') this.follow(event.changes?.filter((file) => file.status !== 'deleted').map((file) => file.path) ?? []);
        }
        return;
      case 'change_counts':
        return this.follow(message.files.filter((file) => file.added + file.removed > 0 && file.status !== 'deleted').map((file) => file.path));
      case 'restored':
        // A file's Undo is followed by new counts; a whole Undo or a rewind leaves no hunk of that prompt.
        if (message.outcome === 'restored' && !(message.target.kind === 'undo' && message.target.path !== undefined)) this.follow([]);
        return;
      case 'hunks':
        return this.changedNow([message.path]);
      case 'hunk_kept':
        return this.hide(message.path, message.hunk);
      case 'hunk_undone': {
        const key = `${message.path}\u0000${message.hunk}`;
        if (this.asked.delete(key)) for (const listener of this.outcomes) listener(message);
        return this.changedNow([message.path]);
      }
      default:
        return;
    }
  }

  private hide(path: string, id: string): void {
    const kept = this.kept.get(path) ?? new Set<string>();
    if (kept.has(id)) return;
    kept.add(id);
    this.kept.set(path, kept);
    this.changedNow([path]);
  }

  /** The last prompt's changed files are now `paths`; what was kept is forgotten for files no longer listed. */
  private follow(paths: readonly string[]): void {
    const before = this.changed;
    this.changed = new Set(paths);
    for (const path of this.kept.keys()) if (!this.changed.has(path)) this.kept.delete(path);
    if (paths.length === 0) this.kept.clear();
    if (before.size === 0 && this.changed.size === 0) return;
    this.changedNow(undefined);
  }

  private changedNow(paths: readonly string[] | undefined): void {
    for (const listener of this.listeners) listener(paths);
  }
}
