import assert from 'node:assert/strict';
import { toAnthropicMessages } from '../../../src/llm/anthropic-format';
import { toOpenAIMessages } from '../../../src/llm/openai-format';
import type { Message } from '../../../src/llm/types';
import { PNG } from '../../support/sample-history';

const history: Message[] = [
  { role: 'user', content: [{ type: 'text', text: 'What does the logo show?' }] },
  { role: 'assistant', content: [{ type: 'tool_call', id: 'c1', name: 'read_file', arguments: '{"path":"logo.png"}' }] },
  {
    role: 'tool_results',
    results: [
      {
        callId: 'c1',
        content: 'logo.png is an image (image/png, 1 KB), attached.',
        isError: false,
        images: [{ type: 'image', mimeType: 'image/png', data: PNG }],
      },
    ],
  },
];

describe('images returned by tools', () => {
  it('go inside the tool_result for Anthropic', () => {
    const [, , results] = toAnthropicMessages(history);
    assert.deepEqual(results, {
      role: 'user',
      content: [
        {
          type: 'tool_result',
          tool_use_id: 'c1',
          is_error: false,
          cache_control: { type: 'ephemeral' },
          content: [
            { type: 'text', text: 'logo.png is an image (image/png, 1 KB), attached.' },
            { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG } },
          ],
        },
      ],
    });
  });

  it('follow the tool messages as one user message for OpenAI', () => {
    const messages = toOpenAIMessages('', history);
    assert.deepEqual(messages.slice(2), [
      { role: 'tool', tool_call_id: 'c1', content: 'logo.png is an image (image/png, 1 KB), attached.' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Image returned by tool call c1:' },
          { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG}` } },
        ],
      },
    ]);
  });
});
