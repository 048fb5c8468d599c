/**
 * What makes one simple command uncoverable by any allow-list entry or
 * "always" answer, whatever words the entry spells: a program that runs
 * another program its arguments name (xargs, env CMD, find -exec, sudo,
 * nice...), runs code given as text (eval, source, sh -c, an editor's
 * commands), changes what later commands mean (alias, shopt, variables),
 * or writes the files its input names rather than its arguments (tar x,
 * unzip, patch, git apply), which the protected-path check cannot see.
 */
import type { SimpleCommand } from './shell-syntax';

/** Why no entry can cover `command`; undefined when an entry may. */
export function commandProblem(command: SimpleCommand): string | undefined {
  if (command.assignments > 0) return `it sets variables for or before a command (${command.text})`;
  const [program, ...args] = command.words;
  if (command.words.length === 0) return undefined;
  if (program === undefined) return `it runs a program whose name is computed (${command.text})`;
  const name = baseName(program);
  const literalArgs = args.filter((word): word is string => word !== undefined);
  if (RUNS_CODE_FROM_ARGS.has(name)) return `${name} runs code it is given as text`;
  if (EDITORS.has(name)) return `${name} runs the editor commands its arguments or startup files give, which can run any program`;
  if (RUNS_ANOTHER_COMMAND.has(name)) return `${name} runs another command, which the allow-list cannot see`;
  if (DEFINES.has(name)) return `${name} changes what later commands mean`;
  if (SETS_VARIABLES.has(name) || (name === 'printf' && literalArgs.includes('-v'))) return `${name} sets variables, which can change what later commands run`;
  if (SHELLS.has(name)) {
    const first = args[0];
    if (first === undefined || first.startsWith('-') || first.startsWith('+')) {
      return `${name} runs a script given inline or on its input (${command.text})`;
    }
  }
  if (name === 'env' && envRunsCommand(args)) return 'env runs another command, which the allow-list cannot see';
  if (name === 'find') return findProblem(args);
  if ((name === 'mapfile' || name === 'readarray') && literalArgs.includes('-C')) return `${name} -C runs a callback`;
  const unpacks = unpacksInput(name, args);
  if (unpacks) return `${name} writes the files its ${unpacks} names, wherever that is (.git, .crow and .vscode included)`;
  return undefined;
}

const RUNS_CODE_FROM_ARGS = new Set(['eval', 'source', '.', 'trap', 'let', 'enable']);
/** Programs whose arguments are another command line. */
const RUNS_ANOTHER_COMMAND = new Set([
  'exec', 'xargs', 'sudo', 'doas', 'su', 'sg', 'pkexec', 'runuser', 'command', 'builtin', 'nohup', 'nice', 'timeout', 'time',
  'stdbuf', 'setsid', 'watch', 'strace', 'ltrace', 'chroot', 'ionice', 'taskset', 'unbuffer', 'parallel', 'flock',
  'chrt', 'fakeroot', 'busybox', 'script', 'expect', 'systemd-run', 'gdb', 'valgrind', 'caffeinate', 'prlimit', 'numactl',
  'unshare', 'nsenter', 'run-parts', 'xvfb-run', 'dbus-launch', 'dbus-run-session', 'faketime', 'torsocks', 'proxychains',
  'proxychains4', 'firejail', 'bwrap', 'chpst', 'cgexec', 'catchsegv',
]);
/** Editors, whose `-c`, `+cmd`, `--eval` or startup files run their own commands, `!program` included. */
const EDITORS = new Set(['vi', 'vim', 'nvim', 'view', 'ex', 'ed', 'emacs', 'nano']);
const DEFINES = new Set(['alias', 'unalias', 'hash', 'shopt']);
const SETS_VARIABLES = new Set(['read', 'mapfile', 'readarray', 'declare', 'typeset', 'local', 'export', 'readonly', 'getopts', 'unset']);
export const SHELLS = new Set(['sh', 'bash', 'zsh', 'dash', 'ksh', 'mksh', 'ash', 'fish', 'csh', 'tcsh', 'rbash']);
const FIND_ACTIONS = new Set(['-exec', '-execdir', '-ok', '-okdir', '-delete', '-fprint', '-fprint0', '-fprintf', '-fls']);

/** find's expressions that run or change, and words that could turn into one when they run (`$(echo -exec)`, `*` matching a file named `-delete`). */
function findProblem(args: readonly (string | undefined)[]): string | undefined {
  if (args.some((word) => word !== undefined && FIND_ACTIONS.has(word))) return 'find runs commands or changes files (-exec, -delete, ...)';
  if (args.some((word) => word === undefined)) return 'find gets a word known only when it runs (a glob or a substitution), which could be -exec or -delete';
  return undefined;
}

