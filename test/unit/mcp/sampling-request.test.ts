import assert from 'node:assert/strict';
import { SAMPLING_LIMITS, samplingRequest, SamplingRefusal } from '../../../src/mcp/sampling-request';

const text = (role: string, value: string) => ({ role, content: { type: 'text', text: value } });
const refused = (params: Record<string, unknown>, why: RegExp) =>
  assert.throws(() => samplingRequest('srv', params), (err: unknown) => err instanceof SamplingRefusal && /MCP server "srv" asked for a model request Crow will not run/.test(err.message) && why.test(err.message));

describe('sampling requests', () => {
  it('reads text and images into alternating messages, and caps maxTokens', () => {
    const read = samplingRequest('srv', {
      systemPrompt: 'Be brief.',
      maxTokens: 1_000_000,
      messages: [text('user', 'One'), { role: 'user', content: { type: 'image', data: 'AAAA', mimeType: 'image/png' } }, text('assistant', 'Two'), text('user', 'Three')],
    });
    assert.equal(read.maxTokens, SAMPLING_LIMITS.maxTokens);
    assert.equal(read.system, 'Be brief.');
    assert.deepEqual(read.messages.map((message) => message.role), ['user', 'assistant', 'user']);
    assert.deepEqual(read.messages[0], { role: 'user', content: [{ type: 'text', text: 'One' }, { type: 'image', data: 'AAAA', mimeType: 'image/png' }] });
    assert.equal(read.preview, 'System: Be brief.\nUser: One [image]\nAssistant: Two\nUser: Three');
    assert.equal(samplingRequest('srv', { maxTokens: 100, messages: [text('user', 'x')] }).maxTokens, 100);
  });

  it('refuses what it will not run: tools, audio, no messages, too many or too long, an assistant first', () => {
    refused({ messages: [text('user', 'x')], tools: [{ name: 't', inputSchema: {} }] }, /offers the model tools/);
    refused({ messages: [{ role: 'user', content: { type: 'audio', data: 'x', mimeType: 'audio/wav' } }] }, /content of type "audio"/);
    refused({ messages: [] }, /sent no messages/);
    refused({ messages: Array.from({ length: 51 }, (_, i) => text(i % 2 ? 'assistant' : 'user', 'x')) }, /51 messages; at most 50/);
    refused({ messages: [text('user', 'x'.repeat(SAMPLING_LIMITS.textChars + 1))] }, /text is over 200000 characters/);
    refused({ messages: [text('assistant', 'x')] }, /first message is not the user's/);
    refused({ messages: [text('system', 'x')] }, /role is "system"/);
  });

  it('shows hostile text as text in the preview, and clips it', () => {
    const read = samplingRequest('srv', { messages: [text('user', `Hi\u001b[2J\u202e${'y'.repeat(2_000)}`)] });
    assert.match(read.preview, /^User: Hi\\u001b\[2J\\u202ey+…?/);
    assert.ok(read.preview.length < 700, String(read.preview.length));
  });
});
