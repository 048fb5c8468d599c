/**
 * /speckit.implement: runs the unticked tasks of tasks.md in order, each
 * through a reviewed composition (task-pair unless --agent or
 * speckit.implement_agent names another), neighbouring [P] tasks of one
 * group at the same time, as many at once as the subagent concurrency
 * allows (a worker is told of the others only when they really run beside
 * it). An incomplete checklist stops it first unless the person confirms
 * (checklist-gate.ts). A task is ticked `[X]` only when its reviewer
 * approves; the first task that is not approved stops the run after its
 * batch, with a report quoting why; running again resumes at the first
 * unticked task. Before the first task, Spec Kit's ignore-file step
 * creates or completes .gitignore and its kin (ignore-files.ts). Progress
 * is the session's todo list. Spec Kit's
 * before_implement and after_implement hooks run around it.
 */
import type { Span } from '../telemetry/span';
import type { SubagentLauncher } from '../tools/tool';
import { parseCommandArgs } from './command-args';
import { type CommandRun, SPECKIT_AGENT, startCommand } from './command-run';
import { type FeatureContext, chooseFeature, missing } from './feature-context';
import { CONSTITUTION_PATH } from './features';
import { type Batch, batchesOf, concurrencyNote } from './implement-batches';
import type { CommandInput, ProgrammaticCommand } from '../agents/programmatic-command';
import { TaskRunner, type TaskOutcome } from './task-runner';
import { todoItems } from './tasks-command';
import { type ParsedTasks, parseTasks, type SpecTask, TasksFileError } from './tasks-parser';
import { clipped, filesUnder, readText } from './workspace-text';
import { checklistGate } from './checklist-gate';
import { runHooks } from './extension-hooks';
import { ignoreFileStep } from './ignore-files';

export const DEFAULT_IMPLEMENT_AGENT = 'task-pair';
/** Each document's share of a task's prompt; the worker reads the files for more. */
const DOCUMENT_CHARS = 20_000;

export const implementCommand: ProgrammaticCommand = {
  name: 'speckit.implement',
  description: "Carry out the current feature's tasks.md: each task by a worker and its reviewer, ticked when approved; resumes where it stopped.",
  argumentHint: '[feature] [--agent NAME]',
  run: (input: CommandInput) => startCommand('speckit.implement', input, (run) => implement(run)),
};

async function implement(run: CommandRun): Promise<void> {
  const { input } = run;
  const args = parseCommandArgs(input.args, { options: ['feature', 'agent'], flags: ['proceed'] });
  const before = await runHooks(run, 'before_implement', input.args);
  if (before !== undefined) return void run.finish('error', before);
  const context = await chooseFeature(run, args, { script: 'check-prerequisites', args: ['--require-tasks', '--include-tasks'] });
  if ('error' in context) return void run.finish('error', context.error);
  const { files, feature } = context;
  const absent = await missing(input, context, [
    { path: files.tasks, command: '/speckit.tasks' },
    { path: files.plan, command: '/speckit.plan' },
    { path: files.spec, command: '/speckit.specify' },
  ]);
  if (absent) return void run.finish('error', absent);
  const agent = args.options.agent ?? input.settings?.speckit?.implementAgent ?? DEFAULT_IMPLEMENT_AGENT;
  const launcher = usableLauncher(input, agent);
  if (typeof launcher === 'string') return void run.finish('error', launcher);

  let parsed: ParsedTasks;
  try {
    parsed = parseTasks((await readText(input.workspace, files.tasks))!, files.tasks);
  } catch (err) {
    if (err instanceof TasksFileError) return void run.finish('error', err.message);
    throw err;
  }
  input.session.todos.replace(todoItems(parsed));
  input.session.artifacts.setFeature(feature.dir);
  const batches = batchesOf(parsed);
  if (batches.length === 0) {
    run.say(`Feature ${feature.dir} (${context.how}): all ${parsed.tasks.length} tasks are ticked already.`);
    return void run.finish('completed', `Nothing to do in ${feature.dir}: every task in tasks.md is done.`);
  }
  const gate = await checklistGate(run, files.checklists, args.flags.has('proceed'));
  // Stopped because nobody could confirm (no terminal, as in CI, or no answer in time): an error, so crow
  // run exits 1 and CI does not read it as done. Declined by the person: their turn, as they chose.
  if (!gate.go && gate.declined) run.say(gate.message);
  if (!gate.go) return void run.finish(gate.declined ? 'needs_input' : 'error', gate.message);
  const ignored = await ignoreFileStep(run, files.plan);
  if (ignored.length > 0) run.record(feature.dir, ignored);
  const left = batches.flatMap((b) => b.tasks);
  run.say(
    `Feature ${feature.dir} (${context.how}): ${left.length} of ${parsed.tasks.length} tasks left, starting at ${left[0]!.id}. ` +
      `Each runs through ${agent} and is ticked in tasks.md once its reviewer approves.${gate.note}`,
  );
  const span = input.session.trace.startTrace('prompt', 'prompt speckit.implement', {
    agent: SPECKIT_AGENT,
    attributes: { 'crow.session.id': input.session.id, 'crow.speckit.feature': feature.dir, 'crow.speckit.implement_agent': agent },
  });
  const outcomes = await runBatches(run, { context, parsed, batches, agent, launcher, span });
  const status = report(run, context, parsed, outcomes, span);
  if (status.status === 'completed') {
    const after = await runHooks(run, 'after_implement', input.args);
    if (after !== undefined) return void run.finish('error', `${status.message} But: ${after}`);
  }
  run.finish(status.status, status.message);
}

