/**
 * Evaluation tasks: one folder each under eval/tasks/, holding
 *   task.toml   the prompt, category, difficulty, the hidden check command,
 *               the visible check (what a developer would run), protected files
 *   files/      the project the agent starts from
 *   hidden/     files the agent never sees, copied in after the run (hidden tests)
 *   solution/   the files a correct fix writes (for the scripted solver only)
 *   wrong/      the files of the obvious wrong fix, where the task has a trap
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { parse } from 'smol-toml';
import * as z from 'zod';

export const CATEGORIES = ['bug-fix', 'feature', 'refactor', 'trap', 'multi-file', 'protected', 'command-output'] as const;
export type TaskCategory = (typeof CATEGORIES)[number];

const TaskFileSchema = z
  .object({
    prompt: z.string().min(1),
    category: z.enum(CATEGORIES),
    difficulty: z.enum(['easy', 'medium', 'hard']),
    language: z.enum(['javascript', 'typescript', 'python']),
    /** Run in the workspace after hidden/ is copied in; exit 0 passes. */
    check: z.string().min(1),
    /** What a developer (or a verifying reviewer) would run; the scripted solver runs it too. */
    visible_check: z.string().min(1).optional(),
    /** Workspace-relative files the agent must leave as they are. */
    protected: z.array(z.string()).default([]),
    check_timeout_seconds: z.number().int().positive().default(60),
    /** Programs the check needs (e.g. python3): a task whose program is missing is skipped, saying so. */
    requires: z.array(z.string()).default([]),
  })
  .strict();

export interface EvalTask {
  name: string;
  dir: string;
  prompt: string;
  category: TaskCategory;
  difficulty: 'easy' | 'medium' | 'hard';
  language: string;
  check: string;
  visibleCheck?: string;
  protected: string[];
  checkTimeoutMs: number;
  requires: string[];
}

export class EvalTaskError extends Error {
  override name = 'EvalTaskError';
}

/** A suite as found: the tasks that load, and one line per task folder that does not (file and field named). */
export interface Suite {
  tasks: EvalTask[];
  problems: string[];
}

/**
 * The tasks under `root` whose names match `pattern` (comma-separated names
 * or globs with * and ?), by name. A broken task is reported in `problems`
 * with every other one found, and the valid tasks are still returned.
 */
export function loadSuite(root: string, pattern?: string): Suite {
  if (!existsSync(root)) throw new EvalTaskError(`No task folder at ${root}. Point --tasks-dir at a folder of tasks (see eval/tasks/ in the repository).`);
  const names = readdirSync(root).filter((name) => existsSync(join(root, name, 'task.toml'))).sort();
  const wanted = pattern === undefined ? names : names.filter(matcher(pattern));
  if (wanted.length === 0) {
    throw new EvalTaskError(`No task matches "${pattern}" in ${root}. Tasks: ${names.join(', ') || '(none)'}.`);
  }
  const suite: Suite = { tasks: [], problems: [] };
  for (const name of wanted) {
    try {
      suite.tasks.push(loadTask(join(root, name)));
    } catch (err) {
      if (!(err instanceof EvalTaskError)) throw err;
      suite.problems.push(err.message);
    }
  }
  return suite;
}

/** The tasks of loadSuite, or an EvalTaskError listing every broken one. */
export function loadTasks(root: string, pattern?: string): EvalTask[] {
  const suite = loadSuite(root, pattern);
  if (suite.problems.length > 0) throw new EvalTaskError(suite.problems.join('\n'));
  return suite.tasks;
}

export function loadTask(dir: string): EvalTask {
  const name = dir.split(/[\\/]/).filter(Boolean).pop()!;
  const file = join(dir, 'task.toml');
  let raw: unknown;
  try {
    raw = parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new EvalTaskError(`${file}: ${(err as Error).message}`);
  }
  const parsed = TaskFileSchema.safeParse(raw);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join('.') || '(file)'}: ${issue.message}`);
    throw new EvalTaskError(`${file}: ${problems.join('; ')}`);
  }
  if (!existsSync(join(dir, 'files'))) throw new EvalTaskError(`${dir} has no files/ folder: the project the agent starts from.`);
  const task = parsed.data;
  return {
    name,
    dir,
    prompt: task.prompt.trim(),
    category: task.category,
    difficulty: task.difficulty,
    language: task.language,
    check: task.check,
    ...(task.visible_check !== undefined ? { visibleCheck: task.visible_check } : {}),
    protected: task.protected,
    checkTimeoutMs: task.check_timeout_seconds * 1000,
    requires: task.requires,
  };
}

/** Every file under `dir` by relative path (forward slashes), with its text; empty when `dir` is missing. */
export function filesUnder(dir: string): Record<string, string> {
  if (!existsSync(dir)) return {};
  const files: Record<string, string> = {};
  const walk = (folder: string): void => {
    for (const entry of readdirSync(folder)) {
      const path = join(folder, entry);
      if (statSync(path).isDirectory()) walk(path);
      else files[relative(dir, path).split('\\').join('/')] = readFileSync(path, 'utf8');
    }
  };
  walk(dir);
  return files;
}

/** A test for task names: comma-separated names or patterns where * is any run of characters and ? one character. */
export function matcher(pattern: string): (name: string) => boolean {
  const parts = pattern.split(',').map((part) => part.trim()).filter(Boolean);
  const regexes = parts.map((part) => new RegExp(`^${part.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.')}$`));
  return (name) => regexes.some((regex) => regex.test(name));
}
