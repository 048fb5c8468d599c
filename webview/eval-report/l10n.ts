/**
 * The eval report's `t` and bundle loading: the webviews' shared ones
 * (webview/shared/page-l10n.ts). Shown by VS Code's Crow: Run Eval, the page
 * carries the display language's bundle; written to disk by `crow eval` for
 * a browser, it has none and reads in English.
 */
export { t, usePageBundle } from '../shared/page-l10n';
