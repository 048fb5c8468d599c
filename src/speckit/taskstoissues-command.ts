/**
 * /speckit.taskstoissues: one GitHub issue per unticked task of the current
 * feature, in file order, made with the GitHub CLI as calls of the bash
 * tool, so the permission policy and the sandbox decide as for any command
 * (gh needs the network: allow it, or github.com's domains). As Spec Kit's
 * command does, it works only in the GitHub repository `remote.origin.url`
 * names (github-remote.ts), titles each issue `T001: description`, and
 * first lists the repository's issues, open and closed, so a task whose id
 * is in an issue's title already gets no second one: running it again
 * makes only what is missing. Without gh, or without a gh login, it says
 * how to get one.
 */
import { parseCommandArgs } from './command-args';
import { type CommandRun, startCommand } from './command-run';
import { chooseFeature, missing } from './feature-context';
import type { CommandInput, ProgrammaticCommand } from '../agents/programmatic-command';
import { bashTool } from '../tools/builtin/bash';
import { findExecutable } from '../tools/node-exec';
import { callTool } from './command-tools';
import { runHooks } from './extension-hooks';
import { parseTasks, TasksFileError } from './tasks-parser';
import { readText } from './workspace-text';
import { secretVariableNames } from '../config/secret-variables';
import { gitConfigValue } from './git-branch';
import { githubRepository, shownUrl } from './github-remote';

export const taskstoissuesCommand: ProgrammaticCommand = {
  name: 'speckit.taskstoissues',
  description: "Turn the current feature's unticked tasks into GitHub issues, in order, with the GitHub CLI (gh).",
  argumentHint: '[feature]',
  run: (input: CommandInput) => startCommand('speckit.taskstoissues', input, (run) => toIssues(run)),
};

const NO_NETWORK = 'If gh could not reach GitHub, the command sandbox keeps the network off: run with --allow network, or add github.com and api.github.com to [sandbox] allow_domains.';

async function toIssues(run: CommandRun): Promise<void> {
  const { input } = run;
  const args = parseCommandArgs(input.args, { options: ['feature'] });
  if (findExecutable('gh', input.env.PATH ?? '') === undefined) {
    return void run.finish('error', '/speckit.taskstoissues makes issues with the GitHub CLI, gh, which is not installed (not on PATH). Install it (https://cli.github.com), run gh auth login, then run /speckit.taskstoissues again.');
  }
  const before = await runHooks(run, 'before_taskstoissues', input.args);
  if (before !== undefined) return void run.finish('error', before);
  const context = await chooseFeature(run, args, { script: 'check-prerequisites', args: ['--require-tasks', '--include-tasks'], readOnly: true });
  if ('error' in context) return void run.finish('error', context.error);
  const { files, feature } = context;
  const absent = await missing(input, context, [{ path: files.tasks, command: '/speckit.tasks' }]);
  if (absent) return void run.finish('error', absent);
  let parsed;
  try {
    parsed = parseTasks((await readText(input.workspace, files.tasks))!, files.tasks);
  } catch (err) {
    if (err instanceof TasksFileError) return void run.finish('error', err.message);
    throw err;
  }
  const open = parsed.tasks.filter((task) => !task.done);
  if (open.length === 0) return void run.finish('completed', `Every task of ${feature.dir} is ticked: no issue to make.`);
  const repository = await originRepository(run);
  if ('error' in repository) return void run.finish('error', repository.error);
  const login = await callTool(run, bashTool, { command: 'gh auth status' });
  if (login.status !== 'success' || login.metadata.extra.exitCode !== 0) {
    return void run.finish('error', `gh is not logged in to GitHub (gh auth status: ${lastLine(login.output || login.error || '')}). Run gh auth login, then /speckit.taskstoissues again. ${NO_NETWORK}`);
  }
  const existing = await existingIssues(run, repository.repo);
  if ('error' in existing) return void run.finish('error', existing.error);
  run.say(`Feature ${feature.dir} (${context.how}): ${open.length} unticked task${open.length === 1 ? '' : 's'}, for ${repository.repo} (remote origin ${repository.url}).${existing.note}`);
  const made: string[] = [];
  const skipped: string[] = [];
  for (const task of open) {
    const already = existing.byTask.get(task.id);
    if (already !== undefined) {
      skipped.push(`${task.id} already has an issue: ${already}`);
      continue;
    }
    const body = run.render('taskstoissues', {
      task_id: task.id,
      feature_dir: feature.dir,
      tasks_path: files.tasks,
      line: task.line,
      description: task.description,
      phase: parsed.phases[task.phase]?.title ?? '',
      depends_on: task.dependsOn.join(', '),
      spec_path: files.spec,
      plan_path: files.plan,
    });
    const title = `${task.id}: ${task.description}`.slice(0, TITLE_LIMIT);
    const result = await callTool(run, bashTool, { command: `gh issue create --repo ${quote(repository.repo)} --title ${quote(title)} --body ${quote(body)}` });
    const url = /https?:\/\/\S+/.exec(result.output)?.[0];
    if (result.status !== 'success' || result.metadata.extra.exitCode !== 0 || url === undefined) {
      const done = made.length > 0 ? ` Made before it: ${made.join(', ')}.` : '';
      return void run.finish('error', `gh issue create failed for ${task.id}: ${lastLine(result.output || result.error || '')}.${done} ${NO_NETWORK}`);
    }
    made.push(`${task.id} ${url}`);
  }
  if (made.length + skipped.length > 0) run.say([...skipped, ...made].join('\n'));
  const message = `Made ${made.length} issue${made.length === 1 ? '' : 's'} for ${feature.dir} in ${repository.repo}${skipped.length > 0 ? `; ${skipped.length} task${skipped.length === 1 ? '' : 's'} had one already` : ''}.`;
  run.say(message);
  const after = await runHooks(run, 'after_taskstoissues', input.args);
  run.finish(after === undefined ? 'completed' : 'error', after === undefined ? message : `${message} But: ${after}`);
}

