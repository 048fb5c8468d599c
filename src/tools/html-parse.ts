/**
 * A tolerant, single-pass HTML parser for html-to-markdown: it builds a
 * shallow tree (depth capped, so every later recursion is bounded), closes
 * elements the way browsers imply, decodes entities, and never throws.
 */

export interface HtmlElement {
  tag: string;
  attrs: Record<string, string>;
  children: HtmlNode[];
}
export type HtmlNode = HtmlElement | string;

export interface ParsedHtml {
  root: HtmlElement;
  title: string | undefined;
  baseHref: string | undefined;
}

/** Elements nested deeper than this are unwrapped into their ancestor. */
export const MAX_DEPTH = 200;

const VOID = new Set(['area', 'base', 'br', 'col', 'embed', 'hr', 'img', 'input', 'link', 'meta', 'param', 'source', 'track', 'wbr']);
/** Elements whose content is not markup; all but <title> are dropped with it. */
const RAW_TEXT = new Set(['script', 'style', 'noscript', 'textarea', 'iframe', 'noembed', 'noframes', 'title']);
export const HEADINGS = new Set(['h1', 'h2', 'h3', 'h4', 'h5', 'h6']);

/** Elements that form their own block (and close an open paragraph). */
export const BLOCK = new Set([
  ...HEADINGS, 'address', 'article', 'aside', 'blockquote', 'body', 'caption', 'center', 'dd', 'details', 'dialog', 'div', 'dl', 'dt',
  'fieldset', 'figcaption', 'figure', 'footer', 'form', 'header', 'hgroup', 'hr', 'html', 'li', 'main', 'menu', 'nav', 'ol', 'p', 'pre',
  'section', 'summary', 'table', 'tbody', 'td', 'tfoot', 'th', 'thead', 'tr', 'ul',
]);

/** Opening an element closes an open one of `closes`, unless one of `within` is met first. */
interface ImpliedClose {
  closes: ReadonlySet<string>;
  within: ReadonlySet<string>;
}
const implied = (closes: string[], within: string[]): ImpliedClose => ({ closes: new Set(closes), within: new Set(within) });
const LIST_ITEM = implied(['li'], ['ul', 'ol', 'menu']);
const DEFINITION = implied(['dt', 'dd'], ['dl']);
const CELL = implied(['td', 'th'], ['tr', 'table']);
const SECTION = implied(['thead', 'tbody', 'tfoot'], ['table']);
const IMPLIED_CLOSE: Record<string, ImpliedClose> = {
  li: LIST_ITEM,
  dt: DEFINITION,
  dd: DEFINITION,
  tr: implied(['tr', 'td', 'th'], ['table', 'thead', 'tbody', 'tfoot']),
  td: CELL,
  th: CELL,
  thead: SECTION,
  tbody: SECTION,
  tfoot: SECTION,
  option: implied(['option'], ['select', 'datalist', 'optgroup']),
};
const CLOSES_PARAGRAPH = implied(['p'], ['button', 'table', 'td', 'th', 'caption']);
/** What may stay inside <head>; anything else means the page forgot to close it. */
const HEAD_CONTENT = new Set(['meta', 'link', 'base', 'title', 'style', 'script', 'noscript', 'template']);

