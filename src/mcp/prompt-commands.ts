import type { UserBlock } from '../llm/types';
import { promptArguments, promptResultBlocks, usage } from './mcp-prompts';
import type { McpServers } from './mcp-servers';

/** The slash command at the start of a prompt that names an MCP prompt. */
const MCP_COMMAND = /^\s*\/(mcp__[A-Za-z0-9_-]+)(?:\s+([\s\S]*))?$/;

/** A slash command as a door offers it (ACP's available commands). */
export interface OfferedCommand {
  name: string;
  description: string;
  hint: string;
}

/**
 * The prompt with a leading `/mcp__SERVER__PROMPT args` replaced by the
 * prompt the server gives for those arguments (the blocks after the first
 * kept after it); undefined when it starts with no command of a session
 * server's prompt. Throws, in words for the person, when the arguments do
 * not fit or the server cannot give it.
 */
export async function expandMcpPrompt(blocks: readonly UserBlock[], servers: McpServers | undefined, supportsImages: boolean, signal: AbortSignal): Promise<UserBlock[] | undefined> {
  const [first, ...rest] = blocks;
  const match = first?.type === 'text' ? MCP_COMMAND.exec(first.text) : null;
  if (!servers || !match) return undefined;
  const command = (await servers.promptCommands()).find((candidate) => candidate.name === match[1]);
  if (!command) return undefined;
  const args = promptArguments(command.prompt, match[2] ?? '');
  const result = await servers.getPrompt(command.server, command.prompt.name, args, signal);
  return [...promptResultBlocks(command.server, result, supportsImages), ...rest];
}

/** The session servers' prompts as a door offers slash commands. */
export async function offeredPromptCommands(servers: McpServers): Promise<OfferedCommand[]> {
  return (await servers.promptCommands()).map(({ name, server, prompt }) => ({
    name,
    description: `MCP server "${server}": ${prompt.description ?? prompt.title ?? prompt.name}`,
    hint: usage(prompt).replace(/^it takes /, ''),
  }));
}
