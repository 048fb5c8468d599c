/**
 * One temp folder per workbench holding everything code-server and the
 * extension host write: a home, the XDG dirs, VS Code's user data and
 * extensions, a temp dir, and a copy of the fixture workspace (tests may
 * change its files). Removing the folder removes every trace of the run.
 */
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join, sep } from 'node:path';
import { FIXTURE_WORKSPACE, LM_FIXTURE_EXTENSION } from './paths';

export interface Sandbox {
  root: string;
  userDataDir: string;
  extensionsDir: string;
  /** The workspace folder the workbench opens. */
  workspace: string;
  /** The whole environment of code-server and so of the extension host. */
  env: NodeJS.ProcessEnv;
  dispose(): void;
}

/**
 * Variables passed through from the caller; everything else is left out, so
 * API keys (ANTHROPIC_API_KEY, OPENAI_API_KEY), CROW_* settings and the
 * caller's npm_* variables never reach the extension under test.
 */
const PASSED_THROUGH = ['PATH', 'LANG', 'LC_ALL', 'TZ', 'TERM'];

/** A quiet workbench: no welcome page or update checks, and the built-in chat panel does not cover the views. */
const USER_SETTINGS = {
  'workbench.startupEditor': 'none',
  'workbench.secondarySideBar.defaultVisibility': 'hidden',
  'telemetry.telemetryLevel': 'off',
  'extensions.autoCheckUpdates': false,
  'extensions.autoUpdate': false,
  // The terminal drawn as DOM text rather than on a canvas, so a check can read what a person sees in it.
  'terminal.integrated.gpuAcceleration': 'off',
};

export function createSandbox(name: string, workspaceSettings?: Record<string, unknown>, userSettings: Record<string, unknown> = {}): Sandbox {
  const root = mkdtempSync(join(tmpdir(), `crow-vscode-e2e-${name}-`));
  const home = join(root, 'home');
  const dirs = {
    HOME: home,
    XDG_CONFIG_HOME: join(home, '.config'),
    XDG_DATA_HOME: join(home, '.local', 'share'),
    XDG_STATE_HOME: join(home, '.local', 'state'),
    XDG_CACHE_HOME: join(home, '.cache'),
    TMPDIR: join(root, 'tmp'),
  };
  for (const dir of Object.values(dirs)) mkdirSync(dir, { recursive: true });
  const userDataDir = join(root, 'user-data');
  writeJson(join(userDataDir, 'User', 'settings.json'), { ...USER_SETTINGS, ...userSettings });
  const workspace = join(root, 'workspace');
  cpSync(FIXTURE_WORKSPACE, workspace, { recursive: true });
  if (workspaceSettings) mergeWorkspaceSettings(workspace, workspaceSettings);

  const env: NodeJS.ProcessEnv = { SHELL: '/bin/bash', LANG: 'C.UTF-8' };
  for (const variable of PASSED_THROUGH) {
    if (process.env[variable] !== undefined) env[variable] = process.env[variable];
  }
  // `npm run` put node_modules/.bin folders first on PATH; VS Code as a user starts it has none.
  env.PATH = (env.PATH ?? '').split(delimiter).filter((dir) => dir && !dir.includes(`${sep}node_modules${sep}`)).join(delimiter);
  Object.assign(env, dirs);
  // Also removed when the runner exits early (Ctrl-C, the hard timeout).
  const remove = (): void => removeSandbox(root, home);
  process.once('exit', remove);
  return {
    root,
    userDataDir,
    extensionsDir: join(root, 'extensions'),
    workspace,
    env,
    dispose: () => {
      process.off('exit', remove);
      remove();
    },
  };
}

/**
 * Stops what still runs with the sandbox's home (a terminal's shell is put in
 * its own session by VS Code's pty host, so killing code-server's process group
 * misses it, and it may still be writing there), then removes the folder. A
 * folder that cannot be removed is reported, not thrown: the tests have
 * already given their verdict.
 */
function removeSandbox(root: string, home: string): void {
  for (const pid of processesWithHome(home)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
  }
  try {
    rmSync(root, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
  } catch (error) {
    process.stderr.write(`[vscode-e2e] could not remove ${root}: ${(error as Error).message}\n`);
  }
}

/** Processes (other than this one) whose environment has HOME set to `home`; empty where /proc is missing. */
function processesWithHome(home: string): number[] {
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return [];
  }
  const wanted = `HOME=${home}`;
  const found: number[] = [];
  for (const entry of entries) {
    const pid = Number(entry);
    if (!Number.isInteger(pid) || pid === process.pid) continue;
    try {
      if (readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').includes(wanted)) found.push(pid);
    } catch {
      // Gone, or not ours to read.
    }
  }
  return found;
}

/** Adds `settings` to the workspace's .vscode/settings.json (plain JSON, no comments). */
function mergeWorkspaceSettings(workspace: string, settings: Record<string, unknown>): void {
  const file = join(workspace, '.vscode', 'settings.json');
  let existing: Record<string, unknown> = {};
  try {
    existing = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  writeJson(file, { ...existing, ...settings });
}

function writeJson(file: string, value: unknown): void {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify(value, null, 2)}\n`);
}

/**
 * Puts test/vscode-lm-fixture (a language-model provider, vendor
 * "crow-test") among the sandbox's installed extensions, in a folder named
 * as an installed extension's is: the workbench honours only one
 * extensionDevelopmentPath, which is Crow's.
 */
export function installLmFixture(extensionsDir: string): void {
  const { publisher, name, version } = JSON.parse(readFileSync(join(LM_FIXTURE_EXTENSION, 'package.json'), 'utf8')) as Record<string, string>;
  cpSync(LM_FIXTURE_EXTENSION, join(extensionsDir, `${publisher}.${name}-${version}`), { recursive: true });
}
