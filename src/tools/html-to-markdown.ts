/**
 * HTML → readable markdown (or plain text) for the model. A tolerant,
 * single-pass parser builds a shallow tree; a renderer keeps the structure a
 * reader needs (headings, lists, links, code, quotes, tables) and drops page
 * chrome. It never throws and works in roughly linear time: the tree depth,
 * and so every recursion, is capped.
 */

import { BLOCK, HEADINGS, type HtmlElement, type HtmlNode, parseHtml } from './html-parse';

export { decodeEntities } from './html-parse';

export type HtmlFormat = 'markdown' | 'text';

export interface ConvertedHtml {
  /** The document's <title>, when it has one. */
  title: string | undefined;
  text: string;
}

interface RenderContext {
  base: string | undefined;
  plain: boolean;
  /** How many lists and quotes enclose this node; indentation stops growing at MAX_INDENT_LEVELS. */
  nesting: number;
}

const MAX_INDENT_LEVELS = 8;

/** Page chrome and non-content, dropped with everything inside. */
const DROPPED = new Set(['head', 'nav', 'footer', 'svg', 'math', 'template', 'select', 'button', 'canvas', 'object', 'audio', 'video', 'map']);


/** Converts a page; relative links and images resolve against `baseUrl` (or the page's own <base href>). */
export function convertHtml(html: string, options: { baseUrl?: string; format?: HtmlFormat } = {}): ConvertedHtml {
  const parsed = parseHtml(html);
  const base = resolveUrl(parsed.baseHref, options.baseUrl) ?? options.baseUrl;
  const ctx: RenderContext = { base, plain: options.format === 'text', nesting: 0 };
  const content = contentRoot(parsed.root);
  const text = renderFlow(content.children, ctx) || (content === parsed.root ? '' : renderFlow(parsed.root.children, ctx));
  return { title: parsed.title, text };
}

// ---- choosing what to render ----

/** The page's <main> (or role=main), else its only <article>, else everything. */
function contentRoot(root: HtmlElement): HtmlElement {
  const articles: HtmlElement[] = [];
  const pending: HtmlElement[] = [root];
  while (pending.length > 0) {
    const element = pending.pop()!;
    if (element.tag === 'main' || element.attrs.role === 'main') return element;
    if (element.tag === 'article') articles.push(element);
    for (let i = element.children.length - 1; i >= 0; i--) {
      const child = element.children[i]!;
      if (typeof child !== 'string' && !isDropped(child)) pending.push(child);
    }
  }
  return articles.length === 1 ? articles[0]! : root;
}

function isDropped(element: HtmlElement): boolean {
  const { attrs } = element;
  return (
    DROPPED.has(element.tag) ||
    attrs.hidden !== undefined ||
    attrs['aria-hidden'] === 'true' ||
    /display\s*:\s*none/i.test(attrs.style ?? '')
  );
}

// ---- rendering ----

/** Renders mixed content: runs of inline nodes become paragraphs, block elements their own blocks. */
function renderFlow(nodes: HtmlNode[], ctx: RenderContext, separator = '\n\n'): string {
  const blocks: string[] = [];
  let inline = '';
  const flush = (): void => {
    const text = tidyInline(inline);
    if (text !== '') blocks.push(text);
    inline = '';
  };
  for (const node of nodes) {
    if (typeof node === 'string') inline += collapse(node);
    else if (isDropped(node)) continue;
    else if (BLOCK.has(node.tag)) {
      flush();
      const block = renderBlock(node, ctx);
      if (block !== '') blocks.push(block);
    } else inline += renderInline(node, ctx);
  }
  flush();
  return blocks.length === 1 ? blocks[0]! : blocks.join(separator);
}

function renderBlock(element: HtmlElement, ctx: RenderContext): string {
  const { tag } = element;
  if (HEADINGS.has(tag)) {
    const text = oneLine(inlineContent(element, ctx));
    return text === '' || ctx.plain ? text : `${'#'.repeat(Number(tag[1]))} ${text}`;
  }
  switch (tag) {
    case 'ul':
    case 'ol':
    case 'menu':
      return renderList(element, ctx);
    case 'li':
      return renderList({ tag: 'ul', attrs: {}, children: [element] }, ctx);
    case 'pre':
      return renderPre(element, ctx);
    case 'blockquote':
      return prefixLines(renderFlow(element.children, nested(ctx)), '> ', ctx);
    case 'table':
      return renderTable(element, ctx);
    case 'hr':
      return '---';
    default:
      return renderFlow(element.children, ctx);
  }
}

