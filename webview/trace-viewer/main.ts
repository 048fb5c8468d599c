/**
 * The trace viewer's entry point (dist/webview/viewer.js): in a VS Code
 * webview it talks to the trace panel by postMessage, in a browser to
 * `crow trace --serve` over HTTP. The presence of `acquireVsCodeApi` decides.
 * The page's translations (VS Code's only) are read before anything draws.
 */
import { httpTransport } from './http-transport';
import { Viewer } from './viewer';
import { inVsCode, vscodeTransport } from './vscode-transport';
import { usePageBundle } from './l10n';
import './viewer.css';

usePageBundle();
const transport = inVsCode() ? vscodeTransport(globalThis.acquireVsCodeApi!()) : httpTransport();
const viewer = new Viewer(document.getElementById('app')!, transport);
transport.connect((message) => viewer.receive(message));
