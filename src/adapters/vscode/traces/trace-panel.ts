/**
 * A session's trace in an editor tab: the same viewer bundle `crow trace
 * --serve` serves (dist/webview/viewer.js and viewer.css), talking to this
 * host by postMessage (webview/trace-viewer/protocol.ts). Strict CSP with a
 * nonce; the webview may load only from dist/webview. The webview is not
 * kept alive while hidden: when it comes back it says `ready` again and is
 * sent every span anew (the stored trace in pieces, see trace-feed.ts).
 */
import { randomBytes } from 'node:crypto';
import * as vscode from 'vscode';
import { t } from '../l10n';
import type { SessionStore } from '../../../session/session-store';
import { FORMAT_LABELS, type ExportFormat, type HostMessage, type ViewerMessage } from '../../../../webview/trace-viewer/protocol';
import { openTraceFeed, type LiveTrace, type TraceFeed } from './trace-feed';
import { tracePageHtml } from './trace-page';

export const TRACE_PANEL_TYPE = 'crow.trace';

export interface TracePanelOptions {
  extensionUri: vscode.Uri;
  store: SessionStore;
  sessionId: string;
  title: string;
  /** The session's recorder when it runs in this extension host (asked again at each (re)load of the webview). */
  liveTrace(): LiveTrace | undefined;
  /** Where the save dialog starts. */
  defaultFolder(): vscode.Uri | undefined;
  /** A panel VS Code restored after a restart (see registerTraces); a new one is made when absent. */
  restored?: vscode.WebviewPanel;
}

export class TracePanel {
  private readonly panel: vscode.WebviewPanel;
  private feed: TraceFeed | undefined;
  /** Feeds are opened asynchronously; a newer (re)load or a dispose makes an older one moot. */
  private generation = 0;
  private ready = false;
  private followingLive = false;
  private pendingReveal: { callId?: string; spanId?: string } | undefined;
  private readonly disposables: vscode.Disposable[] = [];
  private readonly closeListeners: (() => void)[] = [];

  constructor(private readonly options: TracePanelOptions) {
    const assets = vscode.Uri.joinPath(options.extensionUri, 'dist', 'webview');
    const webviewOptions = { enableScripts: true, localResourceRoots: [assets], enableFindWidget: true };
    this.panel = options.restored ?? vscode.window.createWebviewPanel(TRACE_PANEL_TYPE, t`Trace: ${options.title}`, vscode.ViewColumn.Active, webviewOptions);
    if (options.restored) {
      options.restored.webview.options = webviewOptions;
      options.restored.title = t`Trace: ${options.title}`;
    }
    this.panel.iconPath = vscode.Uri.joinPath(options.extensionUri, 'media', 'crow.svg');
    this.panel.webview.html = pageHtml(this.panel.webview, assets);
    this.disposables.push(
      this.panel.webview.onDidReceiveMessage((message: ViewerMessage) => void this.receive(message)),
      this.panel.onDidDispose(() => this.disposed()),
    );
  }

  get sessionId(): string {
    return this.options.sessionId;
  }

  onDidClose(listener: () => void): void {
    this.closeListeners.push(listener);
  }

  /** Brings the panel to the front, and selects the tool span of `callId` when given. */
  reveal(target: { callId?: string } = {}): void {
    this.panel.reveal(undefined, false);
    if (target.callId === undefined) return;
    if (this.ready) this.post({ type: 'reveal', callId: target.callId });
    else this.pendingReveal = target;
  }

  /**
   * Switches between following the session's recorder and its file when it
   * started or stopped running in this host since the panel loaded.
   */
  sync(): void {
    if (this.ready && (this.options.liveTrace() !== undefined) !== this.followingLive) void this.load();
  }

  dispose(): void {
    this.panel.dispose();
  }

  private async receive(message: ViewerMessage): Promise<void> {
    switch (message.type) {
      case 'ready':
        this.ready = true;
        this.post({ type: 'session', sessionId: this.options.sessionId, title: this.options.title });
        await this.load();
        if (this.pendingReveal) this.post({ type: 'reveal', ...this.pendingReveal });
        this.pendingReveal = undefined;
        return;
      case 'stored-taken':
        return this.feed?.taken();
      case 'export':
        return this.save(message.format, message.content, message.spanCount);
      case 'copy':
        await vscode.env.clipboard.writeText(message.content);
        return this.post({ type: 'notice', text: t`Copied ${FORMAT_LABELS[message.format]} of ${spans(message.spanCount)} to the clipboard.` });
      default:
        return unreachable(message);
    }
  }

  private async load(): Promise<void> {
    const generation = ++this.generation;
    this.feed?.close();
    this.feed = undefined;
    const live = this.options.liveTrace();
    this.followingLive = live !== undefined;
    const feed = await openTraceFeed({
      store: this.options.store,
      sessionId: this.options.sessionId,
      live,
      send: (message) => generation === this.generation && this.post(message),
    });
    if (generation === this.generation) this.feed = feed;
    else feed.close();
  }

  private async save(format: ExportFormat, content: string, spanCount: number): Promise<void> {
    const name = `crow-trace-${this.options.sessionId}${format === 'json' ? '.json' : '.otlp.json'}`;
    const folder = this.options.defaultFolder();
    const target = await vscode.window.showSaveDialog({
      title: t`Export the trace as ${FORMAT_LABELS[format]}`,
      ...(folder ? { defaultUri: vscode.Uri.joinPath(folder, name) } : {}),
      filters: { JSON: ['json'] },
      saveLabel: t('Export'),
    });
    if (!target) return;
    try {
      await vscode.workspace.fs.writeFile(target, new TextEncoder().encode(content));
      this.post({ type: 'notice', text: t`Saved ${FORMAT_LABELS[format]} of ${spans(spanCount)} to ${target.fsPath}.` });
    } catch (err) {
      this.post({ type: 'notice', text: t`Could not save ${target.fsPath}: ${(err as Error).message}`, error: true });
    }
  }

  private post(message: HostMessage): void {
    void this.panel.webview.postMessage(message);
  }

  private disposed(): void {
    this.generation++;
    this.feed?.close();
    for (const disposable of this.disposables) disposable.dispose();
    for (const listener of this.closeListeners) listener();
  }
}

/** The viewer's page, with a fresh nonce and the bundle's webview URLs. */
function pageHtml(webview: vscode.Webview, assets: vscode.Uri): string {
  return tracePageHtml({
    cspSource: webview.cspSource,
    scriptUri: webview.asWebviewUri(vscode.Uri.joinPath(assets, 'viewer.js')).toString(),
    styleUri: webview.asWebviewUri(vscode.Uri.joinPath(assets, 'viewer.css')).toString(),
    nonce: randomBytes(16).toString('base64'),
    ...(vscode.l10n.bundle !== undefined ? { l10n: vscode.l10n.bundle } : {}),
  });
}

function spans(count: number): string {
  return count === 1 ? t('1 span') : t`${count.toLocaleString('en-US')} spans`;
}

function unreachable(message: never): void {
  console.warn('crow: unknown message from the trace viewer', message);
}
