/** /speckit.converge: the work the code still lacks against spec, plan and tasks, appended to tasks.md as new tasks. */
import { listFiles } from './command-run';
import { documentCommand } from './document-command';
import { documentText, featureWithTasks } from './feature-context';
import type { ProgrammaticCommand } from '../agents/programmatic-command';
import { parseTasks, TasksFileError } from './tasks-parser';
import { todoItems } from './tasks-command';
import { readText } from './workspace-text';

export const convergeCommand: ProgrammaticCommand = documentCommand({
  name: 'speckit.converge',
  hooks: 'converge',
  description: "Check the code against the current feature's spec, plan and tasks, and append what is still unbuilt to tasks.md as new tasks.",
  argumentHint: '[feature] [focus]',
  options: ['feature'],
  async prepare(run, args) {
    const { input } = run;
    const context = await featureWithTasks(run, args);
    if (typeof context === 'string') return context;
    const { files, feature } = context;
    const before = (await readText(input.workspace, files.tasks))!;
    let parsed;
    try {
      parsed = parseTasks(before, files.tasks);
    } catch (err) {
      if (err instanceof TasksFileError) return err.message;
      throw err;
    }
    const highest = Math.max(0, ...parsed.tasks.map((task) => Number.parseInt(task.id.slice(1), 10)));
    const numbered = parsed.phases.map((phase) => Number.parseInt(phase.number ?? '', 10)).filter(Number.isFinite);
    return {
      folder: feature.dir,
      intro: `Feature ${feature.dir} (${context.how}): ${parsed.tasks.length} tasks, ${parsed.tasks.filter((t) => t.done).length} ticked.`,
      prompt: run.render('converge', {
        args: context.text,
        feature_dir: feature.dir,
        spec_path: files.spec,
        spec: await documentText(input, files.spec),
        plan_path: files.plan,
        plan: await documentText(input, files.plan),
        tasks_path: files.tasks,
        tasks: await documentText(input, files.tasks),
        next_id: String(highest + 1).padStart(3, '0'),
        next_phase: Math.max(0, ...numbered) + 1,
      }),
      watch: [files.tasks],
      async check(changed) {
        const after = (await readText(input.workspace, files.tasks)) ?? '';
        let now;
        try {
          now = parseTasks(after, files.tasks);
        } catch (err) {
          if (err instanceof TasksFileError) return { ok: false, message: `${err.message}\nThe earlier ${files.tasks} is in git (or /undo).` };
          throw err;
        }
        const kept = parsed.tasks.every((task) => now.tasks.some((t) => t.id === task.id && t.description === task.description));
        if (!kept) return { ok: false, message: `${files.tasks} lost or changed existing tasks; /speckit.converge only appends. Undo with /undo and run it again.` };
        const added = now.tasks.filter((task) => !parsed.tasks.some((t) => t.id === task.id));
        input.session.todos.replace(todoItems(now));
        if (changed.length === 0 || added.length === 0) return { ok: true, message: `Converged ${feature.dir}: nothing is missing; no task was added.` };
        return {
          ok: true,
          message: `Converged ${feature.dir}: added ${added.length} task${added.length === 1 ? '' : 's'} (${added.map((t) => t.id).join(', ')}) to ${listFiles(changed, feature.dir)}. Next: /speckit.implement.`,
        };
      },
    };
  },
});
