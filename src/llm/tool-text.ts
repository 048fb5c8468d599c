import { sendableCallIds } from './call-ids';
import type { LlmRequest, Message, UserBlock } from './types';

/**
 * The request as it may go out (every provider's stream() sends this, so no
 * caller can produce a shape the APIs refuse): its call ids valid and unique
 * (see call-ids.ts), and with tool blocks in its history but no tools, those
 * written as text.
 */
export function sendable(request: LlmRequest): LlmRequest {
  const messages = sendableCallIds(request.messages) as Message[];
  if (request.tools.length === 0 && hasToolBlocks(messages)) return { ...request, messages: toolBlocksAsText(messages) };
  return messages === request.messages ? request : { ...request, messages };
}

/**
 * The history with its tool calls and results written out as text, for a
 * request that offers the model no tools: Anthropic and Bedrock refuse tool
 * blocks in a request without tool definitions. Callers that still have the
 * tools send them with `toolChoice: 'none'` instead, which keeps the blocks
 * (and the cached prompt prefix); this is for calls that have none.
 */
export function toolBlocksAsText(messages: readonly Message[]): Message[] {
  return messages.map((message): Message => {
    switch (message.role) {
      case 'user':
        return message;
      case 'assistant':
        return {
          role: 'assistant',
          content: message.content.map((block) =>
            block.type === 'tool_call' ? { type: 'text', text: `[Called the tool ${block.name} with ${block.arguments || '{}'}]` } : block,
          ),
        };
      case 'tool_results':
        return {
          role: 'user',
          content: message.results.flatMap((result): UserBlock[] => [
            { type: 'text', text: `[${result.isError ? 'Error from' : 'Result of'} the tool call ${result.callId}:]\n${result.content}` },
            ...(result.images ?? []),
          ]),
        };
    }
  });
}

/** Whether any message holds a tool call or a tool result. */
export function hasToolBlocks(messages: readonly Message[]): boolean {
  return messages.some((message) => message.role === 'tool_results' || (message.role === 'assistant' && message.content.some((block) => block.type === 'tool_call')));
}
