import type { ContentBlock } from '@agentclientprotocol/sdk';
import type { UserBlock } from '../../llm/types';
import { requestErrors } from './request-errors';

/**
 * The most a prompt may carry (texts, embedded resources, base64 data, URIs
 * together). The largest model contexts hold about a million tokens, some
 * 4 MB of text, and a prompt is held several times over while it is stored
 * and sent: anything bigger cannot be answered and only costs memory.
 */
export const MAX_PROMPT_BYTES = 16 * 1024 * 1024;
/** The most content blocks in one prompt (an editor sends one per mention or attachment). */
export const MAX_PROMPT_BLOCKS = 1_000;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/**
 * Refuses, as invalid params, a prompt Crow cannot take, before any of it
 * is stored or sent: an empty one, one over MAX_PROMPT_BLOCKS blocks or
 * MAX_PROMPT_BYTES, or binary data that is not base64 as the protocol says.
 */
export function checkPrompt(prompt: readonly ContentBlock[]): void {
  if (prompt.length > MAX_PROMPT_BLOCKS) {
    throw requestErrors.invalidParams(`The prompt has ${prompt.length.toLocaleString('en-US')} content blocks; Crow takes up to ${MAX_PROMPT_BLOCKS.toLocaleString('en-US')}. Attach files as resource links, which the agent reads as it needs them.`);
  }
  let bytes = 0;
  prompt.forEach((block, index) => {
    bytes += blockBytes(block);
    const data = binaryOf(block);
    if (data !== undefined && !(data.length % 4 === 0 && BASE64.test(data))) {
      throw requestErrors.invalidParams(`Content block ${index + 1} (${block.type}) does not hold base64 data: send its bytes base64-encoded, without a data: prefix.`);
    }
  });
  if (bytes > MAX_PROMPT_BYTES) {
    throw requestErrors.invalidParams(`The prompt is ${megabytes(bytes)}; Crow takes prompts up to ${megabytes(MAX_PROMPT_BYTES)}, more than any model reads at once. Attach large files as resource links, which the agent reads as it needs them.`);
  }
  if (prompt.every((block) => block.type === 'text' && block.text.trim() === '')) {
    throw requestErrors.invalidParams('The prompt is empty: send some text, or attach an image or a file.');
  }
}

/** The bytes of what a block carries into the session (its text, data and URIs; annotations are not kept). */
function blockBytes(block: ContentBlock): number {
  const carried = [
    ...('text' in block ? [block.text] : []),
    ...('data' in block ? [block.data] : []),
    ...('uri' in block && typeof block.uri === 'string' ? [block.uri] : []),
    ...(block.type === 'resource' ? [block.resource.uri, 'text' in block.resource ? block.resource.text : block.resource.blob] : []),
  ];
  return carried.reduce((sum, value) => sum + Buffer.byteLength(value), 0);
}

/** The base64 data a block carries, if any. */
function binaryOf(block: ContentBlock): string | undefined {
  if (block.type === 'image' || block.type === 'audio') return block.data;
  if (block.type === 'resource' && 'blob' in block.resource) return block.resource.blob;
  return undefined;
}

function megabytes(bytes: number): string {
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

/**
 * A prompt's ACP content as the model reads it. Text stays text; a resource
 * link is mentioned with its URI; an embedded text resource is inlined with
 * its URI; images (and embedded image blobs) go to models that can see them
 * and become a short note for the others, as does anything else the model
 * cannot read (audio, other binary resources).
 */
export function promptBlocks(prompt: readonly ContentBlock[], supportsImages: boolean): UserBlock[] {
  return prompt.map((block) => userBlock(block, supportsImages));
}

function userBlock(block: ContentBlock, supportsImages: boolean): UserBlock {
  switch (block.type) {
    case 'text':
      return text(block.text);
    case 'image':
      return supportsImages
        ? { type: 'image', mimeType: block.mimeType, data: block.data }
        : text(`[An image${block.uri ? ` (${block.uri})` : ''} was attached, but this model cannot see images.]`);
    case 'audio':
      return text('[An audio clip was attached, but audio is not supported.]');
    case 'resource_link':
      return text(`[${block.title ?? block.name}](${block.uri})`);
    case 'resource': {
      const resource = block.resource;
      if ('text' in resource) return text(`<resource uri="${resource.uri}">\n${resource.text}\n</resource>`);
      const mimeType = resource.mimeType ?? 'application/octet-stream';
      if (supportsImages && mimeType.startsWith('image/')) return { type: 'image', mimeType, data: resource.blob };
      return text(`[${resource.uri} (${mimeType}) was attached as binary content, which this model cannot read.]`);
    }
    default:
      return unknownBlock(block);
  }
}

/** A block type from a newer protocol revision: named, not dropped. */
function unknownBlock(block: never): UserBlock {
  return text(`[Unsupported content of type "${(block as { type?: unknown }).type}" was attached.]`);
}

function text(value: string): UserBlock {
  return { type: 'text', text: value };
}