function renderInline(node: HtmlNode, ctx: RenderContext): string {
  if (typeof node === 'string') return collapse(node);
  if (isDropped(node)) return '';
  switch (node.tag) {
    case 'br':
      return '\n';
    case 'a':
      return renderLink(node, ctx);
    case 'img':
      return renderImage(node, ctx);
    case 'strong':
    case 'b':
      return ctx.plain ? inlineContent(node, ctx) : keepSpaces(inlineContent(node, ctx), (text) => `**${text}**`);
    case 'em':
    case 'i':
      return ctx.plain ? inlineContent(node, ctx) : keepSpaces(inlineContent(node, ctx), (text) => `*${text}*`);
    case 'code':
    case 'kbd':
    case 'samp':
    case 'tt':
      return ctx.plain ? inlineContent(node, ctx) : keepSpaces(inlineContent(node, ctx), codeSpan);
    default:
      return BLOCK.has(node.tag) ? ` ${inlineContent(node, ctx)} ` : inlineContent(node, ctx);
  }
}

function inlineContent(element: HtmlElement, ctx: RenderContext): string {
  return element.children.map((child) => renderInline(child, ctx)).join('');
}

function renderLink(element: HtmlElement, ctx: RenderContext): string {
  const text = inlineContent(element, ctx);
  const label = oneLine(text);
  const href = resolveUrl(element.attrs.href, ctx.base);
  if (label === '' || ctx.plain || href === undefined || element.attrs.href?.startsWith('#')) return text;
  return keepSpaces(text, () => `[${label}](${href})`);
}

function renderImage(element: HtmlElement, ctx: RenderContext): string {
  const alt = oneLine(element.attrs.alt ?? '');
  const src = resolveUrl(element.attrs.src, ctx.base);
  if (alt === '' || ctx.plain || src === undefined) return alt;
  return `![${alt}](${src})`;
}

function renderList(list: HtmlElement, ctx: RenderContext): string {
  const inner = nested(ctx);
  const start = Number.parseInt(list.attrs.start ?? '1', 10);
  let number = Number.isFinite(start) ? start : 1;
  const items: string[] = [];
  for (const child of list.children) {
    const isItem = typeof child !== 'string' && child.tag === 'li';
    const body = renderFlow(isItem ? child.children : [child], inner, '\n');
    if (body === '') continue;
    if (isItem) items.push(hangingIndent(list.tag === 'ol' ? `${number++}. ` : '- ', body, ctx));
    // Stray content between items (often a nested list outside its <li>) belongs to the item before.
    else items.push(items.length === 0 ? body : prefixLines(body, '  ', ctx));
  }
  return items.join('\n');
}

function hangingIndent(marker: string, body: string, ctx: RenderContext): string {
  const newline = body.indexOf('\n');
  if (newline === -1) return marker + body;
  return marker + body.slice(0, newline + 1) + prefixLines(body.slice(newline + 1), ' '.repeat(marker.length), ctx);
}

function renderPre(element: HtmlElement, ctx: RenderContext): string {
  const code = preText(element).replace(/^\r?\n/, '').trimEnd();
  if (code.trim() === '') return '';
  if (ctx.plain) return code;
  const fence = '`'.repeat(Math.max(3, longestRun(code, '`') + 1));
  return `${fence}${codeLanguage(element)}\n${code}\n${fence}`;
}

/** Text exactly as laid out; block children (one line each in some highlighters) end with a newline. */
function preText(element: HtmlElement): string {
  let text = '';
  for (const child of element.children) {
    if (typeof child === 'string') text += child;
    else if (child.tag === 'br') text += '\n';
    else if (!isDropped(child)) {
      text += preText(child);
      if (BLOCK.has(child.tag) && !text.endsWith('\n')) text += '\n';
    }
  }
  return text;
}

