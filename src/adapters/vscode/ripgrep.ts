import { existsSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';

/**
 * VS Code ships ripgrep for its own search. The packaged extension has no
 * node_modules of its own, so the engine falls back on VS Code's rg (see
 * useRipgrepFallback). Where it lives differs between builds: older ones
 * have `@vscode/ripgrep/bin/rg`, 1.139 has
 * `@vscode/ripgrep-universal/bin/<platform>-<arch>/rg`; either may sit in
 * node_modules.asar.unpacked on desktop builds.
 */
export function vscodeRipgrep(): string | undefined {
  const binary = process.platform === 'win32' ? 'rg.exe' : 'rg';
  const packages = [
    join('@vscode', 'ripgrep', 'bin', binary),
    join('@vscode', 'ripgrep-universal', 'bin', `${process.platform}-${process.arch}`, binary),
  ];
  const candidates = ['node_modules', 'node_modules.asar.unpacked'].flatMap((modules) =>
    packages.map((inside) => join(vscode.env.appRoot, modules, inside)),
  );
  return candidates.find((candidate) => existsSync(candidate));
}
