import type { ImageBlock } from '../llm/types';
import { DEFAULT_MAX_OUTPUT_CHARS } from '../tools/define-tool';
import { capOutput } from '../tools/tool-output-notes';
import type { ToolOutput } from '../tools/tool';
import type { CallToolResult } from './mcp-connection';

type ContentBlock = CallToolResult['content'][number];

/**
 * What the model gets from an MCP tool result: text blocks as text, images
 * as images (a note instead when the model cannot see them), resource links
 * and embedded resources as text naming their URI (with an embedded text
 * resource's text), structured content as JSON when no block gave text.
 * `isError` makes the text the error.
 */
export function toolOutput(result: CallToolResult, supportsImages: boolean): ToolOutput {
  const images: ImageBlock[] = [];
  const texts = result.content.flatMap((block) => {
    if (block.type === 'image' && supportsImages) {
      images.push({ type: 'image', mimeType: block.mimeType, data: block.data });
      return [];
    }
    return [textOf(block)];
  });
  if (texts.length === 0 && result.structuredContent !== undefined) {
    texts.push(JSON.stringify(result.structuredContent, null, 2));
  }
  const text = texts.join('\n');
  // Output is capped with every tool's; an error is capped here, as it is the server's text too.
  if (result.isError) return { output: '', error: text === '' ? 'The tool reported an error without saying which.' : capOutput(text, DEFAULT_MAX_OUTPUT_CHARS) };
  return { output: text, ...(images.length > 0 ? { images } : {}) };
}

function textOf(block: ContentBlock): string {
  switch (block.type) {
    case 'text':
      return block.text;
    case 'image':
      return `[an image (${block.mimeType}) the model cannot see]`;
    case 'audio':
      return `[audio (${block.mimeType}) the model cannot hear]`;
    case 'resource_link': {
      const type = block.mimeType ? ` (${block.mimeType})` : '';
      return `Resource: ${block.title ?? block.name} <${block.uri}>${type}${block.description ? ` — ${block.description}` : ''}`;
    }
    case 'resource': {
      const { resource } = block;
      const type = resource.mimeType ? ` (${resource.mimeType})` : '';
      if ('text' in resource) return `Resource <${resource.uri}>${type}:\n${resource.text}`;
      return `Resource <${resource.uri}>${type}: ${Math.floor((resource.blob.length * 3) / 4)} bytes of binary data, not shown`;
    }
  }
}
