import { version } from '../../../package.json';
import { reportFailure } from './cli-entry';
import { processIO, UsageError, type CliIO } from './cli-io';

export const HELP = `Crow Agent ${version} — a coding agent for your terminal, editor and any ACP client.

Usage:
  crow run "<prompt>" [--agent NAME] [--continue]              run a prompt through an agent
  crow undo [--session ID] [--cwd DIR] [--yes]                 put back the files the last prompt changed
  crow sessions list | show ID | export ID | delete ID         stored sessions
  crow trace SESSION [--json | --otlp-json | --serve [--port N]] what the agents did: a tree, JSON, or the viewer in a browser
  crow telemetry external | external-trace ID | trace ID       seed 003's views: sessions, their agents' traces, one agent's history
  crow agents list | show NAME | validate                      the agents you can pick
  crow eval [--agents LIST] [--tasks GLOB] [--repeat N]        measure agents against each other on a task suite
  crow attempts k8s --image IMG --attempts N "<prompt>"        run --attempts as Kubernetes pods; collect ranks, applies
  crow config get KEY | set KEY VALUE | validate | path        settings (config.toml)
  crow trust [--cwd DIR] [--yes | --revoke | --list]           trust a folder's own .crow/ configuration
  crow mcp list [--cwd DIR] [--json]                           the MCP servers a session would use, and those found elsewhere
  crow mcp login NAME | logout NAME                            sign in to a remote MCP server that asks for it
  crow login [--provider NAME] | logout | login --status       keep a provider's API key (OS keychain or a private file)
  crow acp                                                     serve the Agent Client Protocol on stdio (Zed, JetBrains, acpx)
  crow acp-bridge --port N -- CMD ARGS…                        serve a stdio ACP agent over WebSocket
  crow --version | --help

Run "crow COMMAND --help" for a command's options.
Keys: ANTHROPIC_API_KEY or OPENAI_API_KEY (or the variable a provider names), else the key crow login stored.
Settings: ~/.config/crow-agent/config.toml, per project .crow/config.toml;
CROW_PROVIDER, CROW_MODEL, ANTHROPIC_BASE_URL and OPENAI_BASE_URL override them.`;

type Command = (argv: string[], io: CliIO) => Promise<number>;

/**
 * Subcommands load on use (require, which esbuild keeps lazy in the bundle):
 * `crow acp` must answer `initialize` fast, before any provider SDK, tool
 * or storage code is even compiled.
 */
const COMMANDS: Record<string, () => Command> = {
  run: () => (require('./run-command') as typeof import('./run-command')).runCommand,
  acp: () => (require('./acp-command') as typeof import('./acp-command')).acpCommand,
  'acp-bridge': () => (require('./acp-bridge-command') as typeof import('./acp-bridge-command')).acpBridgeCommand,
  undo: () => (require('./undo-command') as typeof import('./undo-command')).undoCommand,
  agents: () => (require('./agents-command') as typeof import('./agents-command')).agentsCommand,
  config: () => (require('./config-command') as typeof import('./config-command')).configCommand,
  sessions: () => (require('./sessions-command') as typeof import('./sessions-command')).sessionsCommand,
  trace: () => (require('./trace-command') as typeof import('./trace-command')).traceCommand,
  telemetry: () => (require('./telemetry-command') as typeof import('./telemetry-command')).telemetryCommand,
  eval: () => (require('./eval-command') as typeof import('./eval-command')).evalCommand,
  attempts: () => (require('./attempts-k8s-command') as typeof import('./attempts-k8s-command')).attemptsCommand,
  trust: () => (require('./trust-command') as typeof import('./trust-command')).trustCommand,
  mcp: () => (require('./mcp-command') as typeof import('./mcp-command')).mcpCommand,
  login: () => (require('./login-command') as typeof import('./login-command')).loginCommand,
  logout: () => (require('./login-command') as typeof import('./login-command')).logoutCommand,
  // The folder's keeper, started by crow run itself (keeper-command.ts); not in the help.
  __keeper: () => (require('./keeper-command') as typeof import('./keeper-command')).keeperCommand,
};

/** Commands that call a model: their environment gets the keys crow login stored (crow acp reads them itself, as they change). */
const KEYED_COMMANDS = new Set(['run', 'eval', 'attempts']);

/** `io` with the stored keys the environment lacks; a key that cannot be read is a warning, the command goes on. */
function withLoginKeys(io: CliIO): CliIO {
  const { withStoredKeys } = require('../../config/login-keys') as typeof import('../../config/login-keys');
  const { env, problems } = withStoredKeys(io.env);
  for (const problem of problems) io.stderr.write(`crow: warning: ${problem}\n`);
  return env === io.env ? io : { ...io, env };
}

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
    }
    const load = Object.hasOwn(COMMANDS, command) ? COMMANDS[command] : undefined;
    if (!load) throw new UsageError(`Unknown command "${command}". Run "crow --help" for the commands.`);
    return await load()(rest, KEYED_COMMANDS.has(command) ? withLoginKeys(io) : io);
  } catch (err) {
    return reportFailure(err, io);
  }
}