function codeLanguage(pre: HtmlElement): string {
  const code = pre.children.find((child): child is HtmlElement => typeof child !== 'string' && child.tag === 'code');
  const classes = `${pre.attrs.class ?? ''} ${code?.attrs.class ?? ''}`;
  return /(?:^|\s)lang(?:uage)?-([\w+#.-]+)/.exec(classes)?.[1] ?? pre.attrs['data-lang'] ?? '';
}

/** A data table as pipe rows; a layout table (one holding another table, or one column) as plain flow. */
function renderTable(table: HtmlElement, ctx: RenderContext): string {
  const rows = tableRows(table);
  const cells = rows.map((row) => row.children.filter((c): c is HtmlElement => typeof c !== 'string' && (c.tag === 'td' || c.tag === 'th')));
  if (cells.every((row) => row.length <= 1) || cells.some((row) => row.some(containsTable))) return renderFlow(table.children, ctx);
  const grid = cells
    .map((row) => row.map((cell) => tableCell(cell, ctx)))
    .filter((row) => row.some((text) => text !== ''));
  if (grid.length === 0) return '';
  const width = Math.max(...grid.map((row) => row.length));
  const lines = grid.map((row) => `| ${[...row, ...Array<string>(width - row.length).fill('')].join(' | ')} |`);
  if (!ctx.plain) lines.splice(1, 0, `|${' --- |'.repeat(width)}`);
  const caption = table.children.find((c): c is HtmlElement => typeof c !== 'string' && c.tag === 'caption');
  const title = caption ? oneLine(inlineContent(caption, ctx)) : '';
  return title === '' ? lines.join('\n') : `${title}\n\n${lines.join('\n')}`;
}

function tableCell(cell: HtmlElement, ctx: RenderContext): string {
  const text = oneLine(inlineContent(cell, ctx));
  return ctx.plain ? text : text.replace(/\|/g, '\\|');
}

function tableRows(table: HtmlElement): HtmlElement[] {
  const rows: HtmlElement[] = [];
  for (const child of table.children) {
    if (typeof child === 'string') continue;
    if (child.tag === 'tr') rows.push(child);
    else if (child.tag === 'thead' || child.tag === 'tbody' || child.tag === 'tfoot') {
      for (const row of child.children) if (typeof row !== 'string' && row.tag === 'tr') rows.push(row);
    }
  }
  return rows;
}

function containsTable(element: HtmlElement): boolean {
  return element.children.some((child) => typeof child !== 'string' && (child.tag === 'table' || containsTable(child)));
}

// ---- text helpers ----

function nested(ctx: RenderContext): RenderContext {
  return { ...ctx, nesting: ctx.nesting + 1 };
}

/** Prefixes every line; past MAX_INDENT_LEVELS deep content stays where it is, so deep nesting costs no more. */
function prefixLines(text: string, prefix: string, ctx: RenderContext): string {
  if (text === '' || ctx.nesting >= MAX_INDENT_LEVELS) return text;
  const bare = prefix.trimEnd();
  return text
    .split('\n')
    .map((line) => (line === '' ? bare : prefix + line))
    .join('\n');
}

/** Applies `wrap` to the trimmed text, keeping a space where the text had space around it. */
function keepSpaces(text: string, wrap: (core: string) => string): string {
  const core = text.trim();
  if (core === '') return text;
  return (/^\s/.test(text) ? ' ' : '') + wrap(core) + (/\s$/.test(text) ? ' ' : '');
}

function codeSpan(code: string): string {
  const ticks = '`'.repeat(longestRun(code, '`') + 1);
  return code.includes('`') ? `${ticks} ${code} ${ticks}` : `${ticks}${code}${ticks}`;
}

function collapse(text: string): string {
  return text.replace(/\s+/g, ' ');
}

function oneLine(text: string): string {
  return collapse(text).trim();
}

/** Trims the lines of an inline run and keeps at most one blank line between them. */
function tidyInline(text: string): string {
  return text
    .split('\n')
    .map((line) => line.replace(/ {2,}/g, ' ').trim())
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

function longestRun(text: string, char: string): number {
  let longest = 0;
  let current = 0;
  for (const c of text) {
    current = c === char ? current + 1 : 0;
    longest = Math.max(longest, current);
  }
  return longest;
}

/** An absolute http(s)/mailto URL, or undefined for fragments, script URLs and what cannot be resolved. */
function resolveUrl(href: string | undefined, base: string | undefined): string | undefined {
  const raw = href?.trim();
  if (!raw) return undefined;
  try {
    const url = new URL(raw, base);
    return ['http:', 'https:', 'mailto:', 'ftp:'].includes(url.protocol) ? url.href : undefined;
  } catch {
    return base === undefined && !/^[a-z][a-z0-9+.-]*:/i.test(raw) ? raw : undefined;
  }
}
