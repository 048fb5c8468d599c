/**
 * `crow mcp login NAME` and `crow mcp logout NAME`: signing in to a remote
 * MCP server that asks for it (OAuth), for every later `crow run` and
 * `crow acp` session. The sign-in is kept under Crow's data home
 * (mcp-auth/, private to the user), keyed by the server's URL.
 */
import { dataHome } from '../../config/paths';
import { resolveSettings } from '../../config/provider-config';
import type { McpServerConfig } from '../../mcp/server-config';
import { serversFromSettings } from '../../mcp/server-config';
import { FileTokenStore } from '../../mcp/oauth-file-store';
import { McpAuthRefused } from '../../mcp/oauth-guard';
import { signInToServer } from '../../mcp/oauth-sign-in';
import { didYouMean } from '../../vocabulary/did-you-mean';
import { errorText } from '../../vocabulary/text';
import { commandArgs, positiveInteger, workspaceFolder } from './cli-args';
import { type CliIO, STOP_EXIT_CODES, type StopSignal, UsageError } from './cli-io';
import { trustedFolder } from './folder-trust-notice';
import { openInBrowser } from './open-browser';

export const MCP_LOGIN_HELP = `Usage: crow mcp login NAME [--timeout SEC] [--no-browser] [--cwd DIR]
       crow mcp logout NAME [--cwd DIR]

Signs in to the remote MCP server [mcp_servers.NAME] (one with a url) when it
asks for it (OAuth 2.1): Crow finds its authorization server, opens its page
in your browser, and keeps the sign-in for every later crow run and crow acp
session. NAME may also be the server's URL (a server an ACP client gives).
logout forgets the sign-in.

Options:
  --timeout SEC   how long to wait for you in the browser (default 300)
  --no-browser    only print the address to open
  --cwd DIR       the workspace whose .crow/config.toml also counts (default: the current folder)
  -h, --help      show this help

The browser: CROW_BROWSER (a command, the URL added last), else the system's.`;

const DEFAULT_TIMEOUT_SEC = 300;

export async function mcpLoginCommand(argv: string[], io: CliIO): Promise<number> {
  const { values, positionals } = commandArgs('mcp login', argv, { timeout: { type: 'string' }, 'no-browser': { type: 'boolean', default: false }, cwd: { type: 'string' } });
  if (values.help) return help(io);
  const server = await serverNamed(positionals, io, values.cwd, 'login');
  const timeoutMs = positiveInteger('--timeout', values.timeout, DEFAULT_TIMEOUT_SEC) * 1000;
  const store = new FileTokenStore(dataHome(io.env));
  const stop = new AbortController();
  let stoppedBy: StopSignal | undefined;
  const unsubscribe = io.onInterrupt((signal) => {
    stoppedBy = signal;
    stop.abort();
  });
  const waiting = new Waiting(io, timeoutMs);
  try {
    io.stderr.write(`Signing in to MCP server "${server.name}" (${urlOf(server)}).\n`);
    const result = await signInToServer(server, {
      store,
      cwd: io.cwd,
      signal: stop.signal,
      timeoutMs,
      open: async (url) => {
        io.stderr.write(`Its authorization server is ${url.host}. Sign in on its page:\n  ${url.href}\n`);
        if (values['no-browser']) io.stderr.write('Open that address in your browser.\n');
        else {
          const opened = await openInBrowser(url.href, io.env);
          if (!opened.ok) io.stderr.write(`The browser did not open (${opened.why}): open that address yourself.\n`);
        }
        waiting.start();
      },
    });
    waiting.stop();
    const tools = `it offers ${result.tools} tool${result.tools === 1 ? '' : 's'}`;
    if (!result.signedIn) io.stdout.write(`MCP server "${server.name}" did not ask for a sign-in: ${tools}, no sign-in needed.\n`);
    else io.stdout.write(`Signed in to MCP server "${server.name}": ${tools}. Crow keeps the sign-in for your sessions; crow mcp logout ${server.name} forgets it.\n`);
    return 0;
  } catch (err) {
    waiting.stop();
    if (stoppedBy) {
      io.stderr.write('crow: sign-in cancelled; no token was stored.\n');
      return STOP_EXIT_CODES[stoppedBy];
    }
    io.stderr.write(`crow: could not sign in to MCP server "${server.name}": ${shortened(errorText(err))}\n`);
    if (err instanceof McpAuthRefused) io.stderr.write(`Crow refuses what the server or its authorization server asked; check the server's url (${urlOf(server)}), or tell its operator.\n`);
    return 1;
  } finally {
    unsubscribe();
  }
}