/** The session's subagent launcher, if it offers `agent`; otherwise what to do. */
function usableLauncher(input: CommandInput, agent: string): SubagentLauncher | string {
  const launcher = input.session.subagents;
  if (!launcher) return '/speckit.implement needs subagents, and this session has none: start it from a front door that offers them (crow run, crow acp, VS Code).';
  const names = launcher.available().map((a) => a.name);
  if (!names.includes(agent)) return `"${agent}" is not a subagent this session can run. Subagents: ${names.join(', ') || 'none'}. Pick a reviewed one (e.g. task-pair) with --agent or speckit.implement_agent.`;
  return launcher;
}

interface RunPlan {
  context: FeatureContext;
  parsed: ParsedTasks;
  batches: Batch[];
  agent: string;
  launcher: SubagentLauncher;
  span: Span;
}

/** Runs batch after batch until one holds a task that was not approved, or the run is cancelled. */
async function runBatches(run: CommandRun, plan: RunPlan): Promise<TaskOutcome[]> {
  const { input } = run;
  const { files } = plan.context;
  const runner = new TaskRunner({ run, launcher: plan.launcher, agent: plan.agent, tasksPath: files.tasks, span: plan.span });
  const documents = {
    constitution: clippedText(await readText(input.workspace, CONSTITUTION_PATH), CONSTITUTION_PATH),
    spec: clippedText(await readText(input.workspace, files.spec), files.spec),
    plan: clippedText(await readText(input.workspace, files.plan), files.plan),
    others: await otherDocuments(input, files),
  };
  const outcomes: TaskOutcome[] = [];
  const finished = new Set(plan.parsed.tasks.filter((t) => t.done).map((t) => t.id));
  const atOnce = Math.max(1, plan.launcher.concurrencyFor?.(plan.agent) ?? 1);
  const held = plan.batches.find((b) => b.tasks.length > atOnce);
  if (held) run.say(concurrencyNote(held.tasks.map((t) => t.id), atOnce, plan.launcher.concurrencySource?.(plan.agent)));
  for (const batch of plan.batches.flatMap((b) => chunks(b, atOnce))) {
    if (input.signal.aborted) break;
    const results = await Promise.all(
      batch.tasks.map((task) => {
        const prompt = run.render('implement-task', {
          feature_dir: plan.context.feature.dir,
          task,
          task_line: taskLine(task),
          phase: batch.phase,
          parallel_with: batch.tasks.filter((t) => t !== task).map(taskLine),
          done_before: plan.parsed.tasks.filter((t) => finished.has(t.id)).slice(-30).map(taskLine),
          tasks_path: files.tasks,
          spec_path: files.spec,
          plan_path: files.plan,
          constitution_path: CONSTITUTION_PATH,
          ...documents,
        });
        return runner.runTask(task, prompt);
      }),
    );
    outcomes.push(...results);
    for (const result of results) if (result.done) finished.add(result.task.id);
    if (results.some((r) => !r.done)) break;
  }
  return outcomes;
}

