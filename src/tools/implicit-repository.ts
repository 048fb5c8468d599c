/**
 * Repositories git finds by itself where no `.git` is in the path: a folder
 * holding HEAD with objects/ and refs/ (or with a commondir file), which git
 * takes for a bare repository, its `config` file included (core.fsmonitor,
 * core.worktree, hooks). Nothing protects such a folder the way `.git` is
 * protected, so whoever writes the workspace can make one. A command line
 * whose git would find one is asked every time (PermissionGate); a command
 * that runs unasked gets safe.bareRepository=explicit anyway (covered-command.ts),
 * so its git refuses the folder.
 */
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import type { CommandJudgement } from './command-rules';

/**
 * The folders git would take for a bare repository of their own when the
 * git commands of `judgement` run, starting in `start` (absolute): git's
 * discovery from the working folder, from every folder the line changes
 * into and from every `git -C` folder, upwards, stopping where a `.git`
 * is found as git does. Empty when the line runs no git.
 */
export function implicitRepositoriesMet(judgement: CommandJudgement, start: string): string[] {
  const gits = judgement.commands.filter(({ command }) => command.words[0] !== undefined && path.basename(command.words[0]) === 'git');
  if (gits.length === 0) return [];
  const bases = [start];
  let current = start;
  for (const dir of judgement.dirs) {
    current = resolveFolder(current, dir.path, dir.tilde);
    bases.push(current, resolveFolder(start, dir.path, dir.tilde));
  }
  const folders = new Set(bases);
  for (const { command } of gits) {
    command.words.forEach((word, i) => {
      const next = command.words[i + 1];
      if (word === '-C' && next !== undefined) for (const base of bases) folders.add(resolveFolder(base, next, command.tilde[i + 1] ?? false));
    });
  }
  const found = new Set<string>();
  for (const folder of folders) {
    const repository = discoveredBare(folder);
    if (repository !== undefined) found.add(repository);
  }
  return [...found];
}

/** The bare repository git's discovery from `folder` ends at, if it ends at one; undefined when it finds a `.git` first or nothing. */
function discoveredBare(folder: string): string | undefined {
  for (let level = folder; ; level = path.dirname(level)) {
    // Inside a .git folder git takes that folder, which is protected and never implicit.
    if (level.split(path.sep).includes('.git') || existsSync(path.join(level, '.git'))) return undefined;
    if (looksBare(level)) return level;
    if (path.dirname(level) === level) return undefined;
  }
}

/** What git's is_git_directory asks of a folder: HEAD, and objects/ and refs/ there or in the folder its commondir names. */
function looksBare(folder: string): boolean {
  const has = (name: string): boolean => existsSync(path.join(folder, name));
  return has('HEAD') && (has('commondir') || (has('objects') && has('refs')));
}

function resolveFolder(base: string, target: string, tilde: boolean): string {
  if (tilde && (target === '~' || target.startsWith('~/'))) return path.join(homedir(), target.slice(1));
  return path.resolve(base, target);
}

/** Why a command line that meets `repositories` (absolute) is asked every time, naming them relative to `root`. */
export function implicitRepositoryNote(repositories: readonly string[], root: string): string {
  const names = repositories.map((folder) => path.relative(root, folder) || '.').join(', ');
  const many = repositories.length > 1;
  return (
    `git would use ${names} as ${many ? 'repositories of their own' : 'a repository of its own'} (HEAD, objects/ and refs/ without a .git: ` +
    `a bare repository, whose config can name programs git runs), so git commands there are asked every time; ` +
    `unless you made ${many ? 'them' : 'it'}, remove those files`
  );
}