/** env's long options, each taken by any unambiguous prefix. */
const ENV_LONG = ['ignore-environment', 'null', 'unset', 'chdir', 'split-string', 'block-signal', 'default-signal', 'ignore-signal', 'list-signal-handling', 'debug', 'help', 'version'];

/** `env` with a program after its options and assignments, or `-S`/`--split-string` (which splits a command line), however spelled. */
function envRunsCommand(args: readonly (string | undefined)[]): boolean {
  for (let i = 0; i < args.length; i++) {
    const word = args[i];
    if (word === undefined) return true;
    if (word === '--') return i + 1 < args.length;
    if (word.startsWith('--')) {
      const [given, value] = word.slice(2).split('=', 2) as [string, string | undefined];
      const matching = ENV_LONG.filter((name) => name.startsWith(given));
      const name = ENV_LONG.includes(given) ? given : matching.length === 1 ? matching[0] : undefined;
      if (name === undefined || name === 'split-string') return true;
      if ((name === 'unset' || name === 'chdir') && value === undefined) i++;
      continue;
    }
    if (word.startsWith('-') && word !== '-') {
      for (let at = 1; at < word.length; at++) {
        const letter = word[at]!;
        if (letter === 'S') return true;
        if (letter === 'u' || letter === 'C') {
          if (at + 1 === word.length) i++;
          break;
        }
      }
      continue;
    }
    if (/^[A-Za-z_]\w*=/.test(word)) continue;
    return true;
  }
  return false;
}

/**
 * What a command unpacks into files of its input's choosing ("archive",
 * "patch"), for archive and patch programs in a mode that writes; undefined
 * otherwise (listing, testing, writing to stdout, a dry run).
 */
function unpacksInput(name: string, args: readonly (string | undefined)[]): string | undefined {
  const literal = args.filter((word): word is string => word !== undefined);
  const short = literal.filter((word) => word.startsWith('-') && !word.startsWith('--'));
  /** A long option spelled whole or by a prefix of at least `shortest` letters (getopt takes unambiguous prefixes). */
  const long = (full: string, shortest: number): boolean =>
    literal.some((word) => {
      const given = word.startsWith('--') ? word.slice(2).split('=')[0]! : '';
      return given.length >= shortest && full.startsWith(given);
    });
  switch (name) {
    case 'tar': case 'bsdtar': case 'gtar': {
      const oldStyle = args[0] !== undefined && !args[0].startsWith('-') ? args[0] : '';
      return oldStyle.includes('x') || short.some((word) => word.includes('x')) || long('extract', 3) || long('get', 2) ? 'archive' : undefined;
    }
    case 'unzip':
      return short.some((word) => /[lvtzZpc]/.test(word)) ? undefined : 'archive';
    case 'cpio':
      return short.some((word) => /[ip]/.test(word)) || long('extract', 3) || long('pass-through', 2) ? 'archive' : undefined;
    case '7z': case '7za': case '7zr': {
      const command = literal.find((word) => !word.startsWith('-'));
      return command === 'x' || command === 'e' ? 'archive' : undefined;
    }
    case 'patch':
      return long('dry-run', 2) ? undefined : 'patch';
    case 'git': {
      const sub = args[gitSubcommandIndex(args)];
      if (sub !== 'apply' && sub !== 'am') return undefined;
      const onlyReads = literal.some((word) => /^--(check|stat|numstat|summary)$/.test(word)) && !literal.includes('--apply');
      return sub === 'apply' && onlyReads ? undefined : 'patch';
    }
    default:
      return undefined;
  }
}

/** git's global options that take the next word as their value. */
const GIT_OPTIONS_WITH_VALUE = new Set(['-c', '-C', '--git-dir', '--work-tree', '--namespace', '--config-env', '--exec-path', '--super-prefix']);

/** Where git's subcommand is in its arguments: past its global options and their values; -1 when unknown. */
export function gitSubcommandIndex(args: readonly (string | undefined)[]): number {
  for (let i = 0; i < args.length; i++) {
    const word = args[i];
    if (word === undefined) return -1;
    if (GIT_OPTIONS_WITH_VALUE.has(word)) i++;
    else if (!word.startsWith('-')) return i;
  }
  return -1;
}

export function baseName(program: string): string {
  const slash = program.lastIndexOf('/');
  return slash >= 0 ? program.slice(slash + 1) : program;
}
