/**
 * The one rule for command allow-lists, used alike by the configured list
 * (`permissions.allow_commands`) and by remembered "always" answers:
 *
 *   A command line is covered only if the parser read all of it, nothing in
 *   it is a construct a prefix cannot vouch for, and every simple command in
 *   it (substitutions included) starts with the words of some entry.
 *
 * An entry is a list of literal words, e.g. `git status` covers
 * `git status --short` but not `git stash` nor `git status; rm x`.
 * Constructs no entry vouches for: parse errors, backgrounding, function
 * definitions, variables set for or before a command, arithmetic, aliases,
 * redirections that write files other than /dev/null, and the commands of
 * command-problems.ts (those that run other commands, such as eval, sh -c,
 * xargs, env CMD, sudo, find -exec, or unpack files their input names).
 *
 * And an option that writes files or runs code (`git log --output=F`,
 * `git -c core.pager=CMD`, `sed -i`, `npm --script-shell`, `node -e`: see
 * risky-options.ts) is covered only by an entry that spells it itself:
 * such a call is asked every time, and "always" never remembers it.
 *
 * What a covered command runs beyond its words (git's configured programs,
 * a repository git finds by itself) is turned off when it runs: see
 * covered-command.ts and implicit-repository.ts.
 */
import { baseName, commandProblem, gitSubcommandIndex, SHELLS } from './command-problems';
import { tarArchiveWritten } from './file-tool-risks';
import { type RiskyUse, riskyUses } from './risky-options';
import { parseSedArguments } from './sed-script';
import { parseShell, type SimpleCommand } from './shell-syntax';

/** The words of an allow-list entry or remembered answer, e.g. ["git", "status"]. */
export type CommandEntry = readonly string[];

export interface CommandJudgement {
  /**
   * Every simple command, in source order, with what makes it uncoverable
   * if anything, and the options in it that write files or run code (an
   * entry covers those only when its own words reach past them).
   */
  commands: { command: SimpleCommand; problem?: string; risky?: RiskyUse[] }[];
  /** What makes the whole line uncoverable: parse errors, `&`, function definitions, file redirections... */
  problems: string[];
  /** Literal paths it writes as far as the parser can tell (redirections, tee, cp, mv, rm, git config, ...). */
  writes: { path: string; tilde: boolean }[];
  /** Literal folders it changes into (cd, pushd), in order; writes may be relative to any of them. */
  dirs: { path: string; tilde: boolean }[];
  /** The parser could not read all of it: nothing of it is remembered. */
  broken: boolean;
}

/** Takes a command line apart and judges each piece; never throws. */
export function judgeCommand(line: string): CommandJudgement {
  const syntax = parseShell(line);
  const problems = [...syntax.problems];
  const writes: CommandJudgement['writes'] = [];
  for (const redirect of syntax.writeRedirects) {
    if (redirect.target === '/dev/null') continue;
    problems.push(`it writes a file by redirection (> ${redirect.target ?? 'a computed path'})`);
    if (redirect.target !== undefined) writes.push({ path: redirect.target, tilde: redirect.tilde });
  }
  const dirs: CommandJudgement['dirs'] = [];
  const commands = syntax.commands.map((command) => {
    const risks = riskyUses(command);
    writes.push(...writtenBy(command), ...risks.writes);
    dirs.push(...enteredBy(command));
    const problem = commandProblem(command);
    return { command, ...(problem !== undefined ? { problem } : {}), ...(risks.uses.length > 0 ? { risky: risks.uses } : {}) };
  });
  return { commands, problems: unique(problems), writes, dirs, broken: syntax.broken };
}

/** Whether every simple command of `judgement` is covered by one of `entries`, under the rule above. */
export function covers(entries: readonly CommandEntry[], judgement: CommandJudgement): boolean {
  if (judgement.problems.length > 0 || judgement.commands.length === 0) return false;
  return judgement.commands.every((simple) => simple.problem === undefined && entries.some((entry) => coveredBy(simple, entry)));
}

/** Why `entries` do not cover `judgement`, as a clause; undefined when they do. */
export function uncoveredReason(entries: readonly CommandEntry[], judgement: CommandJudgement): string | undefined {
  if (judgement.problems.length > 0) return judgement.problems[0];
  for (const simple of judgement.commands) {
    if (simple.problem !== undefined) return simple.problem;
    if (entries.some((entry) => coveredBy(simple, entry))) continue;
    const entry = entries.find((candidate) => startsWith(simple.command, candidate));
    const risk = entry && simple.risky?.find((use) => use.index >= entry.length);
    return risk ? `${risk.why}, which is asked every time` : `no entry covers "${simple.command.text}"`;
  }
  return judgement.commands.length === 0 ? 'it runs no command' : undefined;
}

