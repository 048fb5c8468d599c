/**
 * Crow's own git in a repository it does not control (the workspace's, for
 * Spec Kit's branches; the undo snapshots' shadow, which reads the
 * workspace): git never runs a program the repository, its work tree or an
 * included config file can name, and never sees a credential.
 *
 * - Every call carries `--no-pager` and GIT_CODE_OFF on its command line,
 *   which wins over every config file: no hooks, fsmonitor, pager, editor,
 *   external diff, credential helper, ssh command, transport, submodule
 *   recursion, signing, auto-gc, template or implicit bare repository.
 * - What config defines by name (filter, diff, merge and tool drivers,
 *   configured hooks, trailer commands) is listed first and each one is
 *   turned off the same way (see readRepositoryGit).
 * - The environment is scrubbed of credentials and of every GIT_* variable.
 *
 * The same listing says which paths the config makes git run or read as
 * config: the folder core.hooksPath names (`.husky`), config files included
 * from the work tree, programs named by path. They are protected like `.git`
 * (ProtectedPaths, the sandbox), so a model cannot plant what the user's own
 * git would run next.
 */
import { existsSync } from 'node:fs';
import { devNull, homedir } from 'node:os';
import path from 'node:path';
import { withoutSecrets } from '../config/secret-variables';
import { childProcess } from '../vocabulary/first-use';

/** Settings on every call of Crow's git: each turns off a way git runs a program nobody asked for. */
export const GIT_CODE_OFF: readonly string[] = [
  `core.hooksPath=${devNull}`,
  'core.fsmonitor=false',
  'core.pager=cat',
  'core.editor=:',
  'sequence.editor=:',
  'core.askPass=',
  'core.sshCommand=false',
  'core.gitProxy=',
  'core.alternateRefsCommand=',
  'diff.external=',
  'credential.helper=',
  'protocol.allow=never',
  'submodule.recurse=false',
  'safe.bareRepository=explicit',
  'init.templateDir=',
  'uploadpack.packObjectsHook=',
  'commit.gpgSign=false',
  'tag.gpgSign=false',
  'log.showSignature=false',
  'gc.auto=0',
  'maintenance.auto=false',
];

/** Named config entries that run a program, and the overrides that turn each name off. */
const NAMED_CODE: { key: RegExp; off: (name: string) => string[] }[] = [
  { key: /^filter\.(.+)\.(clean|smudge|process|required)$/, off: (n) => [`filter.${n}.clean=`, `filter.${n}.smudge=`, `filter.${n}.process=`, `filter.${n}.required=false`] },
  { key: /^diff\.(.+)\.(command|textconv)$/, off: (n) => [`diff.${n}.command=`, `diff.${n}.textconv=`] },
  { key: /^merge\.(.+)\.driver$/, off: (n) => [`merge.${n}.driver=`] },
  { key: /^hook\.(.+)\.(command|event|enabled)$/, off: (n) => [`hook.${n}.event=`, `hook.${n}.enabled=false`] },
  { key: /^mergetool\.(.+)\.cmd$/, off: (n) => [`mergetool.${n}.cmd=`] },
  { key: /^difftool\.(.+)\.cmd$/, off: (n) => [`difftool.${n}.cmd=`] },
  { key: /^trailer\.(.+)\.(cmd|command)$/, off: (n) => [`trailer.${n}.cmd=`, `trailer.${n}.command=`] },
  { key: /^credential\.(.+)\.helper$/, off: (n) => [`credential.${n}.helper=`] },
];

/** Config keys whose value is a program (or a command line) git runs. */
const RUNS_PROGRAM =
  /^(core\.(fsmonitor|pager|editor|sshcommand|askpass|gitproxy|alternaterefscommand)|sequence\.editor|diff\.external|gpg\.(.+\.)?program|credential\.(.+\.)?helper|filter\..+\.(clean|smudge|process)|diff\..+\.(command|textconv)|merge\..+\.driver|hook\..+\.command|(merge|diff)tool\..+\.cmd|trailer\..+\.(cmd|command)|uploadpack\.packobjectshook|pager\..+)$/;

/** What the repository's git config asks git to run, and how Crow's git turns it off. */
export interface RepositoryGit {
  /** `-c` settings for the named drivers and hooks the config defines, each turned off. */
  overrides: string[];
  /**
   * Absolute paths whose content git runs or reads as config: the hooks
   * folder core.hooksPath names, config files (included ones too), and
   * programs config names by path. Missing ones included: creating them
   * is what must not happen.
   */
  codePaths: string[];
  /** Why git must not run here at all (a name no override can spell); the message says what to do. */
  problem?: string;
}

const NO_CONFIG: RepositoryGit = { overrides: [], codePaths: [] };
const LIST_TIMEOUT_MS = 10_000;

/** The arguments of one call of Crow's git: `--no-pager`, the settings that turn code off, then `args`. */
export function safeGitArgs(repository: RepositoryGit, args: readonly string[]): string[] {
  return ['--no-pager', ...[...GIT_CODE_OFF, ...repository.overrides].flatMap((setting) => ['-c', setting]), ...args];
}

/**
 * The environment of Crow's git: `env` without credentials (and `hidden`),
 * without any GIT_* variable (which could name another repository, config,
 * pager or program), never prompting.
 */
export function gitEnvironment(env: NodeJS.ProcessEnv, hidden: readonly string[] = []): NodeJS.ProcessEnv {
  const kept = Object.entries(withoutSecrets(env, hidden)).filter(([name]) => !name.toUpperCase().startsWith('GIT_'));
  return { ...Object.fromEntries(kept), GIT_TERMINAL_PROMPT: '0', GIT_PAGER: 'cat', GIT_EDITOR: ':' };
}

