/**
 * Runs one task of tasks.md through a reviewed subagent composition, as the
 * task tool would (its subagent_start/progress/end events land in a `task`
 * tool call of its own), keeps the todo list in step, and ticks the task in
 * tasks.md only when the composition's reviewer approved it.
 */
import { randomUUID } from 'node:crypto';
import type { Span } from '../telemetry/span';
import type { SubagentLauncher, SubagentOutcome, ToolResult } from '../tools/tool';
import { commandToolContext } from './command-tools';
import type { TodoStatus } from '../tools/todos';
import { type CommandRun, SPECKIT_AGENT } from './command-run';
import { setTaskDone } from './task-ticks';
import type { SpecTask } from './tasks-parser';
import { readText } from './workspace-text';

export interface TaskOutcome {
  task: SpecTask;
  /** Approved by the reviewer and ticked in tasks.md. */
  done: boolean;
  cancelled: boolean;
  /** The subagent's one-line report, or why the task did not count as done. */
  summary: string;
  filesChanged: string[];
}

export interface TaskRunnerOptions {
  run: CommandRun;
  launcher: SubagentLauncher;
  /** The reviewed composition every task runs through, e.g. "task-pair". */
  agent: string;
  tasksPath: string;
  /** The span the tasks' spans hang below. */
  span: Span;
}

export class TaskRunner {
  private writes: Promise<unknown> = Promise.resolve();

  constructor(private readonly options: TaskRunnerOptions) {}

  async runTask(task: SpecTask, prompt: string): Promise<TaskOutcome> {
    const { run, agent, launcher } = this.options;
    const callId = `speckit-${task.id}-${randomUUID().slice(0, 8)}`;
    const started = performance.now();
    run.emit({
      type: 'tool_call_start',
      agent: SPECKIT_AGENT,
      callId,
      tool: 'task',
      kind: 'other',
      arguments: { agent, task: task.id },
      summary: `${agent}: ${task.id} ${task.description}`,
      locations: task.files.filter((file) => !file.endsWith('/')).map((path) => ({ path })),
    });
    this.setTodo(task.id, 'in_progress');
    const span = this.options.span.child('tool', 'execute_tool task', {
      agent: SPECKIT_AGENT,
      attributes: { 'gen_ai.tool.name': 'task', 'gen_ai.tool.call.id': callId, 'crow.speckit.task': task.id },
    });
    const outcome = await launcher.run({ agent, task: prompt }, commandToolContext(run, callId, { span, subagents: launcher }));
    const result = await this.conclude(task, outcome);
    this.setTodo(task.id, result.done ? 'completed' : 'pending');
    span.set({ 'crow.speckit.task.done': result.done });
    span.end(result.done ? 'ok' : result.cancelled ? 'cancelled' : 'error', result.done ? undefined : result.summary);
    run.emit({ type: 'tool_call_end', agent: SPECKIT_AGENT, callId, tool: 'task', result: toolResult(result, outcome, started), durationMs: Math.round(performance.now() - started) });
    return result;
  }

  /** Ticks an approved task; unticks one that was not approved, in case the worker ticked it itself. */
  private async conclude(task: SpecTask, outcome: SubagentOutcome): Promise<TaskOutcome> {
    const base = { task, filesChanged: outcome.filesChanged ?? [], cancelled: outcome.status === 'cancelled' };
    const approved = outcome.status === 'completed' && outcome.approvedBy !== undefined;
    try {
      await this.tick(task.id, approved);
    } catch (err) {
      return { ...base, done: false, summary: `${approved ? 'approved, but ' : ''}${(err as Error).message}` };
    }
    if (approved) return { ...base, done: true, summary: `${outcome.summary} (approved by ${outcome.approvedBy})` };
    if (outcome.status === 'completed') {
      return { ...base, done: false, summary: `${this.options.agent} has no reviewer to approve the task, and tasks are ticked only on a reviewer's approval: pick a reviewed composition such as task-pair (--agent or speckit.implement_agent).` };
    }
    return { ...base, done: false, summary: outcome.summary };
  }

  /** Writes to tasks.md one at a time, each re-reading the file, so parallel tasks never lose each other's ticks. */
  private tick(id: string, done: boolean): Promise<void> {
    const { run, tasksPath } = this.options;
    const write = this.writes.then(async () => {
      const text = await readText(run.input.workspace, tasksPath);
      if (text === undefined) throw new Error(`${tasksPath} is gone, so ${id} could not be marked.`);
      const updated = setTaskDone(text, id, done);
      if (!updated.changed) return;
      await run.input.workspace.writeFile(tasksPath, updated.text);
      run.filesChanged.add(tasksPath);
    });
    this.writes = write.catch(() => undefined);
    return write;
  }

  private setTodo(id: string, status: TodoStatus): void {
    const { todos } = this.options.run.input.session;
    todos.replace(todos.list().map((item) => (item.id === id ? { ...item, status } : item)));
  }
}

function toolResult(result: TaskOutcome, outcome: SubagentOutcome, started: number): ToolResult {
  const status = result.done ? 'success' : result.cancelled ? 'cancelled' : 'error';
  return {
    status,
    output: outcome.result,
    ...(result.done ? {} : { error: `${result.task.id} not done: ${result.summary}` }),
    metadata: {
      filesModified: result.filesChanged,
      durationMs: Math.round(performance.now() - started),
      extra: { subagent: outcome.status, ...(outcome.sessionId !== undefined ? { sessionId: outcome.sessionId } : {}), ticked: result.done },
    },
  };
}
