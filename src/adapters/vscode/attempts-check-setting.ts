import * as vscode from 'vscode';
import type { CheckSetting } from './chat/attempts-check';

/** crow.attempts.check where it was set: the user's value, and the workspace's (folder over workspace), for attempts-check.ts to choose. */
export function attemptsCheckSetting(): CheckSetting {
  const inspected = vscode.workspace.getConfiguration('crow').inspect<unknown>('attempts.check');
  return { user: inspected?.globalValue, project: inspected?.workspaceFolderValue ?? inspected?.workspaceValue };
}