const NAMED_ENTITIES: Record<string, string> = {
  amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: '\u00a0', copy: '©', reg: '®', trade: '™', hellip: '…', mdash: '—',
  ndash: '–', lsquo: '‘', rsquo: '’', sbquo: '‚', ldquo: '“', rdquo: '”', bdquo: '„', laquo: '«', raquo: '»', bull: '•',
  middot: '·', deg: '°', plusmn: '±', times: '×', divide: '÷', minus: '−', le: '≤', ge: '≥', ne: '≠', asymp: '≈', euro: '€',
  pound: '£', yen: '¥', cent: '¢', sect: '§', para: '¶', dagger: '†', shy: '\u00ad', zwj: '\u200d', zwnj: '\u200c',
  ensp: '\u2002', emsp: '\u2003', thinsp: '\u2009', larr: '←', rarr: '→', uarr: '↑', darr: '↓', harr: '↔', rArr: '⇒',
  lArr: '⇐', frac12: '½', frac14: '¼', frac34: '¾', sup2: '²', sup3: '³', micro: 'µ', iexcl: '¡', iquest: '¿', check: '✓',
};
const ENTITY = /&(?:#(\d+);?|#[xX]([0-9a-fA-F]+);?|([A-Za-z][A-Za-z0-9]{1,31});)/g;

export function decodeEntities(text: string): string {
  if (!text.includes('&')) return text;
  return text.replace(ENTITY, (match, dec: string | undefined, hex: string | undefined, name: string | undefined) => {
    if (name !== undefined) return NAMED_ENTITIES[name] ?? match;
    const code = dec !== undefined ? Number.parseInt(dec, 10) : Number.parseInt(hex ?? '', 16);
    const valid = code > 0 && code <= 0x10ffff && (code < 0xd800 || code > 0xdfff);
    return valid ? String.fromCodePoint(code) : '\ufffd';
  });
}


export function parseHtml(html: string): ParsedHtml {
  const doc: ParsedHtml = { root: { tag: '#root', attrs: {}, children: [] }, title: undefined, baseHref: undefined };
  const stack: HtmlElement[] = [doc.root];
  const addText = (from: number, to: number): void => {
    if (to > from) stack[stack.length - 1]!.children.push(decodeEntities(html.slice(from, to)));
  };
  let textStart = 0;
  let lt = html.indexOf('<');
  while (lt !== -1) {
    if (MARKUP_START.test(html.slice(lt, lt + 3))) {
      addText(textStart, lt);
      textStart = readMarkup(html, lt, stack, doc);
    }
    lt = html.indexOf('<', Math.max(lt + 1, textStart));
  }
  addText(textStart, html.length);
  return doc;
}

/** A "<" that opens a tag, end tag, comment or declaration; any other "<" is text. */
const MARKUP_START = /^<(?:[a-zA-Z!?]|\/[a-zA-Z])/;

/** Consumes the markup starting at `lt` and returns where text resumes. */
function readMarkup(html: string, lt: number, stack: HtmlElement[], doc: ParsedHtml): number {
  const next = html[lt + 1];
  if (html.startsWith('<!--', lt)) return skipPast(html, '-->', lt + 4);
  if (next === '!' || next === '?') return skipPast(html, '>', lt + 2);
  if (next === '/') {
    const name = tagName(html, lt + 2);
    closeElement(stack, name.toLowerCase());
    return skipPast(html, '>', lt + 2 + name.length);
  }
  const tag = readTag(html, lt + 1);
  if (RAW_TEXT.has(tag.name)) return readRawText(html, tag.end, tag.name, stack, doc);
  if (tag.name === 'base' && doc.baseHref === undefined) doc.baseHref = tag.attrs.href;
  openElement(stack, { tag: tag.name, attrs: tag.attrs, children: [] }, tag.selfClosing);
  return tag.end;
}

function skipPast(html: string, marker: string, from: number): number {
  const at = html.indexOf(marker, from);
  return at === -1 ? html.length : at + marker.length;
}

const TAG_NAME = /[a-zA-Z][^\s/>]*/y;
const ATTRIBUTE = /([^\s"'>/=]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+)))?/y;

function tagName(html: string, from: number): string {
  TAG_NAME.lastIndex = from;
  return TAG_NAME.exec(html)?.[0] ?? '';
}

function readTag(html: string, from: number): { name: string; attrs: Record<string, string>; selfClosing: boolean; end: number } {
  const rawName = tagName(html, from);
  const attrs: Record<string, string> = {};
  let i = from + rawName.length;
  while (i < html.length && html[i] !== '>') {
    if (/[\s/]/.test(html[i]!)) {
      i++;
      continue;
    }
    ATTRIBUTE.lastIndex = i;
    const match = ATTRIBUTE.exec(html);
    if (!match) {
      i++;
      continue;
    }
    const name = match[1]!.toLowerCase();
    attrs[name] ??= decodeEntities(match[2] ?? match[3] ?? match[4] ?? '');
    i = ATTRIBUTE.lastIndex;
  }
  return { name: rawName.toLowerCase(), attrs, selfClosing: html[i - 1] === '/', end: Math.min(i + 1, html.length) };
}

/** Skips a raw-text element's content up to its end tag, keeping only the first <title>. */
function readRawText(html: string, from: number, name: string, stack: HtmlElement[], doc: ParsedHtml): number {
  const endTag = new RegExp(`</${name}(?=[\\s/>]|$)`, 'ig');
  endTag.lastIndex = from;
  const end = endTag.exec(html)?.index ?? html.length;
  const inSvg = stack.some((element) => element.tag === 'svg');
  if (name === 'title' && doc.title === undefined && !inSvg) {
    doc.title = decodeEntities(html.slice(from, end)).replace(/\s+/g, ' ').trim() || undefined;
  }
  return end === html.length ? end : skipPast(html, '>', end);
}

function openElement(stack: HtmlElement[], element: HtmlElement, selfClosing: boolean): void {
  const isVoid = VOID.has(element.tag) || selfClosing;
  if (!isVoid && stack.length >= MAX_DEPTH) return;
  if (stack[stack.length - 1]!.tag === 'head' && !HEAD_CONTENT.has(element.tag)) stack.pop();
  const rule = IMPLIED_CLOSE[element.tag];
  if (rule) closeImplied(stack, rule);
  if (BLOCK.has(element.tag)) closeImplied(stack, CLOSES_PARAGRAPH);
  stack[stack.length - 1]!.children.push(element);
  if (!isVoid) stack.push(element);
}

/** Closes the outermost open element of `rule.closes` that no `rule.within` element separates from the top. */
function closeImplied(stack: HtmlElement[], rule: ImpliedClose): void {
  let cut = -1;
  for (let i = stack.length - 1; i > 0 && !rule.within.has(stack[i]!.tag); i--) {
    if (rule.closes.has(stack[i]!.tag)) cut = i;
  }
  if (cut > 0) stack.length = cut;
}

function closeElement(stack: HtmlElement[], tag: string): void {
  for (let i = stack.length - 1; i > 0; i--) {
    if (stack[i]!.tag === tag) {
      stack.length = i;
      return;
    }
  }
}
