/**
 * Markdown rendered for a terminal while it streams, line by line: a line
 * is rendered and written as soon as it ends; the line still arriving is
 * shown raw and, once it ends, erased and written again rendered, in place.
 * Code blocks go line by line too, each line highlighted; a table is shown
 * raw row by row and redrawn whole once it ends (a table's columns need all
 * of its rows). Only the raw text is ever erased, and only as far up as the
 * screen reaches: what does not fit stays raw rather than be redrawn wrong.
 * The rendering itself is terminal-markdown.ts (marked with marked-terminal).
 */
export type MarkdownRender = ((markdown: string) => string) & {
  /** The language of code in a fence that names none; undefined while it cannot tell. */
  language?: (code: string) => string | undefined;
};

/** A fence without a language: its language is guessed from up to this many of its first lines, then kept. */
const GUESS_LINES = 5;

/** The terminal the text is drawn on, read at each redraw (it may be resized). */
export interface MarkdownScreen {
  columns(): number;
  rows(): number;
}

/** A fence line: its marker (``` or ~~~, three or more) and the info string's language. */
const FENCE = /^\s{0,3}(`{3,}|~{3,})\s*([^\s`]*)/;
/** A table row, as models write them: it starts with a pipe. */
const TABLE_ROW = /^\s{0,3}\|/;
/** An ordered list item: its number, kept (rendered alone, marked would number it 1). */
const ORDERED_ITEM = /^(\d{1,9})[.)](\s+)/;

export class MarkdownStream {
  /** The line still arriving, as received. */
  private open = '';
  /** Raw text on screen that will be replaced: whole table rows, then the open line's text (sanitized as shown). */
  private readonly shown = { rows: [] as string[], open: '' };
  /** The open line was too tall to be redrawn: it stays raw, and its end only ends the line. */
  private stuck = false;
  /** The open code fence: its marker, its language, and for a fence without one, the lines it is guessed from. */
  private fence: { marker: string; language: string; sample?: string[] } | undefined;
  private table: string[] = [];
  /** The table grew taller than the screen: its rows stay raw, as shown. */
  private tableStuck = false;
  private blank = true;

  /** Without `screen` (a terminal that does not take cursor moves), a line shows once it has ended. */
  constructor(
    private readonly write: (text: string) => void,
    private readonly render: MarkdownRender,
    private readonly screen?: MarkdownScreen,
  ) {}

  push(delta: string): void {
    let rest = delta;
    for (let end = rest.indexOf('\n'); end >= 0; end = rest.indexOf('\n')) {
      const piece = rest.slice(0, end);
      rest = rest.slice(end + 1);
      // A line that stays raw gets its last piece raw too.
      if (this.stuck) this.write(sanitize(piece));
      this.endLine(this.open + piece);
    }
    if (rest === '') return;
    this.open += rest;
    this.showOpen(rest);
  }

  /**
   * The text ended (or something else is about to be shown): the open line
   * counts as ended, a table is drawn, and a blank line sets the text apart
   * from what comes next.
   */
  flush(): void {
    if (this.open !== '' || this.shown.open !== '') this.endLine(this.open);
    this.endTable();
    if (!this.blank) this.write('\n');
    this.fence = undefined;
    this.blank = true;
  }

  /**
   * Something else moved the cursor (the terminal echoed a line typed): the
   * raw text on screen can no longer be found to be erased, so it stays, and
   * the open line goes on raw.
   */
  detach(): void {
    if (this.shown.open !== '') this.stuck = true;
    this.shown.open = '';
    this.stickTable();
  }

  private endLine(line: string): void {
    this.open = '';
    const wasStuck = this.stuck;
    this.stuck = false;
    const text = sanitize(line);
    if (wasStuck) {
      // Shown raw already and cannot be redrawn: the line only ends (a fence it opens or closes still counts).
      this.write('\n');
      if (this.fence) this.fence = closes(this.fence, text) ? undefined : this.fence;
      else if (!TABLE_ROW.test(text)) {
        this.endTable();
        const fence = FENCE.exec(text);
        if (fence) this.fence = { marker: fence[1]!, language: fence[2] ?? '' };
      }
      return;
    }
    this.eraseOpen();
    if (this.fence) return this.codeLine(text);
    if (TABLE_ROW.test(text)) return this.tableRow(text);
    this.endTable();
    const fence = FENCE.exec(text);
    if (fence) {
      const language = fence[2] ?? '';
      this.fence = { marker: fence[1]!, language, ...(language === '' && this.render.language ? { sample: [] } : {}) };
      return;
    }
    if (text.trim() === '') {
      // Blank lines mirror the source's, but never two in a row (markdown folds them too).
      if (!this.blank) this.write('\n');
      this.blank = true;
      return;
    }
    const rendered = this.renderLine(text);
    if (rendered !== '') this.write(`${rendered}\n`);
    this.blank = false;
  }

  private codeLine(text: string): void {
    const fence = this.fence!;
    if (closes(fence, text)) {
      this.fence = undefined;
      return;
    }
    this.blank = false;
    if (text.trim() === '') return this.write('\n');
    if (fence.sample) this.guess(fence, text);
    const rendered = trimNewlines(this.render(`${fence.marker}${fence.language || 'plaintext'}\n${text}\n${fence.marker}`));
    this.write(`${rendered}\n`);
  }

