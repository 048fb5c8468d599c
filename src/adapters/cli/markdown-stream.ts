/**
 * Markdown rendered for a terminal while it streams: a block (paragraph,
 * list, code block, table) is written once it is complete, that is at a
 * blank line outside a code fence, and whatever is left when the text ends.
 * The rendering itself is terminal-markdown.ts (marked with marked-terminal);
 * nothing here parses markdown beyond finding block ends.
 */
export type MarkdownRender = (markdown: string) => string;

export class MarkdownStream {
  private pending = '';

  constructor(
    private readonly write: (text: string) => void,
    private readonly render: MarkdownRender,
  ) {}

  push(delta: string): void {
    this.pending += delta;
    const end = lastBlockEnd(this.pending);
    if (end === 0) return;
    this.write(this.render(this.pending.slice(0, end)));
    this.pending = this.pending.slice(end);
  }

  /** Writes what is left: the text ended (or something else is about to be shown). */
  flush(): void {
    const rest = this.pending;
    this.pending = '';
    if (rest.trim() !== '') this.write(this.render(rest));
  }
}

/** The offset just after the last blank line that ends a block (outside a fenced code block); 0 when there is none. */
export function lastBlockEnd(text: string): number {
  let end = 0;
  let fence: string | undefined;
  let offset = 0;
  let previousBlank = false;
  const lines = text.split('\n');
  // The last piece has no line break after it yet: it may still grow.
  for (const line of lines.slice(0, -1)) {
    offset += line.length + 1;
    const marker = /^\s{0,3}(`{3,}|~{3,})/.exec(line)?.[1];
    if (marker && (fence === undefined || (marker[0] === fence[0] && marker.length >= fence.length))) {
      fence = fence === undefined ? marker : undefined;
      previousBlank = false;
      continue;
    }
    const blank = line.trim() === '';
    if (blank && fence === undefined && !previousBlank && offset > 1) end = offset;
    previousBlank = blank;
  }
  return end;
}
