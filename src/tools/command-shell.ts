/**
 * The shell the `bash` tool runs a command line with.
 *
 * On Linux and macOS: bash from PATH, else sh.
 *
 * On Windows: Git for Windows' bash.exe ("Git Bash"), and nothing else.
 * The tool is named `bash`, its description and every model's habits are
 * POSIX shell, and Crow's own reading of a command line (command-rules.ts:
 * which programs it runs, what its redirections write, whether it touches a
 * protected path) parses POSIX shell. PowerShell would run the same words
 * with other meanings (`rm -rf`, `$VAR`, `2>&1`, quoting), so the judge
 * would misread what a line does; a PowerShell fallback is therefore not
 * offered, and a machine without Git Bash gets an error saying how to get
 * it. WSL's `bash.exe` (in System32, or the WindowsApps alias) is never
 * used: it runs in a Linux machine of its own, where the workspace's paths
 * and Crow's environment are not what the command sees.
 *
 * Where it looks on Windows, in order: CROW_GIT_BASH_PATH (the user's own
 * environment, trusted; a path that is not there is an error, never a
 * reason to pick another), the Git next to `git.exe` on PATH, the usual
 * install folders, then `bash.exe` on PATH outside System32 and WindowsApps.
 * Relative PATH entries are skipped: they would be read from the folder
 * Crow runs in, often the workspace, which the project writes.
 */
import { accessSync, constants } from 'node:fs';
import { posix, win32 } from 'node:path';

export type ShellChoice = { shell: string } | { problem: string };

export interface ShellSearch {
  platform: NodeJS.Platform;
  env: NodeJS.ProcessEnv;
  /** Whether an executable file is at this absolute path. */
  exists: (file: string) => boolean;
}

export const GIT_FOR_WINDOWS = 'https://gitforwindows.org';

/** Whether an executable file is at `file` (on Windows: whether a file is there). */
export function isExecutable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * The shell a terminal of the editor or of an ACP client starts for a
 * command: `bash` as that terminal finds it, and on Windows the Git Bash
 * chooseShell finds here (a bare `bash` there may be WSL's).
 */
export function terminalShell(platform: NodeJS.Platform = process.platform, env: NodeJS.ProcessEnv = process.env): ShellChoice {
  return platform === 'win32' ? chooseShell({ platform, env, exists: isExecutable }) : { shell: 'bash' };
}

/** The shell for command lines on `platform`, or why there is none. */
export function chooseShell(search: ShellSearch): ShellChoice {
  return search.platform === 'win32' ? windowsShell(search) : { shell: posixShell(search) };
}

function posixShell({ env, exists }: ShellSearch): string {
  for (const dir of (env.PATH ?? '').split(posix.delimiter)) {
    if (dir !== '' && exists(posix.join(dir, 'bash'))) return posix.join(dir, 'bash');
  }
  return 'sh';
}

function windowsShell({ env, exists }: ShellSearch): ShellChoice {
  const variable = variableOf(env, 'CROW_GIT_BASH_PATH');
  if (variable !== undefined && variable !== '') {
    if (exists(variable)) return { shell: variable };
    return { problem: `CROW_GIT_BASH_PATH names ${variable}, which is not there. Point it at Git Bash's bash.exe (for example C:\\Program Files\\Git\\bin\\bash.exe), or unset it.` };
  }
  // Only absolute folders: a relative one would be read from the folder Crow runs in, often the workspace, which the project writes.
  const path = (variableOf(env, 'PATH') ?? '').split(win32.delimiter).filter((dir) => /^(?:[A-Za-z]:[\\/]|[\\/]{2}[^\\/])/.test(dir));
  const candidates = [
    ...path.filter((dir) => exists(win32.join(dir, 'git.exe'))).flatMap(gitRootsOf).map((root) => win32.join(root, 'bin', 'bash.exe')),
    ...['ProgramFiles', 'ProgramW6432', 'ProgramFiles(x86)'].flatMap((name) => {
      const folder = variableOf(env, name);
      return folder ? [win32.join(folder, 'Git', 'bin', 'bash.exe')] : [];
    }),
    ...(variableOf(env, 'LOCALAPPDATA') ? [win32.join(variableOf(env, 'LOCALAPPDATA')!, 'Programs', 'Git', 'bin', 'bash.exe')] : []),
    ...path.filter((dir) => !isWslFolder(dir, env)).map((dir) => win32.join(dir, 'bash.exe')),
  ];
  const found = candidates.find((file) => exists(file));
  if (found !== undefined) return { shell: found };
  return {
    problem:
      `Commands run with Git Bash on Windows, and it was not found. Install Git for Windows (${GIT_FOR_WINDOWS}), ` +
      'or set CROW_GIT_BASH_PATH to its bash.exe, then start Crow again.',
  };
}

/** Where Git for Windows is installed, for a folder holding its git.exe (`<Git>\cmd`, `<Git>\bin`, `<Git>\mingw64\bin`). */
function gitRootsOf(dir: string): string[] {
  const parent = win32.dirname(dir);
  const base = win32.basename(dir).toLowerCase();
  if (base === 'cmd' || base === 'bin') {
    const grand = win32.dirname(parent);
    return /^mingw(32|64)$/i.test(win32.basename(parent)) ? [grand] : [parent];
  }
  return [];
}

/** Folders whose bash.exe is WSL's: System32 (and SysWOW64, Sysnative) and the WindowsApps aliases. */
function isWslFolder(dir: string, env: NodeJS.ProcessEnv): boolean {
  const folded = win32.resolve(dir).toLowerCase();
  const system = (variableOf(env, 'SystemRoot') ?? 'C:\\Windows').toLowerCase();
  const systemFolders = ['system32', 'syswow64', 'sysnative'].map((name) => win32.join(system, name));
  return systemFolders.includes(folded) || /\\windowsapps$/.test(folded);
}

/** An environment variable by name, as Windows reads names (any case). */
function variableOf(env: NodeJS.ProcessEnv, name: string): string | undefined {
  if (env[name] !== undefined) return env[name];
  const key = Object.keys(env).find((candidate) => candidate.toLowerCase() === name.toLowerCase());
  return key === undefined ? undefined : env[key];
}
