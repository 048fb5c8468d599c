/**
 * What the extension's parts share (one chat, one key store, the traces),
 * and the engine, loaded on first use: activation must not parse the SDKs,
 * tools and sessions (see engine-bundle.ts and esbuild.mjs).
 */
import * as vscode from 'vscode';
import type { ChatController } from './chat/chat-controller';
import type { ChatViewProvider } from './chat/chat-view';
import type * as Engine from './engine-bundle';
import type { KeyStore } from './secrets';
import type { TraceService } from './traces/register-traces';

export interface Crow {
  keys: KeyStore;
  chat: ChatViewProvider;
  traces: TraceService;
  engine: () => typeof Engine;
  /** The chat's controller; throws with advice when no folder is open. */
  controller(): ChatController;
  /** Crow's models as VS Code language models (vendor "crow"); refreshed when settings or keys change. */
  languageModels: vscode.Disposable & { refresh(): void };
}

let loaded: typeof Engine | undefined;
const loadListeners: (() => void)[] = [];

/** The engine, loaded (and set up) on first use. */
export function loadEngine(): typeof Engine {
  if (!loaded) {
    loaded = require('./engine-bundle') as typeof Engine;
    loaded.useL10nBundle(vscode.l10n.bundle);
    loaded.useVscodeRipgrep();
    // Lives as long as the extension host: provider type "vscode" and the model list it keeps.
    loaded.useVscodeModels();
    for (const listener of loadListeners.splice(0)) listener();
  }
  return loaded;
}

/** Calls `listener` once the engine is loaded (at once if it is). */
export function whenEngineLoads(listener: () => void): void {
  if (loaded) listener();
  else loadListeners.push(listener);
}

/** The engine if something already loaded it; before that, nothing of it runs. */
export function engineIfLoaded(): typeof Engine | undefined {
  return loaded;
}
