/**
 * The trace viewer's `t` and bundle loading: the webviews' shared ones
 * (webview/shared/page-l10n.ts). In VS Code the trace panel puts the display
 * language's bundle in the page; served by `crow trace --serve` the page has
 * none and reads in English, with no request for one.
 */
export { t, usePageBundle } from '../shared/page-l10n';
