/**
 * One line typed at the terminal, read in raw mode so that Crow decides
 * what is shown: the characters typed, or nothing at all (an API key).
 * Enter ends the line; Backspace and Ctrl-U edit it; Ctrl-C, or Ctrl-D on
 * an empty line, cancel. A paste that goes on past a line break is kept
 * whole (line break included), so the caller can refuse it instead of
 * taking its first line for the answer. Escape sequences (arrow keys) are
 * kept too, for the same reason.
 */

export type TypedLine = { text: string } | { cancelled: true };

export interface LineOptions {
  /** Show what is typed; false: show nothing (not even stars). */
  echo: boolean;
}

type RawInput = NodeJS.ReadStream & { setRawMode(mode: boolean): unknown };

export function readTerminalLine(input: NodeJS.ReadStream, output: NodeJS.WriteStream, options: LineOptions): Promise<TypedLine> {
  const raw = input as RawInput;
  return new Promise((resolve) => {
    let text = '';
    const finish = (answer: TypedLine): void => {
      input.off('data', onData);
      raw.setRawMode(false);
      input.pause();
      output.write('\r\n');
      resolve(answer);
    };
    const onData = (chunk: Buffer | string): void => {
      const typed = chunk.toString();
      for (let i = 0; i < typed.length; i += 1) {
        const char = typed[i]!;
        if (char === '\r' || char === '\n') {
          const rest = typed.slice(i + 1).replace(/^\n/, '');
          // More after the line's end in one chunk: a paste of several lines, kept whole to be refused.
          return finish({ text: rest === '' ? text : `${text}\n${rest}` });
        }
        if (char === '\u0003' || (char === '\u0004' && text === '')) return finish({ cancelled: true });
        if (char === '\u007f' || char === '\b') {
          if (text === '') continue;
          text = text.slice(0, -1);
          if (options.echo) output.write('\b \b');
          continue;
        }
        if (char === '\u0015') {
          if (options.echo) output.write('\b \b'.repeat(text.length));
          text = '';
          continue;
        }
        text += char;
        if (options.echo && char >= ' ' && char !== '\u007f') output.write(char);
      }
    };
    raw.setRawMode(true);
    input.on('data', onData);
    input.resume();
  });
}
