/**
 * A server's sampling/createMessage read into a model request Crow can show
 * the person and run on the session's model. The server is untrusted: text
 * (and images) only, within size caps, its maxTokens capped; what it asks of
 * the model's choice (modelPreferences, temperature, stop sequences,
 * includeContext) is not followed: the session's model runs as configured,
 * with no context of the session's own.
 */
import type { Message, UserBlock } from '../llm/types';
import { clip } from '../vocabulary/text';
import { shownText } from './elicitation-form';

export const SAMPLING_LIMITS = {
  messages: 50,
  /** All texts together, the system prompt included. */
  textChars: 200_000,
  imageBytes: 5_000_000,
  /** The most output tokens one request may have, whatever it asks for. */
  maxTokens: 4_096,
} as const;

/** What the server asks the model, ready to run. */
export interface SamplingRequest {
  server: string;
  system: string;
  messages: Message[];
  /** The output tokens it runs with: what it asked for, at most SAMPLING_LIMITS.maxTokens. */
  maxTokens: number;
  /** What a person reads before approving: the system prompt and the messages, clipped and safe to show. */
  preview: string;
}

/** What went back to the server. */
export interface SamplingAnswer {
  text: string;
  model: string;
  stopReason: 'endTurn' | 'maxTokens' | 'stopSequence' | string;
}

/** Runs an approved request on the session's model; rejects with an Error a server may read. */
export type SampleFn = (request: SamplingRequest, signal: AbortSignal) => Promise<SamplingAnswer>;

/** A request Crow will not run: the message says why, naming the server. */
export class SamplingRefusal extends Error {}

interface Params {
  messages?: unknown;
  systemPrompt?: unknown;
  maxTokens?: unknown;
  tools?: unknown;
}

/** The request of `params` (sampling/createMessage's), or a SamplingRefusal naming `server`. */
export function samplingRequest(server: string, params: Params): SamplingRequest {
  const refuse = (why: string): never => {
    throw new SamplingRefusal(`MCP server "${server}" asked for a model request Crow will not run: ${why}`);
  };
  if (params.tools !== undefined) refuse('it offers the model tools, which Crow does not run for servers');
  if (!Array.isArray(params.messages) || params.messages.length === 0) return refuse('it sent no messages');
  if (params.messages.length > SAMPLING_LIMITS.messages) return refuse(`it sent ${params.messages.length} messages; at most ${SAMPLING_LIMITS.messages} are run`);
  const system = typeof params.systemPrompt === 'string' ? params.systemPrompt : '';
  let chars = system.length;
  let imageBytes = 0;
  const messages: Message[] = [];
  for (const message of params.messages as { role?: unknown; content?: unknown }[]) {
    const blocks = (Array.isArray(message.content) ? message.content : [message.content]).map((content) => blockOf(content, refuse));
    for (const block of blocks) {
      if (block.type === 'text') chars += block.text.length;
      else imageBytes += block.data.length;
    }
    if (message.role !== 'user' && message.role !== 'assistant') return refuse(`a message's role is ${JSON.stringify(message.role)}`);
    if (message.role === 'assistant' && blocks.some((block) => block.type !== 'text')) return refuse('an assistant message holds an image');
    const last = messages.at(-1);
    // Consecutive messages of one role are one message: the providers want them alternating.
    if (last && last.role === message.role) (last.content as UserBlock[]).push(...blocks);
    else messages.push(message.role === 'user' ? { role: 'user', content: blocks } : { role: 'assistant', content: blocks as { type: 'text'; text: string }[] });
  }
  if (chars > SAMPLING_LIMITS.textChars) return refuse(`its text is over ${SAMPLING_LIMITS.textChars} characters`);
  if (imageBytes > SAMPLING_LIMITS.imageBytes) return refuse('its images are too big');
  if (messages[0]!.role !== 'user') return refuse('its first message is not the user\'s');
  const asked = typeof params.maxTokens === 'number' && params.maxTokens > 0 ? Math.floor(params.maxTokens) : SAMPLING_LIMITS.maxTokens;
  return { server, system, messages, maxTokens: Math.min(asked, SAMPLING_LIMITS.maxTokens), preview: previewOf(system, messages) };
}

function blockOf(content: unknown, refuse: (why: string) => never): UserBlock {
  const block = (typeof content === 'object' && content !== null ? content : {}) as { type?: unknown; text?: unknown; data?: unknown; mimeType?: unknown };
  if (block.type === 'text' && typeof block.text === 'string') return { type: 'text', text: block.text };
  if (block.type === 'image' && typeof block.data === 'string' && typeof block.mimeType === 'string') return { type: 'image', data: block.data, mimeType: block.mimeType };
  return refuse(`it sent content of type ${JSON.stringify(block.type) ?? 'none'}; only text and images are run`);
}

/** The request as a person reads it: each part clipped, control characters shown as marks. */
function previewOf(system: string, messages: readonly Message[]): string {
  const parts = system === '' ? [] : [`System: ${clip(system, 400)}`];
  for (const message of messages.slice(-4)) {
    if (message.role === 'tool_results') continue;
    const text = message.content.map((block) => (block.type === 'text' ? block.text : block.type === 'image' ? '[image]' : '')).join(' ');
    parts.push(`${message.role === 'user' ? 'User' : 'Assistant'}: ${clip(text, 600)}`);
  }
  const earlier = messages.length > 4 ? [`(${messages.length - 4} earlier messages not shown)`] : [];
  return shownText([...earlier, ...parts].join('\n'));
}
