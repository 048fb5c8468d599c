/**
 * Markdown rendered for a terminal by marked with marked-terminal (headings,
 * emphasis, lists, tables, highlighted code). Built as its own file
 * (dist/markdown.js, see esbuild.mjs) and required only when a run writes to
 * a terminal: its highlighter's grammars would otherwise be parsed by every
 * start of crow, `crow acp` included.
 */
// highlight.js's own selection of common languages (37, with their aliases), not all 190: the build gives
// marked-terminal's highlighter (cli-highlight) this same instance (see esbuild.mjs), so loading this file
// evaluates 37 grammars instead of every one (about 60 ms of a terminal run's start). A fence naming
// another language shows as plain code.
import hljs from 'highlight.js/lib/common';
import { Marked, type MarkedExtension } from 'marked';
import { markedTerminal } from 'marked-terminal';
import type { MarkdownRender } from './markdown-stream';

/** A renderer for a terminal `width` columns wide; it guesses the language of a code block that names none. */
export function terminalMarkdown(width: number): MarkdownRender {
  const marked = new Marked(markedTerminal({ width, reflowText: true, tab: 2 }) as unknown as MarkedExtension, INLINE_IN_LIST_ITEMS);
  return Object.assign((markdown: string) => marked.parse(markdown, { async: false }), { language: guessLanguage });
}

/** What a fence that names no language is guessed among. */
const GUESSED = ['bash', 'c', 'cpp', 'css', 'diff', 'go', 'java', 'javascript', 'json', 'python', 'rust', 'sql', 'typescript', 'xml', 'yaml'];

/**
 * The language code without a fence language most likely is, among the
 * common ones; undefined while it is too short to tell. A code block
 * streams line by line, and guessing among every grammar costs some 30 ms
 * a line, so it is guessed among these, once it can be.
 */
export function guessLanguage(code: string): string | undefined {
  const guess = hljs.highlightAuto(code, GUESSED);
  // Short code reads as several languages alike: only a clear lead counts.
  return guess.relevance >= 3 && guess.relevance > (guess.secondBest?.relevance ?? 0) ? guess.language : undefined;
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
