/**
 * An approval's file change in VS Code's diff editor with its proposed side
 * editable: the left side is the file as it is now (read-only), the right a
 * document of the `crow-proposed` scheme that lives only in memory here.
 * Typing there is reported (a moment after it stops) so the chat's card
 * can follow. Saving only keeps the text here (VS Code for the web saves
 * by itself after a second, and an auto-save is not a yes): the card's
 * "Allow with my changes", or the same action in the editor's title bar
 * (crow.allowProposedChange), allows it. Nothing here writes a workspace
 * file: the text goes back to the approval, which writes it to the
 * approval's own path through the tool. Once closed (answered, or withdrawn
 * by a cancel), the tab goes.
 */
import { posix } from 'node:path';
import { t } from '../l10n';
import * as vscode from 'vscode';
import type { ChangeEditor, ChangeEdits, ProposedChange } from './chat-actions';

/** URI scheme of the editable proposed side. */
export const PROPOSED_SCHEME = 'crow-proposed';

/** How long typing must pause before the card is told. */
const QUIET_MS = 200;

interface ProposedFile {
  bytes: Uint8Array;
  mtime: number;
}

/** The proposed sides of open approvals, by URI: a file system of their own, in memory. */
export class ProposedFiles implements vscode.FileSystemProvider {
  private readonly files = new Map<string, ProposedFile>();
  private readonly changes = new vscode.EventEmitter<vscode.FileChangeEvent[]>();
  readonly onDidChangeFile = this.changes.event;

  /** Holds `text` at a new URI for approval `id` (its path only for the breadcrumbs and language). */
  add(id: string, path: string, text: string): vscode.Uri {
    // The approval in the query, so that the breadcrumbs show the file's own path.
    const uri = vscode.Uri.from({ scheme: PROPOSED_SCHEME, path: posix.normalize(`/${path}`), query: new URLSearchParams({ approval: id }).toString() });
    this.files.set(uri.toString(), { bytes: new TextEncoder().encode(text), mtime: Date.now() });
    return uri;
  }

  /** The text last saved at `uri`. */
  text(uri: vscode.Uri): string {
    return new TextDecoder().decode(this.file(uri).bytes);
  }

  forget(uri: vscode.Uri): void {
    this.files.delete(uri.toString());
  }

  watch(): vscode.Disposable {
    return new vscode.Disposable(() => undefined);
  }

  stat(uri: vscode.Uri): vscode.FileStat {
    const file = this.file(uri);
    return { type: vscode.FileType.File, ctime: file.mtime, mtime: file.mtime, size: file.bytes.length };
  }

  readDirectory(): [string, vscode.FileType][] {
    return [];
  }

  createDirectory(uri: vscode.Uri): void {
    throw vscode.FileSystemError.NoPermissions(uri);
  }

  readFile(uri: vscode.Uri): Uint8Array {
    return this.file(uri).bytes;
  }

  writeFile(uri: vscode.Uri, content: Uint8Array): void {
    const file = this.file(uri);
    file.bytes = content;
    file.mtime = Date.now();
    this.changes.fire([{ type: vscode.FileChangeType.Changed, uri }]);
  }

  delete(uri: vscode.Uri): void {
    throw vscode.FileSystemError.NoPermissions(uri);
  }

  rename(uri: vscode.Uri): void {
    throw vscode.FileSystemError.NoPermissions(uri);
  }

  private file(uri: vscode.Uri): ProposedFile {
    const file = this.files.get(uri.toString());
    if (!file) throw vscode.FileSystemError.FileNotFound(uri);
    return file;
  }
}

/**
 * Opens `change` for approval `id`: `left` is the URI of its read-only
 * "now" side (already filled by the caller), the right side is editable.
 */
export async function openChangeEditor(
  files: ProposedFiles,
  id: string,
  change: ProposedChange,
  left: vscode.Uri,
  edits: ChangeEdits,
): Promise<ChangeEditor> {
  const right = files.add(id, change.path, change.proposed);
  const title = t`Crow's proposed change to ${change.path} (edit, then allow)`;
  let timer: NodeJS.Timeout | undefined;
  const typing = vscode.workspace.onDidChangeTextDocument((event) => {
    if (event.document.uri.toString() !== right.toString()) return;
    clearTimeout(timer);
    timer = setTimeout(() => edits.changed(event.document.getText()), QUIET_MS);
  });
  const document = (): vscode.TextDocument | undefined => vscode.workspace.textDocuments.find((open) => open.uri.toString() === right.toString());
  const reveal = async (): Promise<void> => void (await vscode.commands.executeCommand('vscode.diff', left, right, title, { preview: false }));
  let closed = false;
  await reveal();
  return {
    text: () => document()?.getText() ?? files.text(right),
    reveal,
    close: async () => {
      if (closed) return;
      closed = true;
      clearTimeout(timer);
      typing.dispose();
      // Saved here first, so that closing the tab does not ask whether to save.
      const open = document();
      if (open?.isDirty) await open.save();
      const tabs = vscode.window.tabGroups.all.flatMap((group) => group.tabs).filter((tab) => tab.input instanceof vscode.TabInputTextDiff && tab.input.modified.toString() === right.toString());
      await vscode.window.tabGroups.close(tabs, true);
      files.forget(right);
    },
  };
}

/** The approval a `crow-proposed` document belongs to (the editor title's "Allow with my changes" names it by its URI); undefined for any other. */
export function approvalOfDocument(uri: unknown): string | undefined {
  if (!(uri instanceof vscode.Uri) || uri.scheme !== PROPOSED_SCHEME) return undefined;
  return new URLSearchParams(uri.query).get('approval') ?? undefined;
}