/** Reads the config git would use in `cwd` (without running anything of it); no config when git is missing or fails. */
export function readRepositoryGit(cwd: string, env: NodeJS.ProcessEnv): Promise<RepositoryGit> {
  return new Promise((resolve) => {
    childProcess().execFile('git', listArgs(), { cwd, env: gitEnvironment(env), timeout: LIST_TIMEOUT_MS, maxBuffer: 16 * 1024 * 1024, windowsHide: true }, (error, stdout) => {
      resolve(error ? NO_CONFIG : repositoryGitOf(String(stdout), cwd, env));
    });
  });
}

/** readRepositoryGit, waiting for git (for code that must decide at once, once per session). */
export function readRepositoryGitSync(cwd: string, env: NodeJS.ProcessEnv): RepositoryGit {
  const run = childProcess().spawnSync('git', listArgs(), { cwd, env: gitEnvironment(env), timeout: LIST_TIMEOUT_MS, maxBuffer: 16 * 1024 * 1024, encoding: 'utf8', windowsHide: true });
  return run.status === 0 ? repositoryGitOf(run.stdout, cwd, env) : NO_CONFIG;
}

function listArgs(): string[] {
  return safeGitArgs(NO_CONFIG, ['config', '--list', '--show-origin', '-z']);
}

interface ConfigEntry {
  /** The file the entry is in (absolute), undefined when it came from elsewhere (command line, blob). */
  file?: string;
  /** Section and name lower-cased, subsection as written: `filter.My.clean`. */
  key: string;
  value?: string;
}

/** Parses `git config --list --show-origin -z`: `origin NUL key [LF value] NUL`, repeated; paths relative to `cwd`. */
export function parseConfigList(text: string, cwd: string): ConfigEntry[] {
  const fields = text.split('\0');
  const entries: ConfigEntry[] = [];
  for (let i = 0; i + 1 < fields.length; i += 2) {
    const origin = fields[i]!;
    const record = fields[i + 1]!;
    const newline = record.indexOf('\n');
    const key = newline < 0 ? record : record.slice(0, newline);
    const file = origin.startsWith('file:') ? path.resolve(cwd, origin.slice('file:'.length)) : undefined;
    entries.push({ key, ...(file !== undefined ? { file } : {}), ...(newline >= 0 ? { value: record.slice(newline + 1) } : {}) });
  }
  return entries;
}

/** The overrides and code paths of a config listing (see RepositoryGit). */
export function repositoryGitOf(listing: string, cwd: string, env: NodeJS.ProcessEnv): RepositoryGit {
  const entries = parseConfigList(listing, cwd);
  const top = workTreeTop(cwd);
  const home = env.HOME ?? homedir();
  const overrides = new Set<string>();
  const codePaths = new Set<string>();
  let problem: string | undefined;
  for (const entry of entries) {
    if (entry.file !== undefined) codePaths.add(entry.file);
    const lower = lowerKey(entry.key);
    for (const { key, off } of NAMED_CODE) {
      const match = key.exec(lower);
      if (!match) continue;
      const name = entry.key.slice(entry.key.indexOf('.') + 1, entry.key.lastIndexOf('.'));
      if (/[=\n\0]/.test(name)) {
        problem ??= `the git config (${entry.file ?? 'command line'}) names a ${entry.key.split('.')[0]} "${name}" that Crow cannot turn off for its own git calls; rename it, or remove it from that file`;
      } else {
        for (const setting of off(name)) overrides.add(setting);
      }
    }
    const value = entry.value;
    if (value === undefined) continue;
    if (lower === 'core.hookspath') codePaths.add(resolveFrom(top ?? cwd, value, home));
    else if (lower === 'include.path' || /^includeif\..+\.path$/.test(lower)) codePaths.add(resolveFrom(entry.file ? path.dirname(entry.file) : cwd, value, home));
    else if (RUNS_PROGRAM.test(lower)) {
      const program = programPath(value);
      if (program !== undefined) codePaths.add(resolveFrom(top ?? cwd, program, home));
    }
  }
  return { overrides: [...overrides], codePaths: [...codePaths], ...(problem !== undefined ? { problem } : {}) };
}

/** Section and variable name lower-cased as git compares them; a subsection keeps its case. */
function lowerKey(key: string): string {
  const first = key.indexOf('.');
  const last = key.lastIndexOf('.');
  if (first < 0 || first === last) return key.toLowerCase();
  return `${key.slice(0, first).toLowerCase()}.${key.slice(first + 1, last)}.${key.slice(last + 1).toLowerCase()}`;
}

/** The first word of a command line when it names a program by path (`./scripts/clean.sh --x`); undefined for names looked up on PATH. */
function programPath(value: string): string | undefined {
  const first = /^\s*(?:"([^"]*)"|'([^']*)'|(\S+))/.exec(value);
  const word = first?.[1] ?? first?.[2] ?? first?.[3];
  if (word === undefined || word.startsWith('!') || !word.includes('/')) return undefined;
  return word;
}

function resolveFrom(base: string, value: string, home: string): string {
  if (value === '~' || value.startsWith('~/')) return path.join(home, value.slice(1));
  return path.resolve(base, value);
}

/** The top of the work tree holding `cwd`, where git runs hooks and drivers: the nearest folder with a `.git`; undefined outside any. */
function workTreeTop(cwd: string): string | undefined {
  for (let folder = path.resolve(cwd); ; folder = path.dirname(folder)) {
    if (existsSync(path.join(folder, '.git'))) return folder;
    if (path.dirname(folder) === folder) return undefined;
  }
}
