/**
 * A bash command line taken apart by a real parser (unbash: GNU Bash
 * grammar, synchronous, no WASM), reduced to what the permission rules
 * need: every simple command that would run (inside substitutions,
 * here-documents, loops and pipelines too), the constructs no allow-list
 * entry can vouch for, and the literal files its redirections write.
 *
 * The parser is tolerant: on broken input it recovers and reports errors,
 * and every error here (at any depth) is a problem, so a command the
 * parser could not fully read is never covered by an entry.
 */
import { forEachChild, parse, type Command, type Redirection, type SyntaxNode, type Word } from 'unbash';
import { errorText } from '../vocabulary/text';

/** One simple command: a program and its arguments, with any assignments and redirections. */
export interface SimpleCommand {
  /**
   * The words after quote removal, program first; `undefined` for a word
   * whose value is only known when it runs (expansions, substitutions,
   * globs, braces). Empty for a command of assignments or redirections only.
   */
  words: readonly (string | undefined)[];
  /** Whether a word starts with an unquoted `~`, which the shell turns into a home folder. */
  tilde: readonly boolean[];
  /** Variable assignments before the program (`NAME=value cmd`) or alone. */
  assignments: number;
  /** The source text of the command. */
  text: string;
}

/** A redirection that opens a file for writing (`>`, `>>`, `>|`, `&>`, `&>>`, `<>`, `>& file`). */
export interface WriteRedirect {
  /** The target after quote removal; undefined when it is only known at run time. */
  target: string | undefined;
  /** The target starts with an unquoted `~`. */
  tilde: boolean;
}

export interface ShellSyntax {
  commands: SimpleCommand[];
  /** Constructs that make the line more than its simple commands, as clauses (e.g. "it runs in the background (&)"). */
  problems: string[];
  /** Every redirection that writes a file, wherever it appears. */
  writeRedirects: WriteRedirect[];
  /** The parser could not read all of it: the commands above are a best guess. */
  broken: boolean;
}

const WRITING_OPERATORS = new Set(['>', '>>', '>|', '&>', '&>>', '<>']);

/** Parses `source` as bash. Never throws: a parser failure is a problem like any syntax error. */
export function parseShell(source: string): ShellSyntax {
  const syntax: ShellSyntax = { commands: [], problems: [], writeRedirects: [], broken: false };
  const problem = (text: string): void => {
    if (!syntax.problems.includes(text)) syntax.problems.push(text);
  };
  try {
    visit(parse(source), source, syntax, problem);
  } catch (err) {
    syntax.broken = true;
    problem(`it cannot be parsed (${errorText(err)})`);
  }
  return syntax;
}

function visit(node: SyntaxNode, source: string, syntax: ShellSyntax, problem: (text: string) => void): void {
  let text = source;
  switch (node.type) {
    case 'Script':
      for (const error of node.errors ?? []) {
        syntax.broken = true;
        problem(`it cannot be parsed (${error.message})`);
      }
      // Scripts from escaped backticks index their own decoded source.
      if (node.source !== undefined) text = node.source;
      break;
    case 'Statement':
      if (node.background) problem('it runs in the background (&)');
      break;
    case 'Command':
      syntax.commands.push(simpleCommand(node, source));
      break;
    case 'Function':
      problem(`it defines a function (${node.name.value})`);
      break;
    case 'Coproc':
      problem('it starts a coprocess (coproc)');
      break;
    case 'CommandExpansion':
    case 'ProcessSubstitution':
    case 'ArithmeticCommandExpansion':
      if (node.script === undefined) {
        syntax.broken = true;
        problem(`it has a substitution that cannot be read (${node.text})`);
      }
      break;
    case 'ArithmeticExpansion':
    case 'ArithmeticCommand':
    case 'ArithmeticFor':
      // Arithmetic evaluates variables' values as expressions, and `a[$(cmd)]` in a value runs cmd.
      problem(ARITHMETIC);
      break;
    case 'TestBinary':
      if (ARITHMETIC_TESTS.has(node.operator)) problem(ARITHMETIC);
      break;
    case 'ParameterExpansion':
      if (evaluatesValue(node)) problem(`it uses an expansion that evaluates a value (${node.text})`);
      break;
    case 'Redirect':
      if (writes(node)) syntax.writeRedirects.push({ target: literal(node.target), tilde: startsWithTilde(node.target) });
      break;
    default:
      break;
  }
  forEachChild(node, (child) => visit(child, text, syntax, problem));
}

const ARITHMETIC = 'it evaluates arithmetic, which can run commands hidden in variables';

/** `[[ a -eq b ]]` and friends evaluate both sides as arithmetic. */
const ARITHMETIC_TESTS = new Set(['-eq', '-ne', '-lt', '-le', '-gt', '-ge']);

/** Subscripts, slices, indirection and transformations evaluate a variable's value or prompt-expand it. */
function evaluatesValue(node: Extract<SyntaxNode, { type: 'ParameterExpansion' }>): boolean {
  if (node.index !== undefined && node.index.value !== '@' && node.index.value !== '*') return true;
  if (node.prefix === '!' && node.operation?.type !== 'Names') return true;
  return node.operation?.type === 'Slice' || node.operation?.type === 'Transform';
}

function writes(node: Extract<Redirection, { type: 'Redirect' }>): boolean {
  if (WRITING_OPERATORS.has(node.operator)) return true;
  // `>& word` writes a file unless the word is a descriptor number or `-`.
  return node.operator === '>&' && !/^(\d+|-)$/.test(node.target?.value ?? '');
}

function simpleCommand(node: Command, source: string): SimpleCommand {
  const words: (string | undefined)[] = [];
  const tilde: boolean[] = [];
  const add = (value: string | undefined, startsTilde: boolean): void => {
    words.push(value);
    tilde.push(startsTilde);
  };
  if (node.name) add(literal(node.name), startsWithTilde(node.name));
  for (const arg of node.suffix) {
    if (arg.type === 'Word') add(literal(arg), startsWithTilde(arg));
    // `make CC=gcc`, `dd of=x`: after the program an assignment is an argument like any other.
    else if (arg.type === 'Assignment') add(assignmentText(arg), false);
  }
  const assignments = node.prefix.filter((item) => item.type === 'Assignment').length;
  return { words, tilde, assignments, text: source.slice(node.pos, node.end) };
}

function assignmentText(node: Extract<Command['suffix'][number], { type: 'Assignment' }>): string | undefined {
  if (node.index !== undefined || node.value.type !== 'Word') return undefined;
  const value = literal(node.value);
  return value === undefined ? undefined : `${node.name}${node.append ? '+=' : '='}${value}`;
}

/** A word's value when nothing in it is expanded at run time; undefined otherwise. */
export function literal(word: Word | undefined): string | undefined {
  if (!word) return undefined;
  if (!word.parts) return word.value;
  for (const part of word.parts) {
    switch (part.type) {
      case 'Literal':
      case 'SingleQuoted':
      case 'AnsiCQuoted':
        continue;
      case 'DoubleQuoted':
        if (part.parts.every((inner) => inner.type === 'Literal')) continue;
        return undefined;
      default:
        return undefined;
    }
  }
  return word.value;
}

function startsWithTilde(word: Word | undefined): boolean {
  return word !== undefined && word.text.startsWith('~');
}
