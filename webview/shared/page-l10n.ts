/**
 * A webview's words, translated like the extension's (see
 * src/adapters/vscode/l10n.ts): `t` is @vscode/l10n's browser build, given
 * the display language's bundle the host put in the page as data
 * (`<script type="application/json" id="crow-l10n">`, webview-page.ts). Call
 * `t` when drawing, never at a module's top level: the bundle is read as the
 * app starts, after every module has loaded. A page with no bundle (a
 * browser on `crow trace --serve`, the tests) keeps the English originals;
 * nothing is fetched.
 */
import * as l10n from '@vscode/l10n';

export const t = l10n.t;

/** Takes the page's bundle, if it has one; a page without (English, the tests) keeps the originals. */
export function usePageBundle(): void {
  const data = document.getElementById('crow-l10n')?.textContent;
  if (!data) return;
  try {
    l10n.config({ contents: JSON.parse(data) as Record<string, string> });
  } catch {
    // A bundle that does not parse leaves the view in English rather than blank.
  }
}
