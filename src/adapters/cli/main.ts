import { ConfigError } from '../../config/provider-config';
import { version } from '../../../package.json';
import { processIO, UsageError, type CliIO } from './cli-io';
import { runCommand } from './run-command';
import { agentsCommand } from './agents-command';
import { configCommand } from './config-command';
import { sessionsCommand } from './sessions-command';
import { traceCommand } from './trace-command';
import { undoCommand } from './undo-command';

export const HELP = `Crow Agent ${version} — a coding agent for your terminal, editor and any ACP client.

Usage:
  crow run "<prompt>" [--agent NAME] [--continue]              run a prompt through an agent
  crow undo [--session ID] [--cwd DIR] [--yes]                 put back the files the last prompt changed
  crow sessions list | show ID | export ID | delete ID         stored sessions
  crow trace SESSION [--json]                                  what the agents did, as a tree
  crow agents list | show NAME | validate                      the agents you can pick
  crow config get KEY | set KEY VALUE | validate | path        settings (config.toml)
  crow --version | --help

Run "crow COMMAND --help" for a command's options.
Keys: ANTHROPIC_API_KEY or OPENAI_API_KEY (or the variable a provider names).
Settings: ~/.config/crow-agent/config.toml, per project .crow/config.toml;
CROW_PROVIDER, CROW_MODEL, ANTHROPIC_BASE_URL and OPENAI_BASE_URL override them.`;

/** Runs the CLI and returns the process exit code. */
export async function main(argv: string[], io: CliIO = processIO()): Promise<number> {
  const [command, ...rest] = argv;
  try {
    switch (command) {
      case undefined:
      case '-h':
      case '--help':
      case 'help':
        io.stdout.write(`${HELP}\n`);
        return 0;
      case '-v':
      case '--version':
        io.stdout.write(`${version}\n`);
        return 0;
      case 'run':
        return await runCommand(rest, io);
      case 'undo':
        return await undoCommand(rest, io);
      case 'agents':
        return await agentsCommand(rest, io);
      case 'config':
        return await configCommand(rest, io);
      case 'sessions':
        return await sessionsCommand(rest, io);
      case 'trace':
        return await traceCommand(rest, io);
      default:
        throw new UsageError(`Unknown command "${command}". Run "crow --help" for the commands.`);
    }
  } catch (err) {
    return reportFailure(err, io);
  }
}

function reportFailure(err: unknown, io: CliIO): number {
  if (err instanceof UsageError || err instanceof ConfigError || isParseArgsError(err)) {
    io.stderr.write(`crow: ${(err as Error).message}\n`);
    return 2;
  }
  io.stderr.write(`crow: unexpected failure: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  return 1;
}

function isParseArgsError(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS');
}
