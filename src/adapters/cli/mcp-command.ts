/** `crow mcp …`: the MCP servers of your configuration. Each subcommand lives in its own file. */
import { type CliIO, UsageError } from './cli-io';
import { mcpLoginCommand, mcpLogoutCommand } from './mcp-auth-command';

export const MCP_HELP = `Usage: crow mcp <command>

Commands:
  login NAME    sign in to a remote MCP server that asks for it (OAuth)
  logout NAME   forget that sign-in

Run "crow mcp login --help" for the sign-in's options.`;

const SUBCOMMANDS: Record<string, (argv: string[], io: CliIO) => Promise<number>> = {
  login: mcpLoginCommand,
  logout: mcpLogoutCommand,
};

export async function mcpCommand(argv: string[], io: CliIO): Promise<number> {
  const [command, ...rest] = argv;
  if (command === undefined || command === '-h' || command === '--help' || command === 'help') {
    io.stdout.write(`${MCP_HELP}\n`);
    return command === undefined ? 2 : 0;
  }
  const run = Object.hasOwn(SUBCOMMANDS, command) ? SUBCOMMANDS[command] : undefined;
  if (!run) throw new UsageError(`Unknown command "crow mcp ${command}": crow mcp ${Object.keys(SUBCOMMANDS).join(' | ')} (see crow mcp --help).`);
  return run(rest, io);
}
