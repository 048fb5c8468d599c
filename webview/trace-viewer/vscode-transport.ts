/**
 * The viewer inside a VS Code webview: the trace panel sends spans with
 * `postMessage` (there is no HTTP server), and saves and copies for the
 * viewer (a webview has no downloads, and its clipboard access varies).
 */
import type { HostMessage, Transport, ViewerMessage } from './protocol';

/** What `acquireVsCodeApi()` gives a webview (only the part the viewer uses). */
export interface VsCodeApi {
  postMessage(message: ViewerMessage): void;
  /** What VS Code keeps of the webview across restarts (given to the panel serializer). */
  setState?(state: unknown): void;
}

declare global {
  /** Defined by VS Code in its webviews, and only there; callable once per page. */
  var acquireVsCodeApi: (() => VsCodeApi) | undefined;
}

export function inVsCode(): boolean {
  return typeof globalThis.acquireVsCodeApi === 'function';
}

export function vscodeTransport(api: VsCodeApi): Transport {
  return {
    connect(receive) {
      window.addEventListener('message', (event: MessageEvent<unknown>) => {
        const message = event.data;
        if (typeof message !== 'object' || message === null || typeof (message as { type?: unknown }).type !== 'string') return;
        const hostMessage = message as HostMessage;
        if (hostMessage.type === 'session') api.setState?.({ sessionId: hostMessage.sessionId, title: hostMessage.title });
        receive(hostMessage);
      });
      api.postMessage({ type: 'ready' });
    },
    send: (message) => api.postMessage(message),
  };
}
