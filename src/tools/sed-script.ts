/**
 * Whether a sed invocation's script writes files or runs commands: GNU
 * sed's `w`/`W` commands and `s///w` flag write any file, its `e` command
 * and `s///e` flag run a shell command. The script is read command by
 * command (addresses, blocks, labels, text arguments, `s` and `y` with any
 * delimiter); anything it cannot read counts as dangerous.
 */

/** Why the sed script in `args` (a sed command's arguments) writes or runs something; undefined when it does neither. */
export function sedScriptRisk(args: readonly (string | undefined)[]): string | undefined {
  const scripts = scriptsOf(args);
  if (scripts === 'sandboxed') return undefined;
  for (const script of scripts) {
    if (script === undefined) return 'its script is known only when it runs';
    const risk = scriptRisk(script);
    if (risk !== undefined) return risk;
  }
  return undefined;
}

/** The script texts: each -e/--expression value, or else the first operand. With --sandbox, sed itself refuses e, w and r. */
function scriptsOf(args: readonly (string | undefined)[]): (string | undefined)[] | 'sandboxed' {
  const expressions: (string | undefined)[] = [];
  let firstOperand: string | undefined;
  let sawOperand = false;
  for (let i = 0; i < args.length; i++) {
    const word = args[i];
    if (word === '--sandbox') return 'sandboxed';
    if (word === undefined || !word.startsWith('-') || word === '-') {
      if (!sawOperand) firstOperand = word;
      sawOperand = true;
      continue;
    }
    if (word === '--') {
      if (!sawOperand && i + 1 < args.length) firstOperand = args[i + 1];
      sawOperand = true;
      break;
    }
    if (word.startsWith('--expression=')) expressions.push(word.slice('--expression='.length));
    else if (word === '--expression' || /^-[a-zA-Z]*e$/.test(word)) expressions.push(args[++i]);
    else if (/^-[a-zA-Z]*e./.test(word)) expressions.push(word.slice(word.indexOf('e') + 1));
    else if (word === '-l' || word === '--line-length') i++;
  }
  if (expressions.length > 0) return expressions;
  return sawOperand ? [firstOperand] : [];
}

const NO_ARGUMENT = new Set(['=', 'd', 'D', 'g', 'G', 'h', 'H', 'n', 'N', 'p', 'P', 'x', 'z', 'F', '}']);
const NUMBER_ARGUMENT = new Set(['q', 'Q', 'l', 'L']);
const LABEL = new Set(['b', 't', 'T', ':', 'v']);
const TEXT = new Set(['a', 'i', 'c']);

function scriptRisk(script: string): string | undefined {
  let at = 0;
  const skipBlanks = (): void => {
    while (at < script.length && /[\s;]/.test(script[at]!)) at++;
  };
  const toLineEnd = (): string => {
    const end = script.indexOf('\n', at);
    const text = script.slice(at, end < 0 ? script.length : end);
    at = end < 0 ? script.length : end;
    return text;
  };
  for (skipBlanks(); at < script.length; skipBlanks()) {
    if (!skipAddresses()) return 'its script cannot be read';
    const command = script[at++];
    if (command === undefined) return undefined;
    if (command === '#') toLineEnd();
    else if (command === '{' || NO_ARGUMENT.has(command)) continue;
    else if (NUMBER_ARGUMENT.has(command)) while (/[\s\d]/.test(script[at] ?? '') && script[at] !== '\n') at++;
    else if (LABEL.has(command)) while (at < script.length && !/[;\n]/.test(script[at]!)) at++;
    else if (TEXT.has(command)) skipText();
    else if (command === 'r' || command === 'R') toLineEnd();
    else if (command === 'w' || command === 'W') return `its ${command} command writes a file (${toLineEnd().trim()})`;
    else if (command === 'e') return 'its e command runs a shell command';
    else if (command === 's' || command === 'y') {
      const risk = substitution(command);
      if (risk !== undefined) return risk;
    } else return `its script cannot be read (at "${command}")`;
  }
  return undefined;

  /** Skips zero, one or two addresses and a `!`; false when an address does not end. */
  function skipAddresses(): boolean {
    for (let count = 0; count < 2; count++) {
      if (script[at] === '/' || script[at] === '\\') {
        const delimiter = script[at] === '\\' ? script[++at] : '/';
        if (delimiter === undefined) return false;
        at = delimited(at + 1, delimiter);
        if (at < 0) return false;
        while (/[IM]/.test(script[at] ?? '')) at++;
      } else if (/[\d$+~]/.test(script[at] ?? '')) {
        while (/[\d$+~]/.test(script[at] ?? '')) at++;
      } else break;
      while (script[at] === ' ') at++;
      if (script[at] !== ',') break;
      at++;
    }
    while (/[\s!]/.test(script[at] ?? '') && script[at] !== '\n') at++;
    return true;
  }

  function skipText(): void {
    // GNU one-liner `a text`, or `a\` followed by lines ending in `\` to continue.
    for (;;) {
      const line = toLineEnd();
      if (!line.endsWith('\\') || at >= script.length) return;
      at++;
    }
  }

  /** `s/re/replacement/flags` or `y/src/dst/`; why its flags write or run, if they do. */
  function substitution(command: 's' | 'y'): string | undefined {
    const delimiter = script[at];
    if (delimiter === undefined || delimiter === '\n' || delimiter === '\\') return 'its script cannot be read';
    at = delimited(at + 1, delimiter);
    if (at >= 0) at = delimited(at, delimiter);
    if (at < 0) return 'its script cannot be read';
    if (command === 'y') return undefined;
    while (at < script.length && !/[;\n}]/.test(script[at]!)) {
      const flag = script[at++]!;
      if (flag === 'e') return 'its s///e flag runs the result as a shell command';
      if (flag === 'w') return `its s///w flag writes a file (${toLineEnd().trim()})`;
    }
    return undefined;
  }

  /** The index after the next unescaped `delimiter` from `from` on; -1 when there is none. */
  function delimited(from: number, delimiter: string): number {
    for (let i = from; i < script.length; i++) {
      if (script[i] === '\\') i++;
      else if (script[i] === delimiter) return i + 1;
    }
    return -1;
  }
}
