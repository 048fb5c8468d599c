/**
 * Whether a sed invocation's script writes files or runs commands: GNU
 * sed's `w`/`W` commands and `s///w` flag write any file, its `e` command
 * and `s///e` flag run a shell command. The script is read command by
 * command (addresses, blocks, labels, text arguments, `s` and `y` with any
 * delimiter); anything it cannot read counts as dangerous.
 */

/** Why the sed script in `args` (a sed command's arguments) writes or runs something; undefined when it does neither. */
export function sedScriptRisk(args: readonly (string | undefined)[]): string | undefined {
  const parsed = parseSedArguments(args);
  if (parsed.sandboxed) return undefined;
  if (parsed.unreadable !== undefined) return `its options cannot be read (${parsed.unreadable})`;
  for (const script of parsed.scripts) {
    if (script === undefined) return 'its script is known only when it runs';
    const risk = scriptRisk(script);
    if (risk !== undefined) return risk;
  }
  return undefined;
}

/** GNU sed's long options; getopt takes any unambiguous prefix of one (`--expr`, `--l`). */
const LONG_OPTIONS = [
  'debug', 'expression', 'file', 'follow-symlinks', 'help', 'in-place', 'line-length', 'null-data', 'posix', 'quiet', 'regexp-extended', 'sandbox',
  'separate', 'silent', 'unbuffered', 'version', 'zero-terminated',
];
/** Long options whose value, when not after `=`, is the next word. */
const LONG_WITH_VALUE = new Set(['expression', 'file', 'line-length']);
/** Short options that take a value: the rest of their cluster, or else the next word (`-nl 5`, `-ne p`). */
const SHORT_WITH_VALUE = new Set(['e', 'f', 'l']);
/** Short options without a value; `i` takes the rest of its cluster as a suffix. */
const SHORT_FLAGS = new Set(['n', 's', 'E', 'r', 'u', 'z', 'b']);

/** A sed command's arguments as GNU sed reads them. */
export interface SedArguments {
  /** Each -e/--expression value, or else the first operand; undefined where only known when it runs. */
  scripts: (string | undefined)[];
  /** The input files (what -i edits): the operands past the script. */
  files: (string | undefined)[];
  /** --sandbox: sed itself refuses e, w and r. */
  sandboxed: boolean;
  /** An option sed would not take, which makes the rest unreadable. */
  unreadable?: string;
}

/** Reads `args` as GNU sed's getopt does: options anywhere before `--`, clusters (`-nl 5`), unambiguous prefixes of long options (`--expr`). */
export function parseSedArguments(args: readonly (string | undefined)[]): SedArguments {
  const expressions: (string | undefined)[] = [];
  const operands: (string | undefined)[] = [];
  let sandboxed = false;
  let fromFile = false;
  for (let i = 0; i < args.length; i++) {
    const word = args[i];
    if (word === undefined || !word.startsWith('-') || word === '-') {
      operands.push(word);
    } else if (word === '--') {
      operands.push(...args.slice(i + 1));
      break;
    } else if (word.startsWith('--')) {
      const equals = word.indexOf('=');
      const given = word.slice(2, equals < 0 ? undefined : equals);
      const name = LONG_OPTIONS.includes(given) ? given : singleMatch(LONG_OPTIONS.filter((candidate) => candidate.startsWith(given)));
      if (name === undefined) return { scripts: [], files: [], sandboxed, unreadable: word };
      const value = equals >= 0 ? word.slice(equals + 1) : LONG_WITH_VALUE.has(name) ? args[++i] : undefined;
      if (name === 'expression') expressions.push(value);
      if (name === 'file') fromFile = true;
      if (name === 'sandbox') sandboxed = true;
    } else {
      for (let at = 1; at < word.length; at++) {
        const letter = word[at]!;
        if (letter === 'i') break;
        if (SHORT_WITH_VALUE.has(letter)) {
          const value = at + 1 < word.length ? word.slice(at + 1) : args[++i];
          if (letter === 'e') expressions.push(value);
          if (letter === 'f') fromFile = true;
          break;
        }
        if (!SHORT_FLAGS.has(letter)) return { scripts: [], files: [], sandboxed, unreadable: word };
      }
    }
  }
  const scriptOperand = expressions.length === 0 && !fromFile && operands.length > 0;
  return { scripts: scriptOperand ? [operands[0]] : expressions, files: scriptOperand ? operands.slice(1) : operands, sandboxed };
}

function singleMatch(candidates: readonly string[]): string | undefined {
  return candidates.length === 1 ? candidates[0] : undefined;
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
