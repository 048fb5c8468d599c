import type { Message } from '../../src/llm/types';

export const PNG = 'iVBORw0KGgo=';

/**
 * A realistic conversation for the wire-format tests: thinking with a
 * signature, text, two tool calls (one failing), then a user message with an image.
 */
export function sampleHistory(callIdPrefix: string, signature: string): Message[] {
  return [
    { role: 'user', content: [{ type: 'text', text: 'The add test fails. Fix it.' }] },
    {
      role: 'assistant',
      content: [
        { type: 'thinking', text: 'Read the file, then run the tests.', signature },
        { type: 'text', text: 'Let me look at the code first.' },
        { type: 'tool_call', id: `${callIdPrefix}01`, name: 'read_file', arguments: '{"path":"src/math.ts"}' },
        { type: 'tool_call', id: `${callIdPrefix}02`, name: 'bash', arguments: '{"command":"npm test"}' },
      ],
    },
    {
      role: 'tool_results',
      results: [
        { callId: `${callIdPrefix}01`, content: 'export const add = (a, b) => a - b;', isError: false },
        { callId: `${callIdPrefix}02`, content: 'exit code 1: 1 failing', isError: true },
      ],
    },
    {
      role: 'user',
      content: [
        { type: 'text', text: 'Here is what I see.' },
        { type: 'image', mimeType: 'image/png', data: PNG },
      ],
    },
  ];
}
