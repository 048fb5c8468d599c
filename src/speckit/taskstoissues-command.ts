/**
 * /speckit.taskstoissues: one GitHub issue per unticked task of the current
 * feature, in file order, made with the GitHub CLI (`gh issue create`) as
 * calls of the bash tool, so the permission policy and the sandbox decide
 * as for any command (gh needs the network: allow it, or github.com's
 * domains). Without gh, or without a gh login, it says how to get one.
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
  const login = await callTool(run, bashTool, { command: 'gh auth status' });
  if (login.status !== 'success' || login.metadata.extra.exitCode !== 0) {
    return void run.finish('error', `gh is not logged in to GitHub (gh auth status: ${lastLine(login.output || login.error || '')}). Run gh auth login, then /speckit.taskstoissues again. ${NO_NETWORK}`);
  }
  run.say(`Feature ${feature.dir} (${context.how}): making ${open.length} issue${open.length === 1 ? '' : 's'}, one per unticked task.`);
  const made: string[] = [];
  for (const task of open) {
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
    const title = `${task.id} ${task.description}`.slice(0, 240);
    const result = await callTool(run, bashTool, { command: `gh issue create --title ${quote(title)} --body ${quote(body)}` });
    const url = /https?:\/\/\S+/.exec(result.output)?.[0];
    if (result.status !== 'success' || result.metadata.extra.exitCode !== 0 || url === undefined) {
      const done = made.length > 0 ? ` Made before it: ${made.join(', ')}.` : '';
      return void run.finish('error', `gh issue create failed for ${task.id}: ${lastLine(result.output || result.error || '')}.${done} ${NO_NETWORK}`);
    }
    made.push(`${task.id} ${url}`);
  }
  run.say(made.join('\n'));
  const message = `Made ${made.length} issue${made.length === 1 ? '' : 's'} for ${feature.dir}.`;
  const after = await runHooks(run, 'after_taskstoissues', input.args);
  run.finish(after === undefined ? 'completed' : 'error', after === undefined ? message : `${message} But: ${after}`);
}

function lastLine(text: string): string {
  return text.split('\n').map((line) => line.trim()).filter((line) => line !== '' && !/^\[exit code/.test(line)).at(-1)?.slice(0, 300) ?? '(no output)';
}

function quote(word: string): string {
  return `'${word.replace(/'/g, `'\\''`)}'`;
}
