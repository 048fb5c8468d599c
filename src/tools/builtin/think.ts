import * as z from 'zod';
import { defineTool } from '../define-tool';
import { oneLine } from '../../vocabulary/text';

export const thinkTool = defineTool({
  name: 'think',
  description:
    'A scratchpad for reasoning. Use it to plan, weigh options, or check your work before acting. ' +
    'It changes nothing, fetches nothing and stores nothing.',
  kind: 'think',
  permission: 'none',
  readOnly: true,
  parameters: () => z.object({
    thought: z.string().describe('Your reasoning.'),
  }),
  summarize: ({ thought }) => oneLine(thought),
  async execute() {
    return { output: 'Thought noted.' };
  },
});
