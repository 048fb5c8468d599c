/**
 * Markdown rendered for a terminal by marked with marked-terminal (headings,
 * emphasis, lists, tables, highlighted code). Built as its own file
 * (dist/markdown.js, see esbuild.mjs) and required only when a run writes to
 * a terminal: its highlighter's grammars would otherwise be parsed by every
 * start of crow, `crow acp` included.
 */
import { Marked, type MarkedExtension } from 'marked';
import { markedTerminal } from 'marked-terminal';
import type { MarkdownRender } from './markdown-stream';

/** A renderer for a terminal `width` columns wide. */
export function terminalMarkdown(width: number): MarkdownRender {
  const marked = new Marked(markedTerminal({ width, reflowText: true, tab: 2 }) as unknown as MarkedExtension, INLINE_IN_LIST_ITEMS);
  return (markdown) => marked.parse(markdown, { async: false });
}

/**
 * The text of a tight list item comes as a text token holding inline tokens
 * (bold, code, links); marked-terminal renders its raw text, asterisks and
 * all. Rendering the inline tokens instead, and leaving every other text
 * token to marked-terminal (returning false), fixes that.
 */
const INLINE_IN_LIST_ITEMS: MarkedExtension = {
  renderer: {
    text(token) {
      return 'tokens' in token && token.tokens ? this.parser.parseInline(token.tokens) : false;
    },
  },
};
