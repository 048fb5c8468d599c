/** One line of a markdown file, with whether it is code or an HTML comment (whose content is not document text). */
export interface MarkdownLine {
  /** 1-based. */
  number: number;
  /** Without its line ending (a byte-order mark on the first line is dropped). */
  text: string;
  /** Inside a fenced code block, fences included. */
  inCode: boolean;
  /** Inside an HTML comment, or a line that opens one. */
  inComment: boolean;
}

const FENCE = /^\s{0,3}(`{3,}|~{3,})/;

/** The lines of `text` (LF or CRLF), in order. */
export function markdownLines(text: string): MarkdownLine[] {
  const lines: MarkdownLine[] = [];
  let fence: string | undefined;
  let comment = false;
  text
    .replace(/^\uFEFF/, '')
    .split(/\r?\n/)
    .forEach((line, i) => {
      const opener = FENCE.exec(line)?.[1];
      if (!comment && fence === undefined && opener !== undefined) {
        fence = opener;
        lines.push({ number: i + 1, text: line, inCode: true, inComment: false });
        return;
      }
      if (fence !== undefined) {
        if (opener !== undefined && opener[0] === fence[0] && opener.length >= fence.length && line.trim() === opener) fence = undefined;
        lines.push({ number: i + 1, text: line, inCode: true, inComment: false });
        return;
      }
      const inComment = comment || line.trimStart().startsWith('<!--');
      const opened = line.lastIndexOf('<!--');
      const closed = line.lastIndexOf('-->');
      if (opened > closed) comment = true;
      else if (closed >= 0) comment = false;
      lines.push({ number: i + 1, text: line, inCode: false, inComment });
    });
  return lines;
}
