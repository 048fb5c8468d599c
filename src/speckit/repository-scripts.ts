/**
 * A Spec Kit repository's own scripts (`.specify/scripts/`), which win over
 * Crow's built-in equivalents when they exist: create-new-feature,
 * setup-plan, setup-tasks and check-prerequisites, run with `--json` as
 * Spec Kit's commands run them, their JSON read from the last line of
 * their output that holds one. The flavour follows init-options.json's
 * `script` (sh, py or ps), else the first present of bash and python.
 *
 * They are repository code: each runs as a call of the bash tool, through
 * the session's permission policy and the command sandbox (no credential in
 * its environment, writes only inside the workspace), never on the host
 * directly. A script the policy refuses is not run, and the command says so.
 */
import { bashTool } from '../tools/builtin/bash';
import { callTool } from './command-tools';
import type { CommandRun } from './command-run';
import { initOptions } from './features';

export type ScriptName = 'create-new-feature' | 'setup-plan' | 'setup-tasks' | 'check-prerequisites';

const FLAVOURS = {
  sh: { folder: 'bash', file: (name: string) => `${name}.sh`, runner: 'bash', json: '--json' },
  py: { folder: 'python', file: (name: string) => `${name.replace(/-/g, '_')}.py`, runner: 'python3', json: '--json' },
  ps: { folder: 'powershell', file: (name: string) => `${name}.ps1`, runner: 'pwsh -NoProfile -File', json: '-Json' },
} as const;
type Flavour = keyof typeof FLAVOURS;

/** How long a script may run. */
const SCRIPT_TIMEOUT_MS = 120_000;

export interface ScriptOutcome {
  /** The script's JSON output. */
  json: Record<string, unknown>;
  /** The script, workspace-relative. */
  path: string;
}

/** The repository's script `name`, workspace-relative, with how to run it; undefined when it has none. */
export async function repositoryScript(run: CommandRun, name: ScriptName): Promise<{ path: string; flavour: Flavour } | undefined> {
  const { workspace } = run.input;
  const chosen = (await initOptions(workspace)).script;
  const order: Flavour[] = chosen === 'py' || chosen === 'ps' || chosen === 'sh' ? [chosen] : ['sh', 'py'];
  for (const flavour of order) {
    const { folder, file } = FLAVOURS[flavour];
    const path = `.specify/scripts/${folder}/${file(name)}`;
    if ((await workspace.stat(path))?.type === 'file') return { path, flavour };
  }
  return undefined;
}

/**
 * Runs the repository's script `name` with `args` (and `env` set for it)
 * through the bash tool; undefined when the repository has no such script,
 * an error saying what happened and what to do when it could not run or
 * failed or printed no JSON.
 */
export async function runRepositoryScript(run: CommandRun, name: ScriptName, args: readonly string[], env: Record<string, string> = {}): Promise<ScriptOutcome | { error: string } | undefined> {
  const script = await repositoryScript(run, name);
  if (!script) return undefined;
  const { runner, json } = FLAVOURS[script.flavour];
  const assignments = Object.entries(env).map(([key, value]) => `${key}=${quote(value)} `).join('');
  const command = `${assignments}${runner} ${script.path} ${[json, ...args.map(quote)].join(' ')}`;
  const result = await callTool(run, bashTool, { command, timeout_ms: SCRIPT_TIMEOUT_MS });
  if (result.metadata.extra.permission === 'denied') {
    return { error: `The repository's ${script.path} must run for /${run.name} (Spec Kit's own scripts win over Crow's), and it was not allowed: ${result.error} It runs in the command sandbox like any command of the agent's.` };
  }
  const exitCode = result.metadata.extra.exitCode;
  if (result.status !== 'success' || exitCode !== 0) {
    return { error: `${script.path} failed (${exitCode === undefined || exitCode === null ? result.error ?? 'did not finish' : `exit ${exitCode}`}): ${lastLines(result.output)}. Fix the script or what it says, then run /${run.name} again.` };
  }
  const parsed = lastJson(result.output);
  if (!parsed) return { error: `${script.path} printed no JSON object (it was run with ${json}): ${lastLines(result.output)}. Spec Kit's scripts print one line of JSON; fix the script.` };
  return { json: parsed, path: script.path };
}

/** A string field of a script's JSON; undefined when missing. */
export function field(outcome: ScriptOutcome, name: string): string | undefined {
  const value = outcome.json[name];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** A path a script printed (absolute inside the workspace, or relative), workspace-relative. */
export function workspacePath(run: CommandRun, path: string): string {
  const root = run.input.workspace.root.replace(/\\/g, '/').replace(/\/+$/, '');
  const forward = path.replace(/\\/g, '/').replace(/\/+$/, '');
  return forward.startsWith(`${root}/`) ? forward.slice(root.length + 1) : forward.replace(/^\.\//, '');
}

function lastJson(output: string): Record<string, unknown> | undefined {
  for (const line of output.split('\n').reverse()) {
    const text = line.trim();
    if (!text.startsWith('{')) continue;
    try {
      const value = JSON.parse(text) as unknown;
      if (typeof value === 'object' && value !== null && !Array.isArray(value)) return value as Record<string, unknown>;
    } catch {
      // Not JSON: keep looking.
    }
  }
  return undefined;
}

function lastLines(output: string): string {
  const lines = output.split('\n').filter((line) => line.trim() !== '' && !/^\[exit code \d+\]$/.test(line.trim()));
  return lines.slice(-3).join(' / ').slice(0, 400) || '(no output)';
}

/** A word for bash, single-quoted unless it needs no quoting. */
function quote(word: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}
