/**
 * The end of a growing output as a person reads it on a screen: the last
 * lines, plain text. Escape sequences (colours, cursor moves, window titles)
 * and other control characters are removed, so no door can be steered by a
 * command's output; a carriage return starts its line over, as a terminal
 * shows a progress bar.
 */

/** Lines a tail keeps by default. */
export const TAIL_LINES = 40;
/** Characters a tail holds at most by default (whole lines first; a longer last line keeps its end). */
export const TAIL_CHARS = 4_000;

/** OSC (title, hyperlink), CSI (colour, cursor; also as the 8-bit CSI), then any other escape (charset, reset). */
const ESCAPES = /\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b\[[0-?]*[ -/]*[@-~]?|\x9b[0-?]*[ -/]*[@-~]?|\x1b[ -/]*[0-~]?/g;
/** C0 and C1 controls but tab, and DEL. */
const CONTROLS = /[\x00-\x08\x0a-\x1f\x7f-\x9f]/g;

/** The cursor to the first column (CHA: `ESC[G`, `ESC[1G`), which npm's spinner and other progress lines redraw with: read as a carriage return. */
const TO_FIRST_COLUMN = /(?:\x1b\[|\x9b)[01]?G/g;
/** Erasing the whole line (`ESC[2K`). */
const ERASE_LINE = /(?:\x1b\[|\x9b)2K/g;
/** Erasing from the cursor to the line's end (`ESC[K`, `ESC[0K`): the whole line when the cursor is at its start. */
const ERASE_TO_END = /(?:\x1b\[|\x9b)0?K/g;

/** One raw line (without its newline) as a terminal would end up showing it. */
export function plainLine(raw: string): string {
  // Marks made of controls terminals never show: NUL erases what came before (even at the line's end, unlike a
  // carriage return), SOH erases only right after a carriage return.
  const cleaned = raw
    .replace(/[\0\x01]/g, '')
    .replace(TO_FIRST_COLUMN, '\r')
    .replace(ERASE_LINE, '\0')
    .replace(ERASE_TO_END, '\x01')
    .replace(ESCAPES, '')
    .replace(/\r\x01/g, '\r\0');
  const line = cleaned.replace(/\r+$/, '');
  const start = Math.max(line.lastIndexOf('\r'), line.lastIndexOf('\0'));
  return (start >= 0 ? line.slice(start + 1) : line).replace(CONTROLS, '');
}

/** A whole output as a terminal would end up showing it, line by line (see plainLine); for a person's eyes, never the model's. */
export function screenText(raw: string): string {
  return raw.split('\n').map(plainLine).join('\n');
}

export class OutputTail {
  private readonly finished: string[] = [];
  /** The line being written, raw (an escape sequence may be cut across chunks). */
  private current = '';
  private count = 0;

  constructor(
    private readonly maxLines = TAIL_LINES,
    private readonly maxChars = TAIL_CHARS,
  ) {}

  push(chunk: string): void {
    const parts = (this.current + chunk).split('\n');
    this.current = parts.pop() ?? '';
    for (const raw of parts) {
      this.count += 1;
      this.finished.push(plainLine(raw));
      if (this.finished.length > this.maxLines) this.finished.shift();
    }
    // A line without end (dots, a spinner) keeps its last stretch; what a carriage return cleared goes first.
    if (this.current.length > 4 * this.maxChars) {
      const lastReturn = this.current.lastIndexOf('\r', this.current.length - 2);
      this.current = this.current.slice(Math.max(lastReturn + 1, this.current.length - 2 * this.maxChars));
    }
  }

  /** Lines seen so far, the unfinished last one included. */
  get lines(): number {
    return this.count + (this.current === '' ? 0 : 1);
  }

  /** The last lines (at most maxLines and maxChars), joined with newlines; '' before any output. */
  text(): string {
    const lines = this.current === '' ? [...this.finished] : [...this.finished, plainLine(this.current)];
    if (lines.length > this.maxLines) lines.shift();
    let size = lines.reduce((sum, line) => sum + line.length + 1, -1);
    while (lines.length > 1 && size > this.maxChars) size -= lines.shift()!.length + 1;
    const text = lines.join('\n');
    return text.length > this.maxChars ? `…${text.slice(text.length - this.maxChars + 1)}` : text;
  }
}
