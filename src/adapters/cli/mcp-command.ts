/**
 * `crow mcp …`: the MCP servers of a folder, and signing in to those that
 * ask for it. Subcommands load on use, as the top-level commands do.
 */
import { UsageError, type CliIO } from './cli-io';

export const MCP_HELP = `Usage: crow mcp <command> [options]

The MCP servers Crow's sessions use: those of config.toml ([mcp_servers])
and those taken from other tools' files ([mcp] import).

Commands:
  list [--cwd DIR] [--json]   every server a session here would start, and those
                              found in other tools' files, with why one is not used
  login NAME|URL              sign in to a remote MCP server that asks for it (OAuth)
  logout NAME|URL             forget that sign-in

Run "crow mcp COMMAND --help" for a command's options.`;

type Subcommand = (argv: string[], io: CliIO) => Promise<number>;

const SUBCOMMANDS: Record<string, () => Subcommand> = {
  list: () => (require('./mcp-list-command') as typeof import('./mcp-list-command')).mcpListCommand,
  login: () => (require('./mcp-auth-command') as typeof import('./mcp-auth-command')).mcpLoginCommand,
  logout: () => (require('./mcp-auth-command') as typeof import('./mcp-auth-command')).mcpLogoutCommand,
};

export async function mcpCommand(argv: string[], io: CliIO): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === undefined || sub === '-h' || sub === '--help' || sub === 'help') {
    io.stdout.write(`${MCP_HELP}\n`);
    return sub === undefined ? 2 : 0;
  }
  const load = Object.hasOwn(SUBCOMMANDS, sub) ? SUBCOMMANDS[sub] : undefined;
  if (!load) throw new UsageError(`Unknown command "crow mcp ${sub}": crow mcp ${Object.keys(SUBCOMMANDS).join(' | ')} (see crow mcp --help).`);
  return load()(rest, io);
}
