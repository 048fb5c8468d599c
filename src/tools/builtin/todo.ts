import * as z from 'zod';
import { defineTool } from '../define-tool';
import type { TodoItem } from '../todos';

const todoItem = () =>
  z.object({
    id: z.string().min(1).describe('Stable id of the item, e.g. "1" or "tests".'),
    content: z.string().min(1).describe('What to do, as a short imperative sentence.'),
    status: z.enum(['pending', 'in_progress', 'completed']),
    priority: z.enum(['high', 'medium', 'low']).default('medium'),
  });

const MARKS: Record<TodoItem['status'], string> = { pending: '[ ]', in_progress: '[~]', completed: '[x]' };

/** The list as the model (and a person) reads it. */
export function formatTodos(items: readonly TodoItem[]): string {
  if (items.length === 0) return 'The todo list is empty.';
  const done = items.filter((item) => item.status === 'completed').length;
  const lines = items.map((item) => `${MARKS[item.status]} ${item.id}. ${item.content}${item.priority === 'medium' ? '' : ` (${item.priority})`}`);
  return `${lines.join('\n')}\n${done} of ${items.length} completed.`;
}

export const todoWriteTool = defineTool({
  name: 'todo_write',
  description:
    'Replace the task list shared by everyone working on this task (your reviewer sees it too). Send the ' +
    'whole list each time. Use it for work with several steps: one item in_progress at a time, mark items ' +
    'completed as soon as they are done.',
  kind: 'think',
  permission: 'none',
  parameters: () => z.object({ todos: z.array(todoItem()).describe('The complete new list.') }),
  summarize: ({ todos }) => `${todos.length} items`,
  async execute({ todos }, { todos: store }) {
    const ids = new Set<string>();
    for (const item of todos) {
      if (ids.has(item.id)) throw new Error(`Two items have the id "${item.id}"; ids must be unique.`);
      ids.add(item.id);
    }
    const inProgress = todos.filter((item) => item.status === 'in_progress').length;
    store.replace(todos);
    const warning = inProgress > 1 ? `\nNote: ${inProgress} items are in_progress; keep one at a time.` : '';
    return { output: `${formatTodos(store.list())}${warning}`, extra: { todos: store.list() } };
  },
});

export const todoReadTool = defineTool({
  name: 'todo_read',
  description: 'Read the task list shared by everyone working on this task.',
  kind: 'read',
  permission: 'none',
  readOnly: true,
  parameters: () => z.object({}),
  summarize: () => '',
  async execute(_args, { todos }) {
    return { output: formatTodos(todos.list()) };
  },
});
