/** The trace panel's page (see webviewPage): the viewer bundle, its stylesheet and the display language's words. */
import { webviewPage } from '../webview-page';
import { t } from '../l10n';

export interface TracePageAssets {
  /** webview.cspSource: the origin asWebviewUri URLs live on. */
  cspSource: string;
  scriptUri: string;
  styleUri: string;
  /** Fresh per page, e.g. 16 random bytes in base64. */
  nonce: string;
  /**
   * The display language's translations (vscode.l10n.bundle), put in the page
   * as data the viewer reads before its first paint (no request); none: English.
   */
  l10n?: Record<string, string>;
}

export function tracePageHtml({ cspSource, scriptUri, styleUri, nonce, l10n }: TracePageAssets): string {
  return webviewPage({ title: t('Crow trace'), cspSource, scriptUri, styleUris: [styleUri], nonce, ...(l10n !== undefined ? { l10n } : {}) });
}
