import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type * as vscode from 'vscode';
import { lastSessionRecord } from '../../../../src/adapters/vscode/last-session';

/** workspaceState as VS Code gives it, minus the disk: what it holds is what was updated in this window. */
function memento(values: Record<string, unknown> = {}): vscode.Memento {
  return {
    keys: () => Object.keys(values),
    get: <T>(key: string, fallback?: T) => (key in values ? (values[key] as T) : fallback),
    update: async (key: string, value: unknown) => void (values[key] = value),
  } as vscode.Memento;
}

const fileUri = (fsPath: string) => ({ scheme: 'file', fsPath }) as vscode.Uri;

describe('the session the chat view showed last', () => {
  let folder: string;
  beforeEach(() => (folder = join(mkdtempSync(join(tmpdir(), 'crow-last-')), 'storage')));
  afterEach(() => rmSync(join(folder, '..'), { recursive: true, force: true }));

  it('is on disk as soon as it is set: a reloaded window (a new workspaceState) reads it', () => {
    lastSessionRecord({ storageUri: fileUri(folder), workspaceState: memento() }).set('session-1');
    const reloaded = lastSessionRecord({ storageUri: fileUri(folder), workspaceState: memento() });
    assert.equal(reloaded.get(), 'session-1');
    reloaded.set(undefined);
    assert.equal(lastSessionRecord({ storageUri: fileUri(folder), workspaceState: memento({ 'crow.lastSession': 'stale' }) }).get(), undefined, 'cleared stays cleared');
  });

  it('falls back to workspaceState before the file was ever written, and reads nothing from a mangled file', () => {
    assert.equal(lastSessionRecord({ storageUri: fileUri(folder), workspaceState: memento({ 'crow.lastSession': 'older' }) }).get(), 'older');
    lastSessionRecord({ storageUri: fileUri(folder), workspaceState: memento() }).set('x');
    writeFileSync(join(folder, 'last-session.json'), '{"id": 42');
    assert.equal(lastSessionRecord({ storageUri: fileUri(folder), workspaceState: memento({ 'crow.lastSession': 'older' }) }).get(), undefined);
  });

  it('without a local storage folder, keeps it in workspaceState', () => {
    const state = memento();
    const record = lastSessionRecord({ storageUri: undefined, workspaceState: state });
    record.set('session-2');
    assert.equal(record.get(), 'session-2');
    assert.equal(lastSessionRecord({ storageUri: { scheme: 'vscode-remote', fsPath: folder } as vscode.Uri, workspaceState: state }).get(), 'session-2');
  });
});
