import { existsSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';

/**
 * VS Code ships ripgrep for its own search. The packaged extension has no
 * node_modules of its own, so the engine falls back on VS Code's rg (see
 * useRipgrepFallback); where it lives differs between builds.
 */
export function vscodeRipgrep(): string | undefined {
  const binary = process.platform === 'win32' ? 'rg.exe' : 'rg';
  const candidates = ['node_modules', 'node_modules.asar.unpacked'].map((modules) => join(vscode.env.appRoot, modules, '@vscode', 'ripgrep', 'bin', binary));
  return candidates.find((candidate) => existsSync(candidate));
}
