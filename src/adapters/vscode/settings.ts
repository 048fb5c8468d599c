import * as vscode from 'vscode';
import { readConfiguration, type CrowConfiguration } from './configuration';

/**
 * The `crow.*` settings a user set explicitly (folder, workspace or user
 * settings, in that order): a setting left at its default does not override
 * config.toml, so both ways of configuring Crow keep working.
 */
export function crowConfiguration(scope?: vscode.Uri): CrowConfiguration {
  const section = vscode.workspace.getConfiguration('crow', scope);
  return readConfiguration((key) => {
    const inspected = section.inspect(key);
    return inspected?.workspaceFolderValue ?? inspected?.workspaceValue ?? inspected?.globalValue;
  });
}
