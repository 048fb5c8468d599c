/**
 * Keep and Undo on each hunk of what the last prompt changed, in the
 * editor (issue 39, item 8): a CodeLens over each hunk, as Copilot's edits
 * offer, and a quiet background on the lines it added. What is shown and
 * what Undo does are EditorHunks' (the same journal restore as the changes
 * bar's); this file only draws them in VS Code.
 */
import { isAbsolute, relative, sep } from 'node:path';
import * as vscode from 'vscode';
import { t } from './l10n';
import type { PromptHunk } from '../../journal/hunk-restore';
import type { EditorHunks } from './chat/editor-hunks';

export const KEEP_HUNK_COMMAND = 'crow.keepHunk';
export const UNDO_HUNK_COMMAND = 'crow.undoHunk';

/** Registers the lens, the decoration and the two commands for the workspace at `root()`. */
export function registerHunkLens(hunks: EditorHunks, root: () => string | undefined): vscode.Disposable[] {
  const changed = new vscode.EventEmitter<void>();
  const added = vscode.window.createTextEditorDecorationType({
    isWholeLine: true,
    backgroundColor: new vscode.ThemeColor('diffEditor.insertedLineBackground'),
    overviewRulerColor: new vscode.ThemeColor('editorOverviewRuler.addedForeground'),
    overviewRulerLane: vscode.OverviewRulerLane.Left,
  });
  const pathOf = (uri: vscode.Uri): string | undefined => {
    const base = root();
    if (base === undefined || uri.scheme !== 'file') return undefined;
    const path = relative(base, uri.fsPath);
    return path === '' || path === '..' || path.startsWith(`..${sep}`) || isAbsolute(path) ? undefined : path.split(sep).join('/');
  };
  const decorate = async (editor: vscode.TextEditor): Promise<void> => {
    const path = pathOf(editor.document.uri);
    const shown = path === undefined ? [] : await hunks.hunks(path).catch(() => []);
    editor.setDecorations(added, shown.flatMap((hunk) => addedRange(editor.document, hunk) ?? []));
  };
  const redraw = (): void => {
    changed.fire();
    for (const editor of vscode.window.visibleTextEditors) void decorate(editor);
  };
  const lenses: vscode.CodeLensProvider = {
    onDidChangeCodeLenses: changed.event,
    async provideCodeLenses(document) {
      const path = pathOf(document.uri);
      if (path === undefined) return [];
      return (await hunks.hunks(path).catch(() => [])).flatMap((hunk) => hunkLenses(document, path, hunk));
    },
  };
  const stopFollowing = hunks.onDidChange(redraw);
  const stopTelling = hunks.onUndone((outcome) => {
    if (!outcome.restored) void vscode.window.showWarningMessage(outcome.message);
  });
  return [
    changed,
    added,
    vscode.languages.registerCodeLensProvider({ scheme: 'file' }, lenses),
    // Run from a lens, with its file and hunk; anything else (the palette, another extension) does nothing.
    vscode.commands.registerCommand(KEEP_HUNK_COMMAND, (path: unknown, id: unknown) => typeof path === 'string' && typeof id === 'string' && hunks.keep(path, id)),
    vscode.commands.registerCommand(UNDO_HUNK_COMMAND, (path: unknown, id: unknown) => (typeof path === 'string' && typeof id === 'string' ? hunks.undo(path, id) : undefined)),
    vscode.window.onDidChangeVisibleTextEditors((editors) => editors.forEach((editor) => void decorate(editor))),
    vscode.workspace.onDidSaveTextDocument(redraw),
    { dispose: () => (stopFollowing(), stopTelling()) },
  ];
}

/** Keep and Undo over the hunk's first line (a removal: over the line after which the lines went). */
function hunkLenses(document: vscode.TextDocument, path: string, hunk: PromptHunk): vscode.CodeLens[] {
  const line = Math.min(Math.max(hunk.added.length > 0 ? hunk.newStart - 1 : hunk.newStart, 0), Math.max(document.lineCount - 1, 0));
  const range = new vscode.Range(line, 0, line, 0);
  const what = `${hunk.added.length > 0 ? `+${hunk.added.length}` : ''}${hunk.removed.length > 0 ? ` −${hunk.removed.length}` : ''}`.trim();
  return [
    new vscode.CodeLens(range, { title: `$(check) ${t('Keep')}`, command: KEEP_HUNK_COMMAND, arguments: [path, hunk.id], tooltip: t`Keep this change made by Crow (${what})` }),
    new vscode.CodeLens(range, { title: `$(discard) ${t('Undo')}`, command: UNDO_HUNK_COMMAND, arguments: [path, hunk.id], tooltip: t`Put these lines back as they were before Crow's last prompt (${what})` }),
  ];
}

/** The lines the hunk added, as the document has them now; undefined for a hunk that only removed. */
function addedRange(document: vscode.TextDocument, hunk: PromptHunk): vscode.Range | undefined {
  if (hunk.added.length === 0 || document.lineCount === 0) return undefined;
  const first = Math.min(hunk.newStart - 1, document.lineCount - 1);
  const last = Math.min(first + hunk.added.length - 1, document.lineCount - 1);
  return new vscode.Range(first, 0, last, 0);
}
