import { homedir } from 'node:os';
import { join } from 'node:path';

/** Folder of the user's own configuration (XDG_CONFIG_HOME honoured). */
export function configHome(env: NodeJS.ProcessEnv = process.env): string {
  return join(env.XDG_CONFIG_HOME || join(homedir(), '.config'), 'crow-agent');
}

/** Folder of what crow keeps only to be quicker, safe to delete (XDG_CACHE_HOME honoured). */
export function cacheHome(env: NodeJS.ProcessEnv = process.env): string {
  return join(env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'crow-agent');
}

/** Folder of sessions and traces (XDG_DATA_HOME honoured). */
export function dataHome(env: NodeJS.ProcessEnv = process.env): string {
  return join(env.XDG_DATA_HOME || join(homedir(), '.local', 'share'), 'crow-agent');
}

/**
 * Crow's data, state and log folders hold code, prompts, outputs and
 * traces, its caches code it runs: only their owner may read them. They
 * are created with these modes, and checked to still be so before what
 * is in them is used (config/private-files.ts).
 */
export const PRIVATE_DIR_MODE = 0o700;
export const PRIVATE_FILE_MODE = 0o600;

/** A project's own configuration folder. */
export function projectConfigDir(workspaceRoot: string): string {
  return join(workspaceRoot, '.crow');
}
