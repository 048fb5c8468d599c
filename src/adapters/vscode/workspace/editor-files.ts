import { promises as fs } from 'node:fs';
import * as vscode from 'vscode';
import { WorkspaceError } from '../../../tools/workspace';
import { bufferBytes, changedSpan, encodingFromBom, writeForm } from './write-form';

/**
 * Files as the editor holds them. Reads see unsaved changes; writes of
 * text go through a WorkspaceEdit, so the change lands in open editors and
 * Ctrl+Z takes it back, and are then saved. Paths given here are real,
 * absolute and already confined by the caller, which has made their folders.
 */

/** The file's content, from its editor buffer when that has unsaved changes, else from disk. */
export async function readFileSeeingEditors(absolute: string): Promise<Uint8Array> {
  const document = await openDocument(absolute, { dirtyOnly: true });
  if (!document) return fs.readFile(absolute);
  return bufferBytes(document.getText(), documentEncoding(document) ?? (await diskEncoding(absolute)));
}

/**
 * Writes through the editor (a minimal WorkspaceEdit, then a save) when the
 * content is text the buffer holds byte for byte. A new file is created by a
 * WorkspaceEdit file operation carrying its bytes. Binary or non-UTF-8
 * content, mixed line breaks and very large files go through
 * workspace.fs.writeFile instead: an editor buffer would rewrite them.
 */
export async function writeFileThroughEditor(absolute: string, data: Uint8Array | string, shown: string): Promise<void> {
  const uri = vscode.Uri.file(absolute);
  const open = await openDocument(absolute, { dirtyOnly: false });
  const exists = open !== undefined || (await fs.stat(absolute).then(() => true, () => false));
  const first = writeForm(data, open ? documentEncoding(open) : undefined);
  if (!exists) return createFile(uri, first.kind === 'bytes' ? first.bytes : new TextEncoder().encode(first.text), shown);
  if (first.kind === 'bytes') return vscode.workspace.fs.writeFile(uri, first.bytes);

  const document = open ?? (await openTextDocument(uri, shown));
  const form = writeForm(data, documentEncoding(document) ?? (await diskEncoding(absolute)));
  // The bytes route leaves a buffer with unsaved changes as it is; VS Code
  // then reports the conflict when the user saves it.
  if (form.kind === 'bytes') return vscode.workspace.fs.writeFile(uri, form.bytes);
  await replaceText(document, form.text, form.lineBreak, shown);
  if (document.isDirty && !(await document.save())) {
    throw new WorkspaceError(
      `VS Code could not save ${shown}; the change is in its editor, unsaved. Save it there, or check that the file is writable.`,
    );
  }
}

async function replaceText(
  document: vscode.TextDocument,
  text: string,
  lineBreak: '\n' | '\r\n' | undefined,
  shown: string,
): Promise<void> {
  const eol = lineBreak === '\r\n' ? vscode.EndOfLine.CRLF : lineBreak === '\n' ? vscode.EndOfLine.LF : undefined;
  const eolChanges = eol !== undefined && eol !== document.eol;
  const before = document.getText();
  // With the line break changing, every line changes: the whole text is replaced.
  const span = eolChanges ? { start: 0, end: before.length, text } : changedSpan(before, text);
  const edits: vscode.TextEdit[] = [];
  if (span.start !== span.end || span.text !== '') {
    const range = new vscode.Range(document.positionAt(span.start), document.positionAt(span.end));
    edits.push(vscode.TextEdit.replace(range, span.text));
  }
  if (eolChanges) edits.push(vscode.TextEdit.setEndOfLine(eol));
  if (edits.length === 0) return;
  const edit = new vscode.WorkspaceEdit();
  edit.set(document.uri, edits);
  if (!(await vscode.workspace.applyEdit(edit))) {
    throw new WorkspaceError(
      `VS Code refused the edit of ${shown} (is its editor read-only?). Make the file editable and try again.`,
    );
  }
}

async function createFile(uri: vscode.Uri, contents: Uint8Array, shown: string): Promise<void> {
  const edit = new vscode.WorkspaceEdit();
  edit.createFile(uri, { contents });
  if (!(await vscode.workspace.applyEdit(edit))) {
    throw new WorkspaceError(`VS Code could not create ${shown}; check that its folder is writable.`);
  }
}

async function openTextDocument(uri: vscode.Uri, shown: string): Promise<vscode.TextDocument> {
  try {
    return await vscode.workspace.openTextDocument(uri);
  } catch (err) {
    throw new WorkspaceError(`VS Code could not open ${shown} as text: ${err instanceof Error ? err.message : String(err)}`);
  }
}

/** An open document for a real path, matched by real path so a file opened through a symlink is found too. */
async function openDocument(absolute: string, { dirtyOnly }: { dirtyOnly: boolean }): Promise<vscode.TextDocument | undefined> {
  const candidates = vscode.workspace.textDocuments.filter(
    (document) => document.uri.scheme === 'file' && !document.isClosed && (!dirtyOnly || document.isDirty),
  );
  const exact = candidates.find((document) => document.uri.fsPath === absolute);
  if (exact) return exact;
  for (const document of candidates) {
    if ((await fs.realpath(document.uri.fsPath).catch(() => undefined)) === absolute) return document;
  }
  return undefined;
}

/** The document's encoding on hosts that tell it (TextDocument.encoding is newer than VS Code 1.95). */
function documentEncoding(document: vscode.TextDocument): string | undefined {
  const encoding: unknown = (document as { encoding?: unknown }).encoding;
  return typeof encoding === 'string' ? encoding : undefined;
}

async function diskEncoding(absolute: string): Promise<string> {
  const handle = await fs.open(absolute, 'r').catch(() => undefined);
  if (!handle) return 'utf8';
  try {
    const head = new Uint8Array(3);
    const { bytesRead } = await handle.read(head, 0, 3, 0);
    return encodingFromBom(head.subarray(0, bytesRead));
  } finally {
    await handle.close();
  }
}