function report(run: CommandRun, context: FeatureContext, parsed: ParsedTasks, outcomes: TaskOutcome[], span: Span): { status: 'completed' | 'cancelled' | 'error'; message: string } {
  const { feature, files } = context;
  const done = outcomes.filter((o) => o.done);
  const failed = outcomes.filter((o) => !o.done);
  const written = [...new Set([...(done.length > 0 ? [files.tasks] : []), ...outcomes.flatMap((o) => o.filesChanged)])];
  run.record(feature.dir, written);
  const lines = outcomes.map((o) => `${o.done ? '✓' : o.cancelled ? '⊘' : '✗'} ${o.task.id} ${o.summary}`);
  const remaining = parsed.tasks.filter((t) => !t.done && !done.some((o) => o.task.id === t.id));
  const cancelled = run.input.signal.aborted || failed.some((o) => o.cancelled);
  const next = remaining[0];
  let status: 'completed' | 'cancelled' | 'error';
  let message: string;
  if (remaining.length === 0) {
    status = 'completed';
    message = `Implemented ${feature.dir}: ${done.length} task${done.length === 1 ? '' : 's'} approved and ticked this run; every task in tasks.md is done.`;
  } else if (cancelled) {
    status = 'cancelled';
    message = `Cancelled in ${feature.dir} with ${done.length} task${done.length === 1 ? '' : 's'} ticked this run. Run /speckit.implement again to resume at ${next!.id}.`;
  } else {
    status = 'error';
    const why = failed.map((o) => `${o.task.id}: ${o.summary}`).join('; ');
    message = `Stopped in ${feature.dir}, phase "${parsed.phases[next!.phase]!.title}": ${why}. ${done.length} task${done.length === 1 ? '' : 's'} ticked this run. Fix the cause (or edit the task) and run /speckit.implement again: it resumes at ${next!.id}.`;
  }
  if (lines.length > 0) run.say(lines.join('\n'));
  span.set({ 'crow.run.status': status, 'crow.speckit.done': done.map((o) => o.task.id), 'crow.run.files_changed': written });
  span.end(status === 'error' ? 'error' : status === 'cancelled' ? 'cancelled' : 'ok', status === 'error' ? message : undefined);
  return { status, message };
}

/** A batch cut into runs of at most `size` tasks: those really run side by side. */
function chunks(batch: Batch, size: number): Batch[] {
  const parts: Batch[] = [];
  for (let i = 0; i < batch.tasks.length; i += size) parts.push({ phase: batch.phase, tasks: batch.tasks.slice(i, i + size) });
  return parts;
}

function taskLine(task: SpecTask): string {
  return `${task.id}${task.parallel ? ' [P]' : ''}${task.story !== undefined ? ` [${task.story}]` : ''} ${task.description}`;
}

function clippedText(text: string | undefined, path: string): string {
  return text === undefined ? '' : clipped(text, DOCUMENT_CHARS, path);
}

/** The feature's other design documents, by path, for the worker to read when it needs them. */
async function otherDocuments(input: CommandInput, files: FeatureContext['files']): Promise<string[]> {
  const paths: string[] = [];
  for (const path of [files.research, files.dataModel, files.quickstart]) if (await input.workspace.stat(path)) paths.push(path);
  paths.push(...(await filesUnder(input.workspace, files.contracts, 20)));
  return paths;
}
