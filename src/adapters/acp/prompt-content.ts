import type { ContentBlock } from '@agentclientprotocol/sdk';
import type { UserBlock } from '../../llm/types';

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
