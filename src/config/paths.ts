import { homedir } from 'node:os';
import { join } from 'node:path';

/** Folder of the user's own configuration (XDG_CONFIG_HOME honoured). */
export function configHome(env: NodeJS.ProcessEnv = process.env): string {
  return join(env.XDG_CONFIG_HOME || join(homedir(), '.config'), 'crow-agent');
}

/** Folder of sessions and traces (XDG_DATA_HOME honoured). */
export function dataHome(env: NodeJS.ProcessEnv = process.env): string {
  return join(env.XDG_DATA_HOME || join(homedir(), '.local', 'share'), 'crow-agent');
}

/** A project's own configuration folder. */
export function projectConfigDir(workspaceRoot: string): string {
  return join(workspaceRoot, '.crow');
}
