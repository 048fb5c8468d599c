import type { UserBlock } from '../llm/types';
import { shownText } from '../vocabulary/text';
import { type Completions, NO_COMPLETIONS } from './mcp-completions';
import { givenArguments, type McpPrompt, promptCommandName, promptResultBlocks, usage } from './mcp-prompts';
import type { McpServers } from './mcp-servers';

/** The slash command at the start of a prompt that names an MCP prompt. */
const MCP_COMMAND = /^\s*\/(mcp__[A-Za-z0-9_-]+)(?:\s+([\s\S]*))?$/;

/** Asks the person for a prompt's missing argument; undefined (or empty) when they give none, which ends the command. */
export type PromptArgumentAsk = (question: PromptArgumentQuestion, signal: AbortSignal) => Promise<string | undefined>;

/** A missing argument as a door asks for it; every text is safe to show. */
export interface PromptArgumentQuestion {
  server: string;
  /** The slash command, e.g. mcp__fx__review. */
  command: string;
  argument: { name: string; description?: string };
  /** What the server suggests before anything is typed. */
  completions: Completions;
  /** What the server suggests for a value typed so far. */
  complete(value: string): Promise<Completions>;
}

/** Suggestions named in an error: the first few. */
const SUGGESTED_IN_ERRORS = 5;

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
 * server's prompt. A required argument left out is asked of the person
 * with `ask` (the server's completions offered), one at a time. Throws, in
 * words for the person, when the arguments do not fit (naming a missing
 * one and the server's first suggestions) or the server cannot give it.
 */
export async function expandMcpPrompt(
  blocks: readonly UserBlock[],
  servers: McpServers | undefined,
  supportsImages: boolean,
  signal: AbortSignal,
  ask?: PromptArgumentAsk,
): Promise<UserBlock[] | undefined> {
  const [first, ...rest] = blocks;
  const match = first?.type === 'text' ? MCP_COMMAND.exec(first.text) : null;
  if (!servers || !match) return undefined;
  const command = (await servers.promptCommands()).find((candidate) => candidate.name === match[1]);
  if (!command) return undefined;
  const args = await completedArguments(servers, command.server, command.prompt, match[2] ?? '', ask, signal);
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

/** The arguments the line gives, each required one left out asked for (in order) or, with nobody to ask, an error naming it and the server's first suggestions. */
async function completedArguments(servers: McpServers, server: string, prompt: McpPrompt, line: string, ask: PromptArgumentAsk | undefined, signal: AbortSignal): Promise<Record<string, string>> {
  const { args, missing } = givenArguments(prompt, line);
  for (const argument of missing) {
    const complete = (value: string): Promise<Completions> =>
      servers.complete(server, { ref: { type: 'ref/prompt', name: prompt.name }, argument: argument.name, value, arguments: { ...args } }, signal).catch(() => NO_COMPLETIONS);
    const completions = await complete('');
    const question: PromptArgumentQuestion = {
      server,
      command: promptCommandName(server, prompt.name),
      argument: { name: shownText(argument.name), ...(argument.description !== undefined ? { description: shownText(argument.description) } : {}) },
      completions,
      complete,
    };
    const answer = ask ? await ask(question, signal) : undefined;
    if (signal.aborted) throw new Error('Cancelled.');
    if (answer === undefined || answer === '') throw new Error(`missing ${shownText(argument.name)}${suggested(completions)}; ${shownText(usage(prompt))}`);
    args[argument.name] = answer;
  }
  return args;
}

/** ` (the server suggests: a, b, …)`, or nothing when it suggests nothing. */
function suggested(completions: Completions): string {
  if (completions.values.length === 0) return '';
  const shown = completions.values.slice(0, SUGGESTED_IN_ERRORS).join(', ');
  const more = completions.hasMore || completions.values.length > SUGGESTED_IN_ERRORS ? `, … ${completions.total ?? 'more'}${completions.total !== undefined ? ' in all' : ''}` : '';
  return ` (the server suggests: ${shown}${more})`;
}