export async function mcpLogoutCommand(argv: string[], io: CliIO): Promise<number> {
  const { values, positionals } = commandArgs('mcp logout', argv, { cwd: { type: 'string' } });
  if (values.help) return help(io);
  const server = await serverNamed(positionals, io, values.cwd, 'logout');
  const removed = await new FileTokenStore(dataHome(io.env)).remove(urlOf(server));
  io.stdout.write(removed ? `Signed out of MCP server "${server.name}": Crow forgot its sign-in.\n` : `Crow had no sign-in for MCP server "${server.name}".\n`);
  return 0;
}

function help(io: CliIO): number {
  io.stdout.write(`${MCP_LOGIN_HELP}\n`);
  return 0;
}

/** The remote server NAME names in config.toml (the project's counts when the folder is trusted), or the server at the URL given. */
async function serverNamed(positionals: readonly string[], io: CliIO, cwd: string | undefined, command: string): Promise<McpServerConfig> {
  const [name, ...extra] = positionals;
  if (name === undefined || extra.length > 0) throw new UsageError(`crow mcp ${command} takes one server: crow mcp ${command} NAME (see crow mcp ${command} --help).`);
  if (/^https?:\/\//i.test(name)) {
    const url = parsedUrl(name);
    return { name: url, transport: { type: 'http', url, headers: {} }, permission: 'execute', source: 'client' };
  }
  const root = workspaceFolder(io.cwd, cwd);
  const settings = resolveSettings(root, {}, io.env, { trusted: await trustedFolder(root, io) });
  const configured = settings.mcpServers ?? {};
  const server = configured[name];
  if (!server) {
    const guess = didYouMean(name, Object.keys(configured));
    const known = Object.keys(configured).join(', ') || 'none';
    throw new UsageError(`There is no MCP server "${name}" in config.toml${guess ? `; did you mean "${guess}"?` : ` (configured: ${known})`}.`);
  }
  const [config] = serversFromSettings({ [name]: { ...server, enabled: true } }, io.env);
  if (config?.transport.type === 'stdio') throw new UsageError(`MCP server "${name}" runs as a command (stdio): it has no sign-in. Only a server with a url can ask you to sign in.`);
  return config!;
}

function parsedUrl(text: string): string {
  try {
    return new URL(text).href;
  } catch {
    throw new UsageError(`"${text}" is not a URL.`);
  }
}

function urlOf(server: McpServerConfig): string {
  return server.transport.type === 'stdio' ? '' : server.transport.url;
}

/** A server's long answer (the SDK quotes whole bodies) cut to what a person reads. */
function shortened(text: string): string {
  return text.length > 600 ? `${text.slice(0, 600)}…` : text;
}

/** "Waiting…" with the time passed, redrawn each second on a terminal; one line elsewhere. */
class Waiting {
  private timer: NodeJS.Timeout | undefined;
  private started = 0;

  constructor(
    private readonly io: CliIO,
    private readonly timeoutMs: number,
  ) {}

  start(): void {
    const limit = `gives up after ${Math.round(this.timeoutMs / 60_000) || 1} min`;
    const line = (): string => `Waiting for you to finish in the browser… ${elapsed(Date.now() - this.started)} (Ctrl-C cancels; ${limit})`;
    this.started = Date.now();
    if (!this.io.stderr.isTTY) {
      this.io.stderr.write(`${line()}\n`);
      return;
    }
    this.io.stderr.write(line());
    this.timer = setInterval(() => this.io.stderr.write(`\r\u001b[2K${line()}`), 1000);
  }

  stop(): void {
    if (this.timer === undefined) return;
    clearInterval(this.timer);
    this.timer = undefined;
    this.io.stderr.write('\r\u001b[2K');
  }
}

function elapsed(ms: number): string {
  const seconds = Math.floor(ms / 1000);
  return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, '0')}`;
}
