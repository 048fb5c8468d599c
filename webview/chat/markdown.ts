/**
 * Assistant text as HTML. markdown-it runs with `html: false`, so any markup
 * in model text is escaped, and links are limited to http(s), mailto and
 * relative paths (no `javascript:`, `command:` or `file:`). Images are not
 * rendered: the CSP would block remote ones anyway, and a model should not
 * make the view fetch anything. Table alignment becomes a class, because the
 * CSP refuses `style` attributes.
 */
import MarkdownIt from 'markdown-it';
import { t } from './l10n';
import { highlight } from './highlight';

const SAFE_SCHEMES: ReadonlySet<string> = new Set(['http', 'https', 'mailto']);
/** Fences of commands to type, not a file's text: they get no Apply. */
const SHELL_LANGUAGES: ReadonlySet<string> = new Set(['bash', 'sh', 'shell', 'console', 'zsh', 'powershell', 'ps1', 'pwsh', 'shellsession', 'fish', 'bat', 'cmd', 'terminal']);

const md = new MarkdownIt({ html: false, linkify: true, highlight });
md.disable('image');
// Only links with a scheme: fuzzy linking would turn file names like `config.py` into http://config.py.
md.linkify.set({ fuzzyLink: false });
md.validateLink = (url: string): boolean => {
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(url.trim());
  return !scheme || SAFE_SCHEMES.has(scheme[1]!.toLowerCase());
};
md.core.ruler.push('align_as_class', (state) => {
  for (const token of state.tokens) {
    const style = token.attrGet('style');
    const align = style && /^text-align:(left|center|right)$/.exec(style);
    if (!align) continue;
    token.attrs = (token.attrs ?? []).filter(([name]) => name !== 'style');
    token.attrJoin('class', `align-${align[1]}`);
  }
});

/**
 * Each code block gets a head: its language and the actions Copy, Insert
 * (at the editor's cursor) and Apply (as the new text of a file, through the
 * edit approval; not for shell commands, which are no file's text), which
 * the transcript answers by delegation. Part of the
 * rendered HTML, so a streamed answer is still one render.
 */
const fence = md.renderer.rules.fence!;
md.renderer.rules.fence = (tokens, index, options, env, self) => {
  const { language, path } = fenceInfo(tokens[index]!.info);
  const escape = md.utils.escapeHtml;
  const target = path ? ` data-path="${escape(path)}"` : '';
  const applyTitle = escape(path ? t`Replace ${path} with this code (you approve the change first)` : t('Replace a file you pick with this code (you approve the change first)'));
  const head =
    `<div class="code-head"><span class="code-language"${path ? ` title="${escape(path)}"` : ''}>${escape(path ? `${language || 'text'} · ${path}` : language || 'text')}</span>` +
    `<button type="button" class="code-action code-copy" title="${escape(t('Copy the code'))}">${icon('copy')}${escape(t('Copy'))}</button>` +
    `<button type="button" class="code-action code-insert" title="${escape(t("Insert the code at the editor's cursor"))}">${icon('insert')}${escape(t('Insert'))}</button>` +
    (SHELL_LANGUAGES.has(language.toLowerCase()) ? '' : `<button type="button" class="code-action code-apply"${target} title="${applyTitle}">${icon('replace-all')}${escape(t('Apply'))}</button>`) +
    '</div>';
  return `<div class="code-block">${head}${fence(tokens, index, options, env, self)}</div>`;
};

/**
 * What a fence's info string says: its language, and the file the block is
 * for when it names one. The rule: the word after the language (```ts
 * src/app.ts), or a path joined to the language by a colon (```ts:src/app.ts),
 * or `path=src/app.ts` / `file=src/app.ts`. A word counts as a path only when it
 * has a slash or a dot in it, so ```js title or ```sh {linenos} names no file.
 */
export function fenceInfo(info: string): { language: string; path?: string } {
  const words = info.trim().split(/\s+/).filter((word) => word !== '');
  const [first = ''] = words;
  const colon = /^([\w+#.-]+):(.+)$/.exec(first);
  const language = (colon ? colon[1]! : first).slice(0, 30);
  const candidates = [...(colon ? [colon[2]!] : []), ...words.slice(1).map((word) => word.replace(/^(?:path|file)=/, '').replace(/^["']|["']$/g, ''))];
  const path = candidates.find((word) => /[/.]/.test(word) && !/^[{(]/.test(word) && word.length <= 300);
  return path ? { language, path } : { language };
}

/** A codicon as markup for the code head (a fixed name, never model text). */
function icon(name: string): string {
  return `<span class="codicon codicon-${name}" aria-hidden="true"></span>`;
}

export function renderMarkdown(text: string): string {
  return md.render(text);
}

/** What a click on a link in rendered markdown should do. */
export type LinkAction = { kind: 'file'; path: string; line?: number } | { kind: 'external' } | { kind: 'none' };

/**
 * http(s) and mailto links stay ordinary anchors: VS Code intercepts clicks on
 * them and opens them outside the webview. A relative link names a workspace
 * file (`src/app.ts`, `src/app.ts#L12`, `./src/app.ts:12`) and is opened by the
 * host. Anything else (an in-page `#anchor`) does nothing.
 */
export function linkAction(href: string): LinkAction {
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(href);
  if (scheme) return SAFE_SCHEMES.has(scheme[1]!.toLowerCase()) ? { kind: 'external' } : { kind: 'none' };
  if (href.startsWith('#') || href.startsWith('//')) return { kind: 'none' };
  let target = safeDecode(href).replace(/^\.\//, '');
  let line: number | undefined;
  const lineMatch = /(?:#L|:)(\d+)(?:[-:]L?\d+)?$/.exec(target);
  if (lineMatch) {
    line = Number(lineMatch[1]);
    target = target.slice(0, lineMatch.index);
  }
  target = target.replace(/[?#].*$/, '');
  if (!target) return { kind: 'none' };
  return line !== undefined ? { kind: 'file', path: target, line } : { kind: 'file', path: target };
}

function safeDecode(text: string): string {
  try {
    return decodeURI(text);
  } catch {
    return text;
  }
}
