/**
 * The text side of running a command in a terminal: the command line sent
 * to the shell, and the terminal's raw output turned back into the plain
 * text a child process would have printed.
 */

/**
 * The shell function that runs the agent's commands in a Crow terminal.
 * The terminal's bash imports it from its environment (bash's exported
 * functions), so the line typed for a command is just `crow-run 'COMMAND'`:
 * the person reads the command as the agent wrote it, not the wrapper.
 * Where it runs and the words before it (the ones that scrub its
 * environment and put it in the sandbox, see inheritingCommandLine) come
 * from the terminal's words file, which runWords() fills before each line.
 * The command runs in a `bash -c` of its own, so `exit`, `set -e` or a stray
 * `cd` cannot break the terminal, with stdin from /dev/null as the
 * child-process route has it (a prompt for input fails instead of
 * hanging), and neither the function nor the file's name reach it. The
 * line ends by printing its exit status as an escape sequence terminals do
 * not show (see ExitStatusScanner).
 */
export const TERMINAL_RUNNER = 'crow-run';
/** A private OSC number: terminals ignore OSC sequences they do not know. */
const EXIT_OSC = 7767;
/** Names the words file in the terminal's environment. */
const WORDS_VARIABLE = 'CROW_RUN_WORDS';
const RUNNER_FUNCTION = `BASH_FUNC_${TERMINAL_RUNNER}%%`;
// Plain bash 3.2 (macOS's) syntax: read -d '' splits the NUL-separated words.
const RUNNER_BODY =
  `() { local crow_words=() crow_word; ` +
  `while IFS= read -r -d '' crow_word; do crow_words+=("$crow_word"); done < "$${WORDS_VARIABLE}"; ` +
  `cd -- "\${crow_words[0]}" && env -u '${RUNNER_FUNCTION}' -u ${WORDS_VARIABLE} "\${crow_words[@]:1}" bash -c "$1" </dev/null; ` +
  `printf '\\033]${EXIT_OSC};%d\\007' $?; }`;

/** What a Crow terminal's environment adds so that lines from terminalCommandLine run; `wordsFile` is the terminal's own. */
export function terminalRunnerEnvironment(wordsFile: string): Record<string, string> {
  return { [RUNNER_FUNCTION]: RUNNER_BODY, [WORDS_VARIABLE]: wordsFile };
}

/** The words file's content for the next command: its working folder, then the words before `bash -c`. */
export function runWords(cwd: string, prefix: readonly string[] = []): string {
  return [cwd, ...prefix].map((word) => `${word}\0`).join('');
}

/** The line typed into the Crow terminal for `command`, on one line whatever it holds. */
export function terminalCommandLine(command: string): string {
  const plain = !/['\x00-\x1f\x7f]/.test(command);
  return `${TERMINAL_RUNNER} ${plain ? `'${command}'` : ansiCQuoted(command)}`;
}

const EXIT_SEQUENCE = new RegExp(`\x1b\\]${EXIT_OSC};(\\d+)\x07`);
/** Longest text kept between chunks so a sequence split across two is still found. */
const EXIT_SEQUENCE_MAX = 24;

/**
 * Finds the exit status the command line prints in the terminal's raw
 * output. VS Code's end-of-execution event carries the status too, but
 * it is sometimes paired with the wrong execution or not sent at all;
 * the command's own output is a second witness that does not depend on it.
 */
export class ExitStatusScanner {
  private tail = '';

  /** The status once the sequence has gone by in `data` (or straddles the previous chunk). */
  push(data: string): number | undefined {
    const text = this.tail + data;
    const match = EXIT_SEQUENCE.exec(text);
    this.tail = match ? '' : text.slice(-EXIT_SEQUENCE_MAX);
    return match ? Number(match[1]) : undefined;
  }
}

/** `$'…'` quoting: control characters as escapes; history expansion leaves such strings alone. */
export function ansiCQuoted(text: string): string {
  let quoted = '';
  for (const char of text) {
    const code = char.codePointAt(0)!;
    if (char === '\\' || char === "'") quoted += `\\${char}`;
    else if (char === '\n') quoted += '\\n';
    else if (char === '\t') quoted += '\\t';
    else if (char === '\r') quoted += '\\r';
    else if (code < 0x20 || code === 0x7f) quoted += `\\x${code.toString(16).padStart(2, '0')}`;
    else quoted += char;
  }
  return `$'${quoted}'`;
}

type EscapeState = 'text' | 'escape' | 'csi' | 'osc' | 'osc-escape' | 'designator';

const ESC = '\x1b';
const BEL = '\x07';

/**
 * Turns a terminal's output stream into plain text, chunk by chunk: escape
 * sequences (colours, cursor moves, shell-integration marks) are dropped,
 * CRLF becomes LF, and a carriage return that rewrites a line (progress
 * bars) keeps only what the line finally shows. Text comes out a whole line
 * at a time; `end()` gives the last, unfinished line.
 */
export class TerminalTextCleaner {
  private state: EscapeState = 'text';
  private line = '';
  private carriageReturn = false;
  /** The parameters of the control sequence being read. */
  private parameters = '';

  push(data: string): string {
    let done = '';
    for (const char of data) {
      if (this.state !== 'text') {
        const next = nextEscapeState(this.state, char);
        if (this.state === 'csi' && next === 'text') this.lineControl(this.parameters, char);
        this.parameters = next === 'csi' && this.state === 'csi' ? this.parameters + char : '';
        this.state = next;
        continue;
      }
      if (char === ESC) this.state = 'escape';
      else if (char === '\r') this.carriageReturn = true;
      else if (char === '\n') {
        done += `${this.line}\n`;
        this.line = '';
        this.carriageReturn = false;
      } else if (char === '\t' || (char >= ' ' && char !== '\x7f')) {
        // Text after a carriage return writes over the line from its start.
        if (this.carriageReturn) this.line = '';
        this.carriageReturn = false;
        this.line += char;
      }
    }
    return done;
  }

  end(): string {
    const rest = this.line;
    this.line = '';
    this.state = 'text';
    this.carriageReturn = false;
    this.parameters = '';
    return rest;
  }

  /**
   * The sequences progress lines redraw with (npm's spinner among them): the
   * cursor to the first column reads as a carriage return, erasing the
   * line (or the rest of it, from its start) empties it.
   */
  private lineControl(parameters: string, final: string): void {
    if (final === 'G' && (parameters === '' || parameters === '0' || parameters === '1')) this.carriageReturn = true;
    else if (final === 'K' && (parameters === '2' || (this.carriageReturn && (parameters === '' || parameters === '0')))) this.line = '';
  }
}

/** One step of the escape-sequence grammar (ECMA-48: CSI, OSC, and the short ESC forms). */
function nextEscapeState(state: EscapeState, char: string): EscapeState {
  switch (state) {
    case 'escape':
      if (char === '[') return 'csi';
      if (char === ']' || char === 'P' || char === '_' || char === '^') return 'osc';
      if ('()*+#%'.includes(char)) return 'designator';
      return 'text';
    case 'csi':
      // Parameters and intermediates run from 0x20 to 0x3f; any letter (0x40-0x7e) ends the sequence.
      return char >= '@' && char <= '~' ? 'text' : 'csi';
    case 'osc':
      if (char === BEL) return 'text';
      return char === ESC ? 'osc-escape' : 'osc';
    case 'osc-escape':
      return char === '\\' ? 'text' : 'osc';
    case 'designator':
      return 'text';
    case 'text':
      return 'text';
  }
}

/** The output cap of the child-process route, so output reads alike whichever way a command ran. */
export { HeadTailBuffer as HeadTailText } from '../../../tools/node-exec';
