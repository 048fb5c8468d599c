/**
 * Where a workspace keeps the id of the session the chat view showed last,
 * so a window reloaded mid-prompt reopens it (see ChatController). Written
 * at once to a file in the workspace's storage folder: VS Code's
 * workspaceState reaches the disk later, through the window, and an update
 * made a moment before a reload was lost (the UI check that reloads while an
 * approval waits found it). Without a storage folder (no workspace open,
 * or one on another file system) workspaceState is all there is.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type * as vscode from 'vscode';

export interface LastSession {
  get(): string | undefined;
  set(id: string | undefined): void;
}

const KEY = 'crow.lastSession';
const FILE = 'last-session.json';

export function lastSessionRecord(context: Pick<vscode.ExtensionContext, 'storageUri' | 'workspaceState'>): LastSession {
  const state = context.workspaceState;
  const folder = context.storageUri?.scheme === 'file' ? context.storageUri.fsPath : undefined;
  if (folder === undefined) {
    return { get: () => state.get<string>(KEY), set: (id) => void state.update(KEY, id) };
  }
  const file = join(folder, FILE);
  return {
    get: () => {
      const recorded = readId(file);
      return recorded === NO_FILE ? state.get<string>(KEY) : recorded;
    },
    set: (id) => {
      mkdirSync(folder, { recursive: true });
      writeFileSync(file, JSON.stringify({ id: id ?? null }));
      void state.update(KEY, id);
    },
  };
}

/** Read before the file was ever written (a workspace from an older Crow): workspaceState answers. */
const NO_FILE = Symbol('no file');

/** The id in the file; undefined when it was cleared or cannot be read (a hand edit, a partial write). */
function readId(file: string): string | undefined | typeof NO_FILE {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return NO_FILE;
  }
  try {
    const { id } = JSON.parse(text) as { id?: unknown };
    return typeof id === 'string' ? id : undefined;
  } catch {
    return undefined;
  }
}
