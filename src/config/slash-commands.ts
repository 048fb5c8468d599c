/**
 * Slash commands (seed 004): `/name args` typed at any front door becomes a
 * prompt, and optionally picks the agent that runs it. Each command is a
 * markdown file with frontmatter (name, description, agent) whose body is a
 * handlebars template given {{args}} and the prompt context. Found in
 * commands/ in the package, ~/.config/crow-agent/commands/ and
 * .crow/commands/; later wins by name.
 */
import * as z from 'zod';
import { onFirstUse } from '../vocabulary/first-use';
import { type DefinitionError, problemsFromZod } from './config-problems';
import { didYouMean } from '../vocabulary/did-you-mean';
import { compareNames } from '../vocabulary/text';
import { builtinDefinitions } from './builtin-snapshot';
import { findPackageRoot, layerFolders, readMarkdownFiles, splitFrontmatter, type MarkdownFile } from './markdown-files';
import { basePromptContext } from './prompts';
import { NameSchema } from './settings-file';
import { renderTemplateText, templateSyntaxError } from './template-text';

const CommandSchema = onFirstUse(() =>
  z
    .object({
      name: NameSchema().optional(),
      /** One line for the command list. */
      description: z.string().min(1),
      /** The ACP agent that runs the prompt; default: whichever agent is in use. */
      agent: NameSchema().optional(),
    })
    .strict(),
);

export interface SlashCommand {
  name: string;
  description: string;
  agent?: string;
  /** The body: a handlebars template. */
  template: string;
  file: string;
}

/** What a command line turned into. */
export interface ExpandedCommand {
  prompt: string;
  agent?: string;
}

/** A command line naming no known command. */
export class SlashCommandError extends Error {
  override name = 'SlashCommandError';
}

export class SlashCommands {
  private constructor(private readonly commands: ReadonlyMap<string, SlashCommand>) {}

  static load(
    workspaceRoot: string,
    env: NodeJS.ProcessEnv = process.env,
    builtinRoot: string = findPackageRoot(),
  ): { commands: SlashCommands; errors: DefinitionError[] } {
    const errors: DefinitionError[] = [];
    const commands = new Map<string, SlashCommand>();
    const stored = builtinDefinitions(builtinRoot, __dirname);
    for (const [layer, folder] of layerFolders('commands', workspaceRoot, env, builtinRoot).entries()) {
      for (const file of readMarkdownFiles(folder)) {
        // The first layer is the built-in one (see layerFolders).
        const parsed = (layer === 0 ? stored<SlashCommand>(file) : undefined) ?? parseCommand(file);
        if ('problems' in parsed) errors.push(...parsed.problems);
        else commands.set(parsed.name, parsed);
      }
    }
    return { commands: new SlashCommands(commands), errors };
  }

  list(): SlashCommand[] {
    return [...this.commands.values()].sort((a, b) => compareNames(a.name, b.name));
  }

  get(name: string): SlashCommand | undefined {
    return this.commands.get(name);
  }

  /**
   * Expands "/name args" into the command's prompt. Throws SlashCommandError
   * for an unknown command, with a "did you mean"; `agentName` is the agent
   * the prompt context names when the command picks none.
   */
  expand(line: string, context: { workspaceRoot: string; agentName: string }): ExpandedCommand {
    const call = parseCommandLine(line);
    if (!call) throw new SlashCommandError(`"${line}" is not a command: commands start with "/", e.g. /review.`);
    const command = this.commands.get(call.name);
    if (!command) {
      const names = [...this.commands.keys()];
      const guess = didYouMean(call.name, names);
      const hint = guess ? ` Did you mean "/${guess}"?` : '';
      throw new SlashCommandError(`Unknown command "/${call.name}".${hint} Commands: ${names.map((n) => `/${n}`).join(', ')}.`);
    }
    const agentName = command.agent ?? context.agentName;
    const values = { ...basePromptContext(agentName, context.workspaceRoot), args: call.args };
    return { prompt: renderTemplateText(command.template, values, command.file), ...(command.agent ? { agent: command.agent } : {}) };
  }

  /** Commands naming an agent that is not among `agents`. */
  agentProblems(agents: readonly string[]): DefinitionError[] {
    return this.list().flatMap((command) => {
      if (command.agent === undefined || agents.includes(command.agent)) return [];
      const guess = didYouMean(command.agent, agents);
      return [{ file: command.file, field: 'agent', message: `unknown agent "${command.agent}"${guess ? ` (did you mean "${guess}"?)` : ''}.` }];
    });
  }
}

/** "/name rest of line" → { name, args }; undefined when the text is not a command. */
export function parseCommandLine(line: string): { name: string; args: string } | undefined {
  const match = /^\/([A-Za-z0-9][A-Za-z0-9._-]*)(?:\s+([\s\S]*))?$/.exec(line.trim());
  return match ? { name: match[1]!, args: (match[2] ?? '').trim() } : undefined;
}

export function parseCommand(file: MarkdownFile): SlashCommand | { problems: DefinitionError[] } {
  const split = splitFrontmatter(file.path, file.text);
  if ('problems' in split) return split;
  const parsed = CommandSchema().safeParse(split.data);
  if (!parsed.success) return { problems: problemsFromZod(file.path, parsed.error, CommandSchema(), split.data) };
  if (split.body === '') return { problems: [{ file: file.path, field: 'body', message: 'the body is the prompt and cannot be empty.' }] };
  const syntax = templateSyntaxError(split.body);
  if (syntax !== undefined) return { problems: [{ file: file.path, field: 'body', message: `not a valid handlebars template: ${syntax}` }] };
  const { name = file.stem, description, agent } = parsed.data;
  return { name, description, template: split.body, file: file.path, ...(agent !== undefined ? { agent } : {}) };
}