function lastLine(text: string): string {
  return text.split('\n').map((line) => line.trim()).filter((line) => line !== '' && !/^\[exit code/.test(line)).at(-1)?.slice(0, 300) ?? '(no output)';
}

function quote(word: string): string {
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

/** GitHub's limit on an issue title. */
const TITLE_LIMIT = 256;
/** How many of the repository's issues are read for task ids (newest first; gh's JSON of 500 stays under the tool's output cap). */
const ISSUE_SCAN = 500;
/** A task id in a title, as Spec Kit matches it: T and at least three digits, a whole word ("T001: …", "[T001] …"). */
const TASK_ID = /\bT\d{3,}\b/g;

/** The GitHub repository of remote.origin.url, or why there is none to make issues in. */
async function originRepository(run: CommandRun): Promise<{ repo: string; url: string } | { error: string }> {
  const { input } = run;
  const url = await gitConfigValue(input.workspace.root, input.env, 'remote.origin.url', secretVariableNames(input.settings));
  const stop = 'Nothing was made: Spec Kit makes issues only in the GitHub repository of remote.origin.url, never in another.';
  if (url === undefined) return { error: `This repository has no remote "origin" (git config --get remote.origin.url). ${stop} Add it (git remote add origin https://github.com/OWNER/REPO.git) and run /speckit.taskstoissues again.` };
  const repo = githubRepository(url);
  if (repo === undefined) return { error: `The remote origin is ${shownUrl(url)}, which is not a GitHub repository. ${stop}` };
  return { repo, url: shownUrl(url) };
}

/** The repository's issues (open and closed) by the task ids in their titles. */
async function existingIssues(run: CommandRun, repo: string): Promise<{ byTask: Map<string, string>; note: string } | { error: string }> {
  const listed = await callTool(run, bashTool, { command: `gh issue list --repo ${quote(repo)} --state all --limit ${ISSUE_SCAN} --json number,title` });
  const failed = listed.status !== 'success' || listed.metadata.extra.exitCode !== 0;
  let issues: unknown;
  try {
    // gh prints its JSON on one line when its output is not a terminal; the tool's own notes come after it.
    issues = failed ? undefined : JSON.parse(listed.output.split('\n').find((line) => /^\[.*\]$/.test(line) && !/^\[exit code/.test(line)) ?? '');
  } catch {
    issues = undefined;
  }
  if (!Array.isArray(issues)) {
    return { error: `gh issue list could not list the issues of ${repo} (${lastLine(listed.output || listed.error || '')}), so Crow cannot tell which tasks have one already; nothing was made. ${NO_NETWORK}` };
  }
  const byTask = new Map<string, string>();
  for (const issue of issues as { number?: unknown; title?: unknown }[]) {
    if (typeof issue?.title !== 'string' || typeof issue.number !== 'number') continue;
    for (const id of issue.title.match(TASK_ID) ?? []) if (!byTask.has(id)) byTask.set(id, `https://github.com/${repo}/issues/${issue.number}`);
  }
  const note = issues.length >= ISSUE_SCAN ? ` Only its newest ${ISSUE_SCAN} issues were read for task ids: an older issue for a task is not seen.` : '';
  return { byTask, note };
}
