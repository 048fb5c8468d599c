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

/**
 * Settings that take from git every program its configuration can name,
 * whoever wrote that configuration: hooks, fsmonitor, pager, editors,
 * askpass, ssh command and proxy, alternate-refs command, credential helper, upload-pack hook, interactive diff filter, signing
 * programs (back to git's defaults), templates and the ext:: transport;
 * and no bare repository git finds by itself (one planted in the
 * workspace has a config of its own). Crow's own git runs with them, and
 * so does every command that allow-list entries let run unasked (see
 * covered-command.ts). Each turns a program off or back to git's default.
 */
export const GIT_PROGRAMS_OFF: readonly string[] = [
  `core.hooksPath=${devNull}`,
  'core.fsmonitor=false',
  'core.pager=cat',
  'core.editor=:',
  'sequence.editor=:',
  'core.askPass=',
  'core.sshCommand=ssh',
  'core.gitProxy=',
  'core.alternateRefsCommand=',
  'credential.helper=',
  'safe.bareRepository=explicit',
  'init.templateDir=',
  'uploadpack.packObjectsHook=',
  'interactive.diffFilter=cat',
  'gpg.program=gpg',
  'gpg.openpgp.program=gpg',
  'gpg.x509.program=gpgsm',
  'gpg.ssh.program=ssh-keygen',
  'gpg.ssh.defaultKeyCommand=',
  'protocol.ext.allow=never',
];

/**
 * Settings on every call of Crow's git: GIT_PROGRAMS_OFF, and no external
 * diff, remote, submodule recursion, signing or tidying up, which it never
 * needs (an empty diff.external makes `git diff` fail, which Crow never runs).
 */
export const GIT_CODE_OFF: readonly string[] = [
  ...GIT_PROGRAMS_OFF,
  'diff.external=',
  'protocol.allow=never',
  'submodule.recurse=false',
  'commit.gpgSign=false',
  'tag.gpgSign=false',
  'log.showSignature=false',
  'gc.auto=0',
  'maintenance.auto=false',
];

/** Variables that keep git from paging, opening an editor or prompting, whatever the configuration says. */
const GIT_NO_INTERACTION = { GIT_TERMINAL_PROMPT: '0', GIT_PAGER: 'cat', GIT_EDITOR: ':' };

/**
 * What `git diff` runs instead of an external diff program the configuration
 * names: no setting turns one off, so this says so and fails (a shell
 * builtin, not a program of the repository). `--no-ext-diff` still diffs.
 */
const NO_EXTERNAL_DIFF = `echo "git: the external diff program git's configuration names does not run here; use git diff --no-ext-diff" >&2; false`;

/** Config entries that run a program (most by a name of their own), and the overrides that turn each one off. */
const NAMED_CODE: { key: RegExp; off: (name: string) => string[] }[] = [
  { key: /^filter\.(.+)\.(clean|smudge|process|required)$/, off: (n) => [`filter.${n}.clean=`, `filter.${n}.smudge=`, `filter.${n}.process=`, `filter.${n}.required=false`] },
  { key: /^diff\.(.+)\.(command|textconv)$/, off: (n) => [`diff.${n}.command=${NO_EXTERNAL_DIFF}`, `diff.${n}.textconv=cat`] },
  { key: /^diff\.external$/, off: () => [`diff.external=${NO_EXTERNAL_DIFF}`] },
  { key: /^merge\.(.+)\.driver$/, off: (n) => [`merge.${n}.driver=`] },
  { key: /^hook\.(.+)\.(command|event|enabled)$/, off: (n) => [`hook.${n}.event=`, `hook.${n}.enabled=false`] },
  { key: /^mergetool\.(.+)\.cmd$/, off: (n) => [`mergetool.${n}.cmd=`] },
  { key: /^difftool\.(.+)\.cmd$/, off: (n) => [`difftool.${n}.cmd=`] },
  { key: /^trailer\.(.+)\.(cmd|command)$/, off: (n) => [`trailer.${n}.cmd=`, `trailer.${n}.command=`] },
  { key: /^credential\.(.+)\.helper$/, off: (n) => [`credential.${n}.helper=`] },
];

/** Config keys whose value is a program (or a command line) git runs. */
const RUNS_PROGRAM =
  /^(core\.(fsmonitor|pager|editor|sshcommand|askpass|gitproxy|alternaterefscommand)|sequence\.editor|diff\.external|gpg\.(.+\.)?program|credential\.(.+\.)?helper|filter\..+\.(clean|smudge|process)|diff\..+\.(command|textconv)|merge\..+\.driver|hook\..+\.command|(merge|diff)tool\..+\.cmd|trailer\..+\.(cmd|command)|uploadpack\.packobjectshook|interactive\.difffilter|gpg\.ssh\.defaultkeycommand|pager\..+)$/;

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
  return { ...Object.fromEntries(kept), ...GIT_NO_INTERACTION };
}

/**
 * Variables that give a command, and every git it starts, GIT_PROGRAMS_OFF
 * and `repository`'s overrides as git's `-c` would (GIT_CONFIG_COUNT,
 * GIT_CONFIG_KEY_n, GIT_CONFIG_VALUE_n: configuration of the command line,
 * which wins over every file), without pager, editor or prompt. They
 * replace any GIT_CONFIG_COUNT list the environment held.
 */
export function gitProgramsOffVariables(repository: RepositoryGit): Record<string, string> {
  const settings = [...GIT_PROGRAMS_OFF, ...repository.overrides];
  const variables: Record<string, string> = { ...GIT_NO_INTERACTION, GIT_CONFIG_COUNT: String(settings.length) };
  settings.forEach((setting, i) => {
    const equals = setting.indexOf('=');
    variables[`GIT_CONFIG_KEY_${i}`] = setting.slice(0, equals);
    variables[`GIT_CONFIG_VALUE_${i}`] = setting.slice(equals + 1);
  });
  return variables;
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
  /** The entry came from the command line: one of Crow's own settings, not the repository's. */
  commandLine?: true;
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
    const commandLine = origin.startsWith('command line:');
    entries.push({ key, ...(file !== undefined ? { file } : {}), ...(commandLine ? { commandLine } : {}), ...(newline >= 0 ? { value: record.slice(newline + 1) } : {}) });
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
    if (entry.commandLine) continue;
    if (entry.file !== undefined) codePaths.add(entry.file);
    const lower = lowerKey(entry.key);
    for (const { key, off } of NAMED_CODE) {
      const match = key.exec(lower);
      if (!match) continue;
      const name = entry.key.slice(entry.key.indexOf('.') + 1, entry.key.lastIndexOf('.'));
      if (/[=\n\0]/.test(name)) {
        problem ??= `the git config (${entry.file ?? 'command line'}) names a ${entry.key.split('.')[0]} "${name}" that Crow cannot turn off when it runs git; rename it, or remove it from that file`;
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