/** Whether `entry` covers one simple command: its words start the command and reach past every risky option in it. */
function coveredBy(simple: CommandJudgement['commands'][number], entry: CommandEntry): boolean {
  return startsWith(simple.command, entry) && (simple.risky ?? []).every((use) => use.index < entry.length);
}

/** Whether any simple command of `judgement` starts with one of `entries` (for remembered rejections). */
export function touches(entries: readonly CommandEntry[], judgement: CommandJudgement): CommandEntry | undefined {
  for (const { command } of judgement.commands) {
    const entry = entries.find((candidate) => startsWith(command, candidate));
    if (entry) return entry;
  }
  return undefined;
}

function startsWith(command: SimpleCommand, entry: CommandEntry): boolean {
  return entry.length > 0 && command.words.length >= entry.length && entry.every((word, i) => command.words[i] === word);
}

/** Whether `entry` covers nothing that one of `within` does not: it extends one of them. */
export function entryWithin(entry: CommandEntry, within: readonly CommandEntry[]): boolean {
  return within.some((outer) => outer.length > 0 && outer.length <= entry.length && outer.every((word, i) => entry[i] === word));
}

/**
 * An allow-list entry from its text (`npm test`, `git commit -m "wip"`):
 * one simple command of literal words. Anything else (chains, expansions,
 * redirections) is no entry at all and covers nothing.
 */
export function parseEntry(text: string): CommandEntry | undefined {
  const cached = entryCache.get(text);
  if (cached !== undefined || entryCache.has(text)) return cached;
  const judgement = judgeCommand(text);
  const [only] = judgement.commands;
  const words = only?.command.words;
  const valid =
    judgement.problems.length === 0 && judgement.commands.length === 1 && only!.command.assignments === 0 && words!.length > 0 && words!.every((word) => word !== undefined);
  const entry = valid ? (words as string[]) : undefined;
  if (entryCache.size > 500) entryCache.clear();
  entryCache.set(text, entry);
  return entry;
}

const entryCache = new Map<string, CommandEntry | undefined>();

