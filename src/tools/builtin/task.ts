import * as z from 'zod';
import { defineTool } from '../define-tool';
import { oneLine } from '../../vocabulary/text';

export const TASK = 'task';

/**
 * Delegates a task to a subagent with a fresh context. Calls made together
 * in one response may run in parallel (bounded per provider by the runner).
 */
export const taskTool = defineTool({
  name: TASK,
  description:
    'Delegate a self-contained task to a subagent. It starts with a fresh context: only the task you write ' +
    'and its own instructions, none of this conversation, so include every detail it needs (files, goals, ' +
    'constraints). It returns a markdown report whose "## Summary" line says what it did. Several task ' +
    'calls in one response may run in parallel. Use it for independent research, reviews or sub-jobs.',
  kind: 'other',
  permission: 'none',
  parallel: true,
  parameters: () => z.object({
    agent: z.string().min(1).describe('The subagent to run, by name.'),
    task: z.string().min(1).describe('The complete task for the subagent.'),
  }),
  summarize: ({ agent, task }) => `${agent}: ${oneLine(task)}`,
  async execute({ agent, task }, ctx) {
    if (!ctx.subagents) throw new Error('Subagents are not available in this session.');
    const outcome = await ctx.subagents.run({ agent, task }, ctx);
    const extra = { subagent: agent, status: outcome.status, summary: outcome.summary, ...outcome.extra };
    const withSession = outcome.sessionId !== undefined ? { ...extra, sessionId: outcome.sessionId } : extra;
    if (outcome.status === 'completed') return { output: outcome.result, extra: withSession };
    return { output: outcome.result, error: `Subagent ${agent} ${outcome.status}: ${outcome.summary}`, extra: withSession };
  },
});
