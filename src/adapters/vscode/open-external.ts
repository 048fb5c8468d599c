/**
 * Opens an address in the browser exactly as written. A vscode.Uri made
 * from it is written out again on the way (its query decoded and encoded
 * anew), which changed an OAuth authorization request's
 * `resource=http%3A%2F%2F…` into `http:/…` in a real workbench, so the
 * authorization server refused it. VS Code's window API takes the address
 * as a string and opens that string (ExtHostWindow.openUri keeps it as
 * `uriAsString`); the typings only name Uri.
 */
import * as vscode from 'vscode';

export function openExactly(address: string): Promise<boolean> {
  return Promise.resolve(vscode.env.openExternal(address as unknown as vscode.Uri));
}
