/**
 * A server's prompts as slash commands: `/mcp__SERVER__PROMPT`, arguments
 * as `name=value` words (quoted when they hold spaces) or, without any `=`,
 * in the order the prompt declares them, the last one taking the rest of
 * the line. The prompt's messages become the person's prompt; their text is
 * the server's (hostile): capped, and embedded resources wrapped as
 * attached ones are.
 */
import type { GetPromptResult, Prompt, PromptMessage } from '@modelcontextprotocol/sdk/types.js';
import type { UserBlock } from '../llm/types';
import { capOutput } from '../tools/tool-output-notes';
import { allPages } from './list-pages';
import type { McpConnection } from './mcp-connection';
import { wrappedResource } from './resource-text';
import { mcpToolName } from './tool-names';

export type { GetPromptResult, Prompt as McpPrompt };

/** Characters of a prompt's text the model reads, all its messages together. */
export const MAX_PROMPT_CHARS = 50_000;

/** Every prompt the server offers (all pages); none when it offers no prompts. */
export async function listPrompts(connection: McpConnection): Promise<Prompt[]> {
  const listed = await connection.request('prompts', 'list its prompts', (client, options) =>
    allPages((cursor) => client.listPrompts(cursor === undefined ? {} : { cursor }, options), (page) => page.prompts),
  );
  return listed ?? [];
}

export async function getPrompt(connection: McpConnection, name: string, args: Record<string, string>, signal: AbortSignal): Promise<GetPromptResult> {
  const result = await connection.request('prompts', `give its prompt ${name}`, (client, options) => client.getPrompt({ name, arguments: args }, options), signal);
  if (result === undefined) throw new Error(`MCP server "${connection.name}" offers no prompts.`);
  return result;
}

/** The slash command's name (without the slash): mcp__SERVER__PROMPT, as tools are named. */
export function promptCommandName(server: string, prompt: string): string {
  return mcpToolName(server, prompt, new Set());
}

/** The prompt's arguments from what follows the command; throws, listing them, when a required one is missing or one is unknown. */
export function promptArguments(prompt: Prompt, line: string): Record<string, string> {
  const { args, missing } = givenArguments(prompt, line);
  if (missing.length > 0) throw new Error(`missing ${missing.map((argument) => argument.name).join(', ')}; ${usage(prompt)}`);
  return args;
}

/** The arguments the line gives, and the required ones it leaves out (in the prompt's order); throws when one is unknown. */
export function givenArguments(prompt: Prompt, line: string): { args: Record<string, string>; missing: NonNullable<Prompt['arguments']> } {
  const declared = prompt.arguments ?? [];
  const words = splitWords(line);
  const named = words.length > 0 && words.every((word) => /^[A-Za-z0-9_-]+=/.test(word));
  const args: Record<string, string> = {};
  if (named) {
    for (const word of words) {
      const at = word.indexOf('=');
      const key = word.slice(0, at);
      if (!declared.some((argument) => argument.name === key)) throw new Error(`it takes no argument "${key}"; ${usage(prompt)}`);
      args[key] = word.slice(at + 1);
    }
  } else if (line.trim() !== '') {
    if (declared.length === 0) throw new Error(`it takes no arguments`);
    declared.forEach((argument, i) => {
      const value = i === declared.length - 1 ? words.slice(i).join(' ') : words[i];
      if (value !== undefined && value !== '') args[argument.name] = value;
    });
  }
  const missing = declared.filter((argument) => argument.required && args[argument.name] === undefined);
  return { args, missing };
}

/** How the command is given its arguments, e.g. `takes name=… (required) mood=…`. */
export function usage(prompt: Prompt): string {
  const declared = prompt.arguments ?? [];
  if (declared.length === 0) return 'it takes no arguments';
  return `it takes ${declared.map((argument) => `${argument.name}=…${argument.required ? ' (required)' : ''}`).join(' ')}`;
}

/** The prompt's messages as the person's prompt: their text capped all together, an assistant's words marked as such. */
export function promptResultBlocks(server: string, result: GetPromptResult, supportsImages: boolean): UserBlock[] {
  let left = MAX_PROMPT_CHARS;
  return result.messages.map((message): UserBlock => {
    const block = messageBlock(server, message, supportsImages);
    if (block.type !== 'text') return block;
    const text = capOutput(block.text, Math.max(left, 0));
    left -= text.length;
    return { type: 'text', text };
  });
}

function messageBlock(server: string, message: PromptMessage, supportsImages: boolean): UserBlock {
  const said = (text: string): UserBlock => ({ type: 'text', text: message.role === 'assistant' ? `(The assistant, in the prompt's example:) ${text}` : text });
  const content = message.content;
  switch (content.type) {
    case 'text':
      return said(content.text);
    case 'image':
      return supportsImages ? { type: 'image', mimeType: content.mimeType, data: content.data } : said(`[an image (${content.mimeType}) the model cannot see]`);
    case 'audio':
      return said(`[audio (${content.mimeType}) the model cannot hear]`);
    case 'resource_link':
      return said(`[${content.title ?? content.name}](${content.uri})`);
    case 'resource': {
      const { resource } = content;
      if (!('text' in resource)) return said(`[The MCP resource ${resource.uri} of server "${server}" is binary, which the model cannot read.]`);
      return said(wrappedResource(server, resource.uri, resource.mimeType, resource.text));
    }
  }
}

/** Words split at spaces, a "double-quoted" or 'single-quoted' stretch kept whole (quotes dropped). */
function splitWords(line: string): string[] {
  const words: string[] = [];
  for (const match of line.matchAll(/(?:[^\s"']+|"[^"]*"|'[^']*')+/g)) words.push(match[0].replace(/"([^"]*)"|'([^']*)'/g, '$1$2'));
  return words;
}
