/** The chat view's `t` and bundle loading: the webviews' shared ones (webview/shared/page-l10n.ts). */
export { t, usePageBundle } from '../shared/page-l10n';
