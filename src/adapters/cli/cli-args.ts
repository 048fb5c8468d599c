/**
 * Command-line arguments as every crow command reads them: -h/--help
 * everywhere, positionals allowed (each command checks its own), and a
 * mistake (an unknown flag, a flag without its value) turned into a
 * UsageError that names the command, suggests the flag meant, and points
 * at the command's --help. Usage errors exit 2.
 */
import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { didYouMean } from '../../vocabulary/did-you-mean';
import { UsageError } from './cli-io';

type Options = NonNullable<ParseArgsConfig['options']>;

const HELP = { help: { type: 'boolean', short: 'h', default: false } } as const;

/** Parses `argv` of `crow <command>` with `options` (plus --help). */
export function commandArgs<const O extends Options>(command: string, argv: readonly string[], options: O) {
  const all = { ...options, ...HELP };
  try {
    return parseArgs({ args: [...argv], options: all, allowPositionals: true, strict: true });
  } catch (err) {
    throw new UsageError(`${argumentProblem(err, Object.keys(all))} Run "crow ${command} --help" for its options.`, { cause: err });
  }
}

/** What was wrong, in a sentence: Node's own messages quote unevenly and suggest `--` where the flag was simply misspelt. */
function argumentProblem(err: unknown, known: readonly string[]): string {
  const code = (err as { code?: string }).code;
  const message = err instanceof Error ? err.message : String(err);
  const flag = /'(-{1,2}[^' ]+)/.exec(message)?.[1];
  switch (code) {
    case 'ERR_PARSE_ARGS_UNKNOWN_OPTION': {
      const guess = flag?.startsWith('--') ? didYouMean(flag.slice(2), known) : undefined;
      return `Unknown option ${flag ?? message}.${guess ? ` Did you mean --${guess}?` : ''}`;
    }
    case 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE':
      return flag && /argument missing/.test(message) ? `${flag} needs a value.` : `${message}.`;
    default:
      return message.endsWith('.') ? message : `${message}.`;
  }
}

/** A flag's value as a positive integer; `fallback` when the flag was not given. */
export function positiveInteger(flag: string, value: string | undefined, fallback?: number): number {
  if (value === undefined && fallback !== undefined) return fallback;
  const n = Number(value);
  if (value === undefined || !Number.isInteger(n) || n < 1) throw new UsageError(`${flag} must be a positive integer, got "${value ?? ''}"`);
  return n;
}

/** Refuses positionals a command does not take. */
export function noPositionals(command: string, positionals: readonly string[]): void {
  if (positionals.length > 0) throw new UsageError(`crow ${command} takes no argument "${positionals[0]}". Run "crow ${command} --help" for its options.`);
}

/** The folder `--cwd` names (relative to `cwd`), or the current one; a UsageError saying what is there instead. */
export function workspaceFolder(cwd: string, given: string | undefined): string {
  const path = resolve(cwd, given ?? '.');
  let found: string;
  try {
    found = statSync(path).isDirectory() ? 'folder' : 'file';
  } catch {
    found = 'nothing';
  }
  if (found === 'folder') return path;
  const what = found === 'file' ? 'is a file, not a folder' : 'does not exist';
  throw new UsageError(`--cwd ${given ?? path}: ${path} ${what}. Pass the project folder.`);
}