/** An entry as a person reads it: words joined by spaces, quoted where needed. */
export function entryText(entry: CommandEntry): string {
  return entry.map((word) => (/^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`)).join(' ');
}

/**
 * What an "always" answer remembers for a command line: for each simple
 * command that could ever be covered, a sensible prefix of it (see
 * `rememberedPrefix`). Empty when nothing in it can be remembered, as for
 * a line the parser could not fully read.
 */
export function rememberable(judgement: CommandJudgement): CommandEntry[] {
  const entries: CommandEntry[] = [];
  if (judgement.broken) return entries;
  for (const { command, problem, risky } of judgement.commands) {
    if (problem !== undefined) continue;
    const entry = rememberedPrefix(command);
    // A prefix that holds a risky option would cover it: nothing of such a command is remembered.
    if (entry && risky?.some((use) => use.index < entry.length)) continue;
    if (entry && !entries.some((known) => known.join('\u0000') === entry.join('\u0000'))) entries.push(entry);
  }
  return entries;
}

/**
 * The prefix remembered for one simple command: the program, any options
 * before its subcommand, and up to two subcommand words (`git status`,
 * `npm run build`, `git -C sub log`, `python -m pytest`); the whole command
 * for programs whose arguments are code or targets (`sed`, `node -e`,
 * `rm -rf dist`, `curl URL`); the program and its script for interpreters
 * (`python tool.py`).
 */
export function rememberedPrefix(command: SimpleCommand): CommandEntry | undefined {
  const words = command.words;
  const program = words[0];
  if (program === undefined || command.assignments > 0) return undefined;
  const name = baseName(program);
  if (WHOLE_COMMAND.has(name) || (INTERPRETERS.has(name) && words.some((word) => word !== undefined && INLINE_CODE.test(word)))) {
    return words.every((word) => word !== undefined) ? (words as string[]) : undefined;
  }
  // Their arguments are data, never a subcommand: `echo made` is remembered as `echo`.
  if (NO_SUBCOMMANDS.has(name)) return [program];
  const script = INTERPRETERS.has(name) || SHELLS.has(name);
  const entry = [program];
  let subcommands = 0;
  for (const word of words.slice(1)) {
    const afterOption = subcommands === 0 && entry.length > 1 && entry[entry.length - 1]!.startsWith('-');
    // An entry never ends in an option whose value is unknown: `git -c $X log` remembers nothing.
    if (word === undefined) return afterOption ? undefined : entry;
    const option = word.startsWith('-');
    if (option && subcommands > 0) break;
    entry.push(word);
    if (option) continue;
    if (script) break;
    if (SUBCOMMAND.test(word)) {
      if (++subcommands === 2) break;
    } else if (!afterOption) {
      entry.pop();
      break;
    }
  }
  // A bare interpreter would cover any inline program later: nothing is remembered for it.
  if (script && entry.length === 1) return undefined;
  return entry;
}

/** A word that reads like a subcommand or script name: `status`, `run`, `test:unit`. */
const SUBCOMMAND = /^[A-Za-z][\w:-]*$/;
/** Options that hand an interpreter its program inline. */
const INLINE_CODE = /^-(c|e|E|p|r|-eval|-print|-command|-require)$|^-\w*[ce]$/;
const INTERPRETERS = new Set(['python', 'python2', 'python3', 'node', 'nodejs', 'deno', 'bun', 'perl', 'ruby', 'php', 'lua', 'Rscript', 'osascript', 'pwsh', 'powershell', 'tclsh', 'java']);
/** Programs that take no subcommand: any word after them is what they print, read or look for. */
const NO_SUBCOMMANDS = new Set([
  'echo', 'printf', 'cat', 'ls', 'head', 'tail', 'wc', 'grep', 'egrep', 'fgrep', 'rg', 'pwd', 'date', 'sort', 'uniq',
  'diff', 'which', 'stat', 'file', 'du', 'df', 'tree', 'basename', 'dirname', 'true', 'false', 'sleep', 'whoami',
]);
/** Programs whose arguments are code or the very things they destroy, move or send: remembered whole. */
const WHOLE_COMMAND = new Set([
  'awk', 'gawk', 'mawk', 'nawk', 'sed', 'gsed', 'jq',
  'rm', 'rmdir', 'mv', 'cp', 'ln', 'install', 'chmod', 'chown', 'chgrp', 'dd', 'shred', 'truncate', 'unlink',
  'kill', 'pkill', 'killall', 'curl', 'wget', 'ssh', 'scp', 'sftp', 'rsync', 'nc', 'ncat', 'socat', 'telnet',
]);

/**
 * Literal paths a simple command writes, for the well-known writers only.
 * A program can write anywhere it likes; this sees what its arguments say.
 */
function writtenBy(command: SimpleCommand): CommandJudgement['writes'] {
  const [program, ...args] = command.words;
  if (program === undefined) return [];
  const name = baseName(program);
  const operands: { path: string; tilde: boolean }[] = [];
  const options: string[] = [];
  let afterDashes = false;
  args.forEach((word, i) => {
    if (word === undefined) return;
    if (!afterDashes && word === '--') afterDashes = true;
    else if (!afterDashes && word.startsWith('-') && word !== '-') options.push(word);
    else operands.push({ path: word, tilde: command.tilde[i + 1] ?? false });
  });
  switch (name) {
    case 'tee': case 'touch': case 'rm': case 'rmdir': case 'mkdir': case 'mv': case 'ln': case 'truncate':
    case 'shred': case 'unlink': case 'chmod': case 'chown': case 'chgrp':
      return operands;
    case 'cp': case 'install': {
      const target = targetDirectory(args);
      if (target !== undefined) return [{ path: target, tilde: false }];
      return operands.slice(-1);
    }
    case 'sed': case 'gsed': {
      const parsed = parseSedArguments(args);
      const inPlace = options.some((option) => /^-[^-]*i/.test(option) || (option.length > 3 && '--in-place'.startsWith(option.split('=')[0]!)));
      if (!inPlace) return [];
      return parsed.files.flatMap((path) => (path === undefined ? [] : [operands.find((operand) => operand.path === path) ?? { path, tilde: false }]));
    }
    case 'perl':
      return options.some((option) => /^-\w*i/.test(option)) ? operands : [];
    case 'tar': case 'bsdtar': case 'gtar': {
      const archive = tarArchiveWritten(args);
      return archive === undefined || archive === '-' ? [] : [{ path: archive, tilde: operands.find((operand) => operand.path === archive)?.tilde ?? false }];
    }
    case 'zip':
      return operands.slice(0, 1);
    case 'rsync': case 'scp':
      // The destination: a local path, unless it names a host (`host:path`).
      return operands.slice(-1).filter(({ path }) => !/^[^/]*:/.test(path));
    case 'dd':
      return operands.filter(({ path }) => path.startsWith('of=')).map(({ path }) => ({ path: path.slice(3), tilde: path.startsWith('of=~') }));
    case 'git':
      return [...gitConfigWrite(args), ...gitFolderWrite(args)];
    default:
      return [];
  }
}

function targetDirectory(args: readonly (string | undefined)[]): string | undefined {
  for (let i = 0; i < args.length; i++) {
    const word = args[i];
    if (word === '-t' || word === '--target-directory') return args[i + 1];
    if (word?.startsWith('--target-directory=')) return word.slice('--target-directory='.length);
  }
  return undefined;
}

/** `git config` that sets, adds, unsets or edits a value writes the repository's `.git/config` (or `--file`). */
function gitConfigWrite(args: readonly (string | undefined)[]): CommandJudgement['writes'] {
  const at = gitSubcommandIndex(args);
  if (at < 0 || args[at] !== 'config') return [];
  const rest = args.slice(at + 1);
  const file = rest.findIndex((word) => word === '-f' || word === '--file');
  const fileTarget = file >= 0 ? rest[file + 1] : rest.find((word) => word?.startsWith('--file='))?.slice('--file='.length);
  if (rest.some((word) => word === '--global' || word === '--system')) return [];
  const reads = rest.some((word) => word !== undefined && /^(--get|--get-all|--get-regexp|--get-urlmatch|--list|-l|get|list)$/.test(word));
  const values = rest.filter((word) => word === undefined || !word.startsWith('-')).length;
  if (reads || (values < 2 && !rest.some((word) => word !== undefined && /^(--unset|--unset-all|--add|--replace-all|--edit|-e|--rename-section|--remove-section|set|unset|edit)/.test(word)))) {
    return [];
  }
  return [{ path: fileTarget ?? '.git/config', tilde: false }];
}

/** The folder `git clone`, `git init` or `git worktree add` fills, when it names one. */
function gitFolderWrite(args: readonly (string | undefined)[]): CommandJudgement['writes'] {
  const at = gitSubcommandIndex(args);
  const sub = args[at];
  const rest = args.slice(at + 1);
  const operands = rest.filter((word): word is string => word !== undefined && !word.startsWith('-'));
  if (sub === 'clone' && operands.length >= 2) return [{ path: operands[1]!, tilde: false }];
  if (sub === 'init' && operands.length >= 1) return [{ path: operands[0]!, tilde: false }];
  if (sub === 'worktree' && operands[0] === 'add' && operands.length >= 2) return [{ path: operands[1]!, tilde: false }];
  return [];
}

/** Folders `cd` and `pushd` change into. */
function enteredBy(command: SimpleCommand): CommandJudgement['dirs'] {
  const [program, ...args] = command.words;
  if (program !== 'cd' && program !== 'pushd') return [];
  const index = args.findIndex((word) => word === undefined || !word.startsWith('-'));
  const target = index >= 0 ? args[index] : undefined;
  return target === undefined ? [] : [{ path: target, tilde: command.tilde[index + 1] ?? false }];
}

function unique(items: string[]): string[] {
  return [...new Set(items)];
}

/**
 * What "always" covers for `line`, in words a person decides on, e.g.
 * `commands starting with "git status"`; says so when part of the line is
 * asked every time whatever the answer.
 */
export function commandAlwaysScope(line: string): string {
  const judgement = judgeCommand(line);
  const entries = rememberable(judgement);
  const never = [
    ...judgement.problems,
    ...judgement.commands.flatMap(({ problem, risky }) => [...(problem === undefined ? [] : [problem]), ...(risky ?? []).map((use) => use.why)]),
  ];
  const covered = entries.length > 0 ? `commands starting with ${entries.map((entry) => `"${entryText(entry)}"`).join(' or ')}` : 'no command';
  if (never.length === 0) return covered;
  return `${covered}; this one is asked every time: ${never.slice(0, 2).join('; ')}`;
}