  /** Guesses the language of a fence that names none from its first lines; after GUESS_LINES, what it has stays. */
  private guess(fence: { language: string; sample?: string[] }, text: string): void {
    const sample = fence.sample!;
    sample.push(text);
    fence.language = this.render.language!(sample.join('\n')) ?? '';
    if (fence.language !== '' || sample.length >= GUESS_LINES) delete fence.sample;
  }

  /** A table row: shown raw until the table ends, then the table is drawn in its place. */
  private tableRow(text: string): void {
    this.table.push(text);
    this.blank = false;
    if (!this.screen) return;
    const row = `${text}\n`;
    this.write(row);
    if (this.tableStuck) return;
    this.shown.rows.push(row);
    // Taller than the screen could be erased: the rows stay raw, as shown.
    if (this.rowsOf(this.shown.rows, '') >= this.screen.rows() - 1) this.stickTable();
  }

  private stickTable(): void {
    this.tableStuck = this.table.length > 0;
    this.shown.rows = [];
  }

  private endTable(): void {
    const rows = this.table;
    const stuck = this.tableStuck;
    this.table = [];
    this.tableStuck = false;
    if (rows.length === 0 || stuck) return;
    if (this.shown.rows.length > 0) this.write(this.eraseCode(this.rowsOf(this.shown.rows, '')));
    this.shown.rows = [];
    this.write(`${trimNewlines(this.render(rows.join('\n')))}\n`);
    this.blank = false;
  }

  /** A line of markdown, rendered alone: its indentation kept (nesting), an ordered item's number kept. */
  private renderLine(text: string): string {
    const indent = /^\s*/.exec(text)![0].replace(/\t/g, '    ');
    const body = text.trimStart();
    const ordered = ORDERED_ITEM.exec(body);
    const source = ordered ? `1.${ordered[2]}${body.slice(ordered[0].length)}` : body;
    let rendered = trimNewlines(this.render(source));
    if (ordered) rendered = rendered.replace('1.', `${ordered[1]}.`);
    return indent === '' ? rendered : rendered.split('\n').map((line) => `${indent}${line}`).join('\n');
  }

  /** Writes more of the open line, raw, while it fits on the screen; past that it stays as shown. */
  private showOpen(piece: string): void {
    if (!this.screen) return;
    const text = sanitize(piece);
    if (this.stuck) {
      this.write(text);
      return;
    }
    if (this.rowsOf(this.shown.rows, this.shown.open + text) >= this.screen.rows() - 1) {
      // Too tall to be erased later: from here on it is plain text (and so is a table above it).
      this.stuck = true;
      this.shown.open = '';
      this.stickTable();
      this.write(text);
      return;
    }
    this.shown.open += text;
    this.write(text);
  }

  private eraseOpen(): void {
    if (this.shown.open === '') return;
    this.write(this.eraseCode(this.rowsOf([], this.shown.open) - 1));
    this.shown.open = '';
  }

  /** To the start of the row `up` rows above the cursor's, and everything from there on erased. */
  private eraseCode(up: number): string {
    return `\r${up > 0 ? `\x1b[${up}A` : ''}\x1b[J`;
  }

  /** The screen rows whole `lines` (each ended by a line break) and then `open` take, counted to the cursor's row. */
  private rowsOf(lines: readonly string[], open: string): number {
    const columns = Math.max(1, this.screen?.columns() ?? 80);
    const rowsOfText = (text: string): number => Math.max(1, Math.ceil(columnsOf(text) / columns));
    return lines.reduce((sum, line) => sum + rowsOfText(line.replace(/\n$/, '')), 0) + (open === '' ? 0 : rowsOfText(open));
  }
}

/** Whether `text` closes the code block `fence` opened: the same marker, at least as long, and nothing after it. */
function closes(fence: { marker: string }, text: string): boolean {
  const close = FENCE.exec(text);
  return close !== null && close[1]![0] === fence.marker[0] && close[1]!.length >= fence.marker.length && close[2] === '';
}

/** Model text as it may reach a terminal: no control characters (no escape sequences, no carriage returns), tabs as spaces. */
function sanitize(text: string): string {
  return text.replace(/\t/g, '    ').replace(/[\x00-\x08\x0b-\x1f\x7f-\x9f]/g, '');
}

/** Rendered markdown without the blank lines marked puts around a block: the source's own blank lines stand for them. */
function trimNewlines(text: string): string {
  // Blank lines inside the closing style escapes (a heading's) go too; the escapes stay.
  return text.replace(/^\n+/, '').replace(/\s+((?:\x1b\[[0-9;]*m)*)\s*$/, '$1');
}

/** Wide characters: East Asian wide and fullwidth forms, and emoji, take two columns. */
const WIDE =
  /[\u1100-\u115F\u2E80-\u303E\u3041-\u33FF\u3400-\u4DBF\u4E00-\u9FFF\uA000-\uA4CF\uAC00-\uD7A3\uF900-\uFAFF\uFE30-\uFE4F\uFF00-\uFF60\uFFE0-\uFFE6\u{1F300}-\u{1F64F}\u{1F900}-\u{1F9FF}\u{1FA70}-\u{1FAFF}\u{20000}-\u{3FFFD}]/u;
/** Characters that take no column: combining marks, zero-width spaces and joiners, variation selectors. */
const ZERO_WIDTH = /[\p{M}\u200B-\u200F\u2060\uFE00-\uFE0F]/u;

/** How many terminal columns plain text (no escapes) takes. */
export function columnsOf(text: string): number {
  let columns = 0;
  for (const char of text) columns += ZERO_WIDTH.test(char) ? 0 : WIDE.test(char) ? 2 : 1;
  return columns;
}
