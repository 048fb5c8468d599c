/**
 * The GitHub CLI double (test/fixtures/speckit/gh-double.cjs) put in a
 * repository's `.tools/` (inside the workspace: the command sandbox shows
 * the host's /tmp to no command), with its state: the login and each
 * repository's issues. `PATH` puts it first.
 */
import { chmodSync, copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { FIXTURES } from './speckit';
import type { SpeckitRepo } from './speckit-repo';

export interface GhIssue {
  number: number;
  title: string;
  body?: string;
  state: 'OPEN' | 'CLOSED';
}

export interface GhDouble {
  /** The PATH to run crow with: the double first. */
  path: string;
  /** Every call's arguments, in order. */
  calls(): string[][];
  issues(repo: string): GhIssue[];
  /** Sets the state: logged in or not, and the issues a repository has already. */
  set(state: { loggedIn?: boolean; issues?: Record<string, GhIssue[]> }): void;
}

export function installGh(repo: SpeckitRepo): GhDouble {
  const bin = join(repo.root, '.tools');
  mkdirSync(bin, { recursive: true });
  copyFileSync(join(FIXTURES, 'gh-double.cjs'), join(bin, 'gh'));
  chmodSync(join(bin, 'gh'), 0o755);
  const statePath = join(bin, 'gh-state.json');
  const read = (): { loggedIn: boolean; issues: Record<string, GhIssue[]> } =>
    existsSync(statePath) ? JSON.parse(readFileSync(statePath, 'utf8')) : { loggedIn: true, issues: {} };
  writeFileSync(statePath, JSON.stringify(read()));
  return {
    path: `${bin}:${repo.env.PATH}`,
    calls: () => {
      const log = join(bin, 'gh-calls.jsonl');
      return existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n').filter(Boolean).map((line) => JSON.parse(line) as string[]) : [];
    },
    issues: (name) => read().issues[name] ?? [],
    set: (state) => writeFileSync(statePath, JSON.stringify({ ...read(), ...state })),
  };
}
