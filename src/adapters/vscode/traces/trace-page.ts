/** The trace panel's page (see webviewPage): the viewer bundle and its stylesheet. */
import { webviewPage } from '../webview-page';
import { t } from '../l10n';

export interface TracePageAssets {
  /** webview.cspSource: the origin asWebviewUri URLs live on. */
  cspSource: string;
  scriptUri: string;
  styleUri: string;
  /** Fresh per page, e.g. 16 random bytes in base64. */
  nonce: string;
}

export function tracePageHtml({ cspSource, scriptUri, styleUri, nonce }: TracePageAssets): string {
  return webviewPage({ title: t('Crow trace'), cspSource, scriptUri, styleUris: [styleUri], nonce });
}
