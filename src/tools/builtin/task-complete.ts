import * as z from 'zod';
import { TASK_COMPLETE } from '../../vocabulary/tool-names';
import { defineTool } from '../define-tool';
import { oneLine } from '../../vocabulary/text';


export const taskCompleteTool = defineTool({
  name: TASK_COMPLETE,
  description:
    'Call this only when the whole task is done and you have verified the result (for example by running ' +
    'the tests or the program). Give a summary of what you did, which files changed and how you checked it. ' +
    'Do not call it to ask a question or to report partial progress.',
  kind: 'other',
  permission: 'none',
  parameters: () => z.object({
    summary: z.string().min(1).describe('What was done, which files changed, and how it was verified.'),
  }),
  summarize: ({ summary }) => oneLine(summary),
  async execute({ summary }) {
    return { output: summary };
  },
});
