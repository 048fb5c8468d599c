/** /speckit.tasks: tasks.md from the plan, parsed, and shown as the session's plan (todo list). */
import type { TodoItem, TodoPriority } from '../tools/todos';
import { listFiles } from './command-run';
import { documentCommand } from './document-command';
import { chooseFeature, constitutionText, documentText, missing } from './feature-context';
import { CONSTITUTION_PATH } from './features';
import type { ProgrammaticCommand } from '../agents/programmatic-command';
import { type ParsedTasks, parseTasks, TasksFileError } from './tasks-parser';
import { readTemplate } from './templates';
import { field } from './repository-scripts';
import { filesUnder, readText } from './workspace-text';

export const tasksCommand: ProgrammaticCommand = documentCommand({
  name: 'speckit.tasks',
  hooks: 'tasks',
  description: "Break the current feature's plan into tasks.md (phases, [P] and [US] tags) and show them as the plan.",
  argumentHint: '[feature] [notes]',
  options: ['feature'],
  async prepare(run, args) {
    const { input } = run;
    const context = await chooseFeature(run, args, { script: 'setup-tasks', args: [] });
    if ('error' in context) return context.error;
    const { files, feature } = context;
    const absent = await missing(input, context, [
      { path: files.spec, command: '/speckit.specify' },
      { path: files.plan, command: '/speckit.plan' },
    ]);
    if (absent) return absent;
    const fromScript = context.script && field(context.script, 'TASKS_TEMPLATE_CONTENT');
    const template = fromScript !== undefined ? { text: fromScript, source: context.script!.path } : await readTemplate(input.workspace, input.prompts, 'tasks');
    const documents = [];
    for (const path of [files.research, files.dataModel, files.quickstart, ...(await filesUnder(input.workspace, files.contracts, 20))]) {
      const text = await documentText(input, path);
      if (text !== '') documents.push({ path, text });
    }
    return {
      folder: feature.dir,
      intro: `Feature ${feature.dir} (${context.how}).`,
      prompt: run.render('tasks', {
        args: context.text,
        feature_dir: feature.dir,
        spec_path: files.spec,
        spec: await documentText(input, files.spec),
        plan_path: files.plan,
        plan: await documentText(input, files.plan),
        tasks_path: files.tasks,
        documents,
        constitution: await constitutionText(input),
        constitution_path: CONSTITUTION_PATH,
        template: template.text,
        template_source: template.source,
      }),
      watch: [files.tasks],
      async check(changed) {
        if (!changed.includes(files.tasks)) {
          return { ok: false, message: `${files.tasks} was not written by ${input.agent.name}. Run /speckit.tasks again with an agent that can write files.` };
        }
        let parsed: ParsedTasks;
        try {
          parsed = parseTasks((await readText(input.workspace, files.tasks)) ?? '', files.tasks);
        } catch (err) {
          if (err instanceof TasksFileError) return { ok: false, message: err.message };
          throw err;
        }
        input.session.todos.replace(todoItems(parsed));
        const done = parsed.tasks.filter((t) => t.done).length;
        const warnings = parsed.warnings.map((w) => `\n  ${files.tasks}:${w.line}: ${w.message}`).join('');
        return {
          ok: true,
          message:
            `Tasks for ${feature.dir}: wrote ${listFiles(changed, feature.dir)}, ${parsed.tasks.length} tasks in ${parsed.phases.length} phases` +
            `${done > 0 ? ` (${done} done)` : ''}; they are the session's plan now.${warnings} Next: /speckit.analyze, then /speckit.implement.`,
        };
      },
    };
  },
});

/** The tasks as the session's todo list: P1 stories high, P3 and later low, everything else medium. */
export function todoItems(parsed: ParsedTasks): TodoItem[] {
  return parsed.tasks.map((task) => ({
    id: task.id,
    content: `${task.id}${task.parallel ? ' [P]' : ''}${task.story !== undefined ? ` [${task.story}]` : ''} ${task.description}`,
    status: task.done ? 'completed' : 'pending',
    priority: priorityOf(parsed.phases[task.phase]!.priority),
  }));
}

function priorityOf(priority: string | undefined): TodoPriority {
  if (priority === undefined) return 'medium';
  const level = Number.parseInt(priority.slice(1), 10);
  return level <= 1 ? 'high' : level === 2 ? 'medium' : 'low';
}
