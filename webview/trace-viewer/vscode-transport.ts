/**
 * The viewer inside a VS Code webview: the trace panel sends spans with
 * `postMessage` (there is no HTTP server), and saves and copies for the
 * viewer (a webview has no downloads, and its clipboard access varies).
 * Each piece of the stored trace is answered, once taken and paced (see
 * turns.ts), so the panel sends the next.
 */
import type { HostMessage, Transport, ViewerMessage } from './protocol';
import { Pacer } from './turns';

/** What `acquireVsCodeApi()` gives a webview (only the part the viewer uses). */
export interface VsCodeApi {
  postMessage(message: ViewerMessage): void;
  /** What VS Code keeps of the webview across restarts (given to the panel serializer). */
  setState?(state: unknown): void;
  getState?(): unknown;
}

declare global {
  /** Defined by VS Code in its webviews, and only there; callable once per page. */
  var acquireVsCodeApi: (() => VsCodeApi) | undefined;
}

export function inVsCode(): boolean {
  return typeof globalThis.acquireVsCodeApi === 'function';
}

export function vscodeTransport(api: VsCodeApi): Transport {
  const state = (): Record<string, unknown> => {
    const kept = api.getState?.();
    return typeof kept === 'object' && kept !== null ? (kept as Record<string, unknown>) : {};
  };
  return {
    // The panel's state also carries the session (for the serializer): a choice is added to it, never replaces it.
    remember: (key, value) => api.setState?.({ ...state(), [key]: value }),
    recall: (key) => {
      const value = state()[key];
      return typeof value === 'string' ? value : undefined;
    },
    connect(receive) {
      const pacer = new Pacer();
      window.addEventListener('message', (event: MessageEvent<unknown>) => {
        const message = event.data;
        if (typeof message !== 'object' || message === null || typeof (message as { type?: unknown }).type !== 'string') return;
        const hostMessage = message as HostMessage;
        if (hostMessage.type === 'session') api.setState?.({ ...state(), sessionId: hostMessage.sessionId, title: hostMessage.title });
        receive(hostMessage);
        if (hostMessage.type === 'stored') void pacer.pace().then(() => api.postMessage({ type: 'stored-taken' }));
      });
      api.postMessage({ type: 'ready' });
    },
    send: (message) => api.postMessage(message),
  };
}
