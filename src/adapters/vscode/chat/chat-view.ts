import { randomBytes } from 'node:crypto';
import * as vscode from 'vscode';
import { isWebviewMessage } from '../../../../webview/chat/message-checks';
import type { HostMessage } from '../../../../webview/chat/protocol';
import { webviewPage } from '../webview-page';
import { ApprovalSignals } from './approval-signals';
import type { ChatController } from './chat-controller';

export const CHAT_VIEW_ID = 'crow.chat';

/** Makes the controller on first use: the engine loads when the view first opens, not at start-up. */
export type ControllerFactory = (post: (message: HostMessage) => void) => ChatController;

/**
 * The Crow chat view (a WebviewView in the Crow activity-bar container). The
 * browser side is dist/webview/chat.js under a strict CSP with a nonce; the
 * two sides talk only in the message unions of webview/chat/protocol.ts. The
 * controller outlives the webview: hiding and showing the view rebuilds it
 * from the controller's transcript (the view posts `ready`).
 */
export class ChatViewProvider implements vscode.WebviewViewProvider, vscode.Disposable {
  private view: vscode.WebviewView | undefined;
  private controllerValue: ChatController | undefined;
  /** Messages posted while no view is showing; the next `ready` rebuilds everything, so only prefills are kept. */
  private pendingPrefill: string | undefined;
  private readonly posted = new vscode.EventEmitter<HostMessage>();
  /** Every message the host sends the view (whether or not a view is showing): for tests and status displays. */
  readonly onDidPost = this.posted.event;
  /** Badge, status bar item and notification while an approval waits. */
  readonly approvals = new ApprovalSignals(
    () => this.view,
    () => vscode.commands.executeCommand(`${CHAT_VIEW_ID}.focus`),
  );

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly makeController: ControllerFactory,
  ) {}

  get controller(): ChatController {
    this.controllerValue ??= this.makeController((message) => this.post(message));
    return this.controllerValue;
  }

  resolveWebviewView(view: vscode.WebviewView): void {
    this.view = view;
    const assets = vscode.Uri.joinPath(this.extensionUri, 'dist', 'webview');
    view.webview.options = { enableScripts: true, localResourceRoots: [assets] };
    view.webview.html = chatHtml(view.webview, assets);
    view.webview.onDidReceiveMessage(async (message: unknown) => {
      if (!isWebviewMessage(message)) return;
      let controller: ChatController;
      try {
        controller = this.controller;
      } catch (err) {
        // No folder open, say: the view says what to do instead of staying blank.
        this.unavailable(err instanceof Error ? err.message : String(err));
        return;
      }
      await controller.handle(message);
      if (message.type === 'ready' && this.pendingPrefill !== undefined) {
        this.post({ type: 'prefill', text: this.pendingPrefill });
        this.pendingPrefill = undefined;
      }
    });
    view.onDidDispose(() => {
      if (this.view === view) this.view = undefined;
    });
    this.approvals.update();
  }

  /** Shows the view and puts `text` into its input box. */
  async prefill(text: string): Promise<void> {
    await vscode.commands.executeCommand(`${CHAT_VIEW_ID}.focus`);
    if (this.view) this.post({ type: 'prefill', text });
    else this.pendingPrefill = text;
  }

  async dispose(): Promise<void> {
    this.posted.dispose();
    this.approvals.dispose();
    await this.controllerValue?.dispose();
  }

  private unavailable(reason: string): void {
    const meter = { inputTokens: 0, outputTokens: 0, cachedTokens: 0 };
    this.post({ type: 'init', agents: [], agent: '', models: [], sessions: [], sessionId: undefined, meter: { prompt: meter, session: meter }, busy: false });
    this.post({ type: 'events', events: [{ type: 'notice', level: 'error', text: reason }] });
  }

  private post(message: HostMessage): void {
    this.approvals.observe(message);
    this.posted.fire(message);
    void this.view?.webview.postMessage(message);
  }
}

export function chatHtml(webview: vscode.Webview, assets: vscode.Uri): string {
  return webviewPage({
    title: 'Crow',
    ...(vscode.l10n.bundle !== undefined ? { l10n: vscode.l10n.bundle } : {}),
    cspSource: webview.cspSource,
    scriptUri: webview.asWebviewUri(vscode.Uri.joinPath(assets, 'chat.js')).toString(),
    styleUris: [webview.asWebviewUri(vscode.Uri.joinPath(assets, 'chat.css')).toString()],
    codiconUri: webview.asWebviewUri(vscode.Uri.joinPath(assets, 'codicon.css')).toString(),
    nonce: randomBytes(16).toString('base64'),
  });
}
