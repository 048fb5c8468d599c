import * as vscode from 'vscode';

/** The folder sessions work in: the first local workspace folder (the others are reachable from it), or none. */
export function workspaceRoot(): string | undefined {
  return vscode.workspace.workspaceFolders?.find((folder) => folder.uri.scheme === 'file')?.uri.fsPath;
}
