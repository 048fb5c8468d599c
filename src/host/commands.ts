/**
 * Slash commands as every front door offers them: `/name args` typed as a
 * prompt. A template command (a markdown file, src/config/slash-commands.ts)
 * becomes a prompt, optionally run by the agent it names; a programmatic
 * command is code that drives the session itself (undo, Spec Kit) and
 * answers with the same event stream an agent run does.
 */
import type { ProgrammaticCommand } from '../agents/programmatic-command';
import { didYouMean } from '../vocabulary/did-you-mean';
import { compareNames } from '../vocabulary/text';
import { parseCommandLine, SlashCommandError, type SlashCommands } from '../config/slash-commands';
import type { UserBlock } from '../llm/types';

/** A command as clients list it. */
export interface CommandEntry {
  name: string;
  description: string;
  /** What to type after the name, for clients that show a hint. */
  hint?: string;
}

export type { CommandInput, ProgrammaticCommand } from '../agents/programmatic-command';

/** What a command line turned into. */
export type Expansion =
  | { kind: 'prompt'; prompt: string; agent?: string }
  | { kind: 'program'; command: ProgrammaticCommand; args: string };

/** The slash commands of a folder. */
export interface CommandCatalog {
  list(): CommandEntry[];
  get(name: string): CommandEntry | undefined;
  /** Expands "/name args" for a command that exists; throws with a readable message when it cannot. */
  expand(line: string, context: { workspaceRoot: string; agentName: string }): Expansion;
}

/** Template commands from the command folders and programmatic ones from code; code wins a name clash. */
export class FolderCommands implements CommandCatalog {
  private readonly programs: Map<string, ProgrammaticCommand>;

  constructor(
    private readonly templates: SlashCommands,
    programs: readonly ProgrammaticCommand[] = [],
  ) {
    this.programs = new Map(programs.map((command) => [command.name, command]));
  }

  list(): CommandEntry[] {
    const templates = this.templates.list().filter((command) => !this.programs.has(command.name));
    const entries: CommandEntry[] = [
      ...templates.map(({ name, description }) => ({ name, description })),
      ...[...this.programs.values()].map(({ name, description, argumentHint }) => ({ name, description, hint: argumentHint })),
    ];
    return entries.sort((a, b) => compareNames(a.name, b.name));
  }

  get(name: string): CommandEntry | undefined {
    const known = this.known(name);
    return known === undefined ? undefined : (this.programs.get(known) ?? this.templates.get(known));
  }

  /**
   * `name` as a command of this folder: itself, or the command whose name
   * it spells the way skills-based agents do (`speckit-plan` for
   * `speckit.plan`, `speckit-git-feature` for `speckit.git.feature`).
   */
  private known(name: string): string | undefined {
    if (this.programs.has(name) || this.templates.get(name)) return name;
    if (!/^speckit-/.test(name)) return undefined;
    return [...this.programs.keys()].find((candidate) => candidate.replace(/\./g, '-') === name);
  }

  expand(line: string, context: { workspaceRoot: string; agentName: string }): Expansion {
    const parsed = parseCommandLine(line);
    const call = parsed && { ...parsed, name: this.known(parsed.name) ?? parsed.name };
    const program = call ? this.programs.get(call.name) : undefined;
    if (call && program) return { kind: 'program', command: program, args: call.args };
    if (call && !this.templates.get(call.name)) {
      const names = this.list().map((command) => command.name);
      const guess = didYouMean(call.name, names);
      throw new SlashCommandError(`Unknown command "/${call.name}".${guess ? ` Did you mean "/${guess}"?` : ''} Commands: ${names.map((n) => `/${n}`).join(', ')}.`);
    }
    return { kind: 'prompt', ...this.templates.expand(line, context) };
  }
}

/**
 * The command a prompt opens with, when its first block is text naming a
 * known command, or any `/speckit.…` or `/speckit-…` name: Spec Kit's
 * namespace is commands only, so an unknown one is an "unknown command"
 * (with a did-you-mean) rather than a prompt sent to the model.
 */
export function commandOf(blocks: readonly UserBlock[], commands: CommandCatalog | undefined): string | undefined {
  const first = blocks[0];
  if (!commands || first?.type !== 'text') return undefined;
  const name = /^\s*\/([A-Za-z0-9][A-Za-z0-9._-]*)/.exec(first.text)?.[1];
  return name !== undefined && (commands.get(name) || /^speckit[.-]/.test(name)) ? name : undefined;
}
