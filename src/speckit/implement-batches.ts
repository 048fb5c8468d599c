import type { ParsedTasks, SpecTask, TaskPhase } from './tasks-parser';

/** Tasks that run at the same time: one task, or neighbouring [P] tasks of one phase. */
export interface Batch {
  phase: TaskPhase;
  tasks: SpecTask[];
}

/**
 * The tasks still to do, in file order, grouped into batches: a run of
 * consecutive [P] tasks under the same sub-heading of the same phase is one
 * batch, every other task is a batch of its own. A batch never crosses a
 * sub-heading: the tests of "Tests for User Story 1" are written (and fail)
 * before the implementation under the next heading starts. A [P] task joins
 * its neighbours only when it names none of their files and depends on none
 * of them; otherwise it starts the next batch. Done tasks are skipped, so a
 * second run resumes at the first unticked task.
 */
export function batchesOf(parsed: ParsedTasks): Batch[] {
  const batches: Batch[] = [];
  let open: Batch | undefined;
  for (const task of parsed.tasks) {
    if (task.done) continue;
    const sameGroup = open !== undefined && open.phase.index === task.phase && open.tasks[0]!.group === task.group;
    if (open && sameGroup && task.parallel && open.tasks.every((t) => t.parallel) && fitsWith(open.tasks, task)) {
      open.tasks.push(task);
      continue;
    }
    open = { phase: parsed.phases[task.phase]!, tasks: [task] };
    batches.push(open);
  }
  return batches;
}

function fitsWith(batch: readonly SpecTask[], task: SpecTask): boolean {
  const files = new Set(batch.flatMap((t) => t.files));
  const ids = new Set(batch.map((t) => t.id));
  return !task.files.some((file) => files.has(file)) && !task.dependsOn.some((id) => ids.has(id)) && !batch.some((t) => t.dependsOn.includes(task.id));
}

/**
 * Why the [P] tasks `ids` run `atOnce` at a time instead of together, and
 * how to change it: the setting that decides it (`source`, from the
 * subagent launcher), or the default for a model server of one's own.
 */
export function concurrencyNote(ids: readonly string[], atOnce: number, source: { kind: string; setting?: string } | undefined): string {
  const which = `[P] tasks ${ids.join(', ')} run ${atOnce === 1 ? 'one at a time' : `${atOnce} at a time`}`;
  const raise = (key: string): string => `If it can answer more at once, raise it in config.toml: [limits] concurrency = { ${key} = ${Math.max(2, ids.length)} }.`;
  if (source === undefined) return `${which}: this session runs ${atOnce} subagent${atOnce === 1 ? '' : 's'} at once.`;
  if (source.setting === undefined && source.kind === 'local') {
    return `${which}: the model server is one of your own, and limits.concurrency.local is ${atOnce} by default (one request at a time). ${raise('local')}`;
  }
  if (source.setting === undefined) return `${which}: that is the default for ${source.kind} models. ${raise(source.kind)}`;
  if (source.setting === 'session') return `${which}: this session runs ${atOnce} subagent${atOnce === 1 ? '' : 's'} of that model at once.`;
  const key = source.setting.replace(/^limits\.concurrency\./, '');
  return source.setting.startsWith('limits.concurrency.')
    ? `${which}: limits.concurrency.${key} is ${atOnce}. ${raise(key)}`
    : `${which}: ${source.setting} is ${atOnce}. Raise it in config.toml, or set [limits] concurrency for this provider.`;
}
