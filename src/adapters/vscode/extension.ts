import * as vscode from 'vscode';

/**
 * Extension entry point. Activation stays light: the engine is loaded on
 * first use by the commands and views that need it.
 */
export function activate(context: vscode.ExtensionContext): void {
  const version = String(context.extension.packageJSON.version ?? 'unknown');
  context.subscriptions.push(
    vscode.commands.registerCommand('crow.showVersion', () =>
      vscode.window.showInformationMessage(`Crow Agent ${version}`),
    ),
  );
}

export function deactivate(): void {}
