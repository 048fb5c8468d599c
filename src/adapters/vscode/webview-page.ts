/**
 * The page of every Crow webview (the chat view, the trace panel), apart
 * from `vscode` so the headless-Chromium tests load the bundles under exactly
 * this policy: only our scripts (by nonce) and our stylesheets, from the
 * webview's own origin; nothing remote, no inline code or styles, no fetches
 * (everything arrives by postMessage).
 */
export interface WebviewPageAssets {
  title: string;
  /** webview.cspSource: the origin asWebviewUri URLs live on. */
  cspSource: string;
  scriptUri: string;
  /** Stylesheets, in order (a test adds a stand-in for VS Code's theme variables first). */
  styleUris: string[];
  /**
   * The codicon stylesheet (@vscode/codicons' codicon.css, its font beside it),
   * linked first with the id `vscode-codicon-stylesheet`: @vscode-elements'
   * components find it by that id and link it again inside their shadow roots.
   */
  codiconUri?: string;
  /** Fresh per page, e.g. 16 random bytes in base64. */
  nonce: string;
  /** Code run before the bundle, under the nonce (tests put a fake `acquireVsCodeApi` here). */
  inlineScript?: string;
  /** Classes of <body>, as VS Code sets them (`vscode-dark`, ...) when a test stands in for it. */
  bodyClass?: string;
  /**
   * The translations of the display language (vscode.l10n.bundle), put in the
   * page as data the webview reads before it draws (webview/shared/page-l10n.ts);
   * none: English.
   */
  l10n?: Record<string, string>;
}

export function webviewPage(assets: WebviewPageAssets): string {
  const { cspSource, nonce } = assets;
  const csp = [
    "default-src 'none'",
    `style-src ${cspSource}`,
    `script-src 'nonce-${nonce}'`,
    `img-src ${cspSource} data:`,
    `font-src ${cspSource}`,
    "base-uri 'none'",
    "form-action 'none'",
  ].join('; ');
  const codicons = assets.codiconUri !== undefined ? [`<link rel="stylesheet" id="vscode-codicon-stylesheet" href="${attribute(assets.codiconUri)}">`] : [];
  const styles = [...codicons, ...assets.styleUris.map((uri) => `<link rel="stylesheet" href="${attribute(uri)}">`)].join('\n');
  const inline = assets.inlineScript !== undefined ? `<script nonce="${attribute(nonce)}">${assets.inlineScript}</script>\n` : '';
  const bodyClass = assets.bodyClass !== undefined ? ` class="${attribute(assets.bodyClass)}"` : '';
  // A data block, never run (no nonce); "<" escaped so no text in it can close the element.
  const l10n = assets.l10n !== undefined ? `<script type="application/json" id="crow-l10n">${JSON.stringify(assets.l10n).replace(/</g, '\\u003c')}</script>\n` : '';
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${attribute(csp)}">
<meta name="viewport" content="width=device-width, initial-scale=1">
${styles}
${inline}<title>${attribute(assets.title)}</title>
</head>
<body${bodyClass}>
${l10n}<div id="app"></div>
<script nonce="${attribute(nonce)}" src="${attribute(assets.scriptUri)}"></script>
</body>
</html>
`;
}

function attribute(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
}
