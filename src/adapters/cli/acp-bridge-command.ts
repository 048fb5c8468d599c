import type { ChildProcess } from 'node:child_process';
import { type RawData, WebSocket, WebSocketServer } from 'ws';
import { startAgentProcess, stopAgentProcess } from '../../agents/agent-process';
import { MAX_ACP_MESSAGE_BYTES, MAX_ACP_MESSAGE_TEXT } from '../acp/message-limit';
import { newAccessToken } from './access-token';
import { AgentLines } from './acp-bridge-lines';
import { allowedOrigins, answeringHosts, type BridgeAccess, isLoopback, readTokenFile, RefusalBudget, refusal } from './acp-bridge-access';
import { screenClientMessage } from './acp-bridge-screen';
import { commandArgs } from './cli-args';
import { type CliIO, STOP_EXIT_CODES, type StopSignal, UsageError } from './cli-io';

export const ACP_BRIDGE_HELP = `Usage: crow acp-bridge --port N [options] -- CMD [ARGS...]

Serves CMD, an ACP agent on stdio (e.g. "crow acp"), on a WebSocket at
ws://HOST:N: each text message is one JSON-RPC message, passed to CMD's
stdin as one line of compact JSON, and each line CMD writes comes back as
one message. A Crow agent definition reaches it with acp_url (and the token
with acp_token_env), so a long-lived agent can run as its own process.
Messages of up to ${MAX_ACP_MESSAGE_TEXT} pass, each way.

Whoever connects drives an agent that acts as you, so the bridge lets in
only clients that present its token, either as ?token=TOKEN in the URL or
as an "Authorization: Bearer TOKEN" header. The token is random and printed
at start, in the URL to connect to, unless --token-file gives it. After 20
refused attempts, attempts are checked at one a second; in between, every
connection is refused (HTTP 429).

Options:
  --port N              the port to listen on; 0 picks a free one
  --token-file F        read the token from F instead of making one (at
                        least 16 characters; F must be yours and readable
                        by you alone: chmod 600 F)
  --allow-origin URL    let web pages from this origin connect (repeatable);
                        by default a connection that carries an Origin header,
                        as every browser page sends, is refused
  --allow-client-mcp    let clients give MCP servers that run a command
                        (stdio servers) in session/new, session/load and
                        session/resume; refused by default, since they run as
                        you. Servers reached by URL always pass.
  --host H              the address to listen on (default 127.0.0.1). Anything
                        but loopback lets whoever reaches it try the token,
                        and sends it unencrypted: use with care. On loopback,
                        a connection must name loopback in its Host header.
  --shared              one CMD for all connections, in turn (see below)

One CMD per connection (the default): CMD starts when a client connects and
is stopped when it disconnects. Connections are isolated and may run at the
same time; each pays CMD's start-up, and nothing outlives its connection.

--shared: one CMD serves every connection, in turn: a connection made while
another is open waits until that one closes. CMD's start-up is paid once and
what it keeps in memory (sessions, caches) outlives a client, so a client
can come back to a session; but clients wait for each other, each must
initialize again, and a prompt one leaves running keeps running for the
next. CMD is started again if it exits.

The listening address, connections, refusals and CMD's own stderr go to
stderr. Ctrl-C, SIGTERM or SIGHUP stops every CMD and exits (130, 143, 129).`;

/** Output to a socket that has this much unsent stops reading CMD's stdout until it drains. */
const HIGH_WATER_BYTES = 4 * 1024 * 1024;

interface BridgeOptions {
  host: string;
  port: number;
  shared: boolean;
  command: string[];
  access: BridgeAccess;
  /** Where the token came from; undefined when made at start (then it is printed). */
  tokenFile?: string;
  allowClientMcp: boolean;
}

/** A running CMD: the process, its stdout as lines. */
interface Agent {
  process: ChildProcess;
  lines: AgentLines;
}

/** Serves a stdio ACP agent over WebSocket until SIGINT or SIGTERM. */
export async function acpBridgeCommand(argv: string[], io: CliIO): Promise<number> {
  const options = bridgeOptions(argv);
  if (options === 'help') {
    io.stdout.write(`${ACP_BRIDGE_HELP}\n`);
    return 0;
  }
  const log = (message: string): void => void io.stderr.write(`crow acp-bridge: ${message}\n`);
  let access = options.access;
  const server = new WebSocketServer({
    host: options.host,
    port: options.port,
    maxPayload: MAX_ACP_MESSAGE_BYTES,
    verifyClient: ({ req }, answer) => {
      const refused = refusal(req, access);
      // While every attempt is refused, one line says so: a guesser does not fill the log.
      if (refused && (refused.status !== 429 || access.budget.firstOfSpell())) {
        log(`refused a connection from ${req.socket.remoteAddress ?? 'unknown'}: ${refused.reason}`);
      }
      answer(refused === undefined, refused?.status, refused ? `${refused.reason}\n` : undefined);
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
  });
  const address = server.address();
  if (address !== null && typeof address !== 'string') access = { ...access, hosts: answeringHosts(address.address, address.port) };
  const bridge = new Bridge(options, io, log);
  server.on('connection', (socket, request) => bridge.accept(socket, request.socket.remoteAddress ?? 'unknown'));
  const at = listeningAt(server);
  const url = options.tokenFile === undefined ? `${at}/?token=${options.access.token}` : `${at}/ (token from ${options.tokenFile})`;
  // Warnings first: whoever waits for the "serving" line has read them by then.
  if (!isLoopback(options.host)) {
    log(`warning: ${options.host} is not loopback: whoever reaches it can try the token, and ws:// sends it unencrypted.`);
  }
  if (options.allowClientMcp) log('warning: --allow-client-mcp: clients may have the agent run commands as you, through MCP servers.');
  log(`serving "${options.command.join(' ')}" on ${url} (${options.shared ? 'one shared agent' : 'one agent per connection'})`);
  const signal = await untilStopped(io);
  log(`${signal} received: stopping`);
  for (const socket of server.clients) socket.close(1001, 'the bridge is stopping');
  await Promise.all([bridge.stopAll(), new Promise((resolve) => server.close(resolve))]);
  return STOP_EXIT_CODES[signal];
}

function bridgeOptions(argv: string[]): BridgeOptions | 'help' {
  const split = argv.indexOf('--');
  const { values, positionals } = commandArgs('acp-bridge', split === -1 ? argv : argv.slice(0, split), {
    port: { type: 'string' },
    host: { type: 'string', default: '127.0.0.1' },
    shared: { type: 'boolean', default: false },
    'token-file': { type: 'string' },
    'allow-origin': { type: 'string', multiple: true, default: [] },
    'allow-client-mcp': { type: 'boolean', default: false },
  });
  if (values.help) return 'help';
  const command = split === -1 ? [] : argv.slice(split + 1);
  if (positionals.length > 0 || command.length === 0) throw new UsageError('give the agent command after "--", e.g. crow acp-bridge --port 8765 -- crow acp');
  const port = Number(values.port);
  if (values.port === undefined || !Number.isInteger(port) || port < 0 || port > 65535) {
    throw new UsageError('--port needs a port number from 0 to 65535 (0 picks a free one).');
  }
  const tokenFile = values['token-file'];
  return {
    host: values.host,
    port,
    shared: values.shared,
    command,
    access: {
      token: tokenFile !== undefined ? readTokenFile(tokenFile) : newAccessToken(),
      origins: allowedOrigins(values['allow-origin']),
      budget: new RefusalBudget(),
    },
    ...(tokenFile !== undefined ? { tokenFile } : {}),
    allowClientMcp: values['allow-client-mcp'],
  };
}

/** Starts agents for connections and forwards between them; remembers every agent so all can be stopped. */
class Bridge {
  private readonly running = new Set<ChildProcess>();
  private readonly stopping = new Map<ChildProcess, Promise<void>>();
  /** --shared: the agent, and the connections in turn, the one served first. */
  private shared: Agent | undefined;
  private readonly queue: WebSocket[] = [];
  private connections = 0;

  constructor(
    private readonly options: BridgeOptions,
    private readonly io: CliIO,
    private readonly log: (message: string) => void,
  ) {}

  accept(socket: WebSocket, from: string): void {
    const name = `connection ${++this.connections} from ${from}`;
    if (!this.options.shared) {
      const agent = this.start();
      this.log(`${name}: agent pid ${agent?.process.pid ?? '(none)'}`);
      socket.once('close', () => {
        this.log(`${name} closed`);
        if (agent) this.stop(agent.process);
      });
      return this.attach(socket, agent, name);
    }
    // Paused, a waiting socket keeps what its client sends until its turn.
    socket.pause();
    this.queue.push(socket);
    socket.once('close', () => {
      this.log(`${name} closed`);
      const served = this.queue[0] === socket;
      this.queue.splice(this.queue.indexOf(socket), 1);
      if (served) this.serveNext();
    });
    this.log(this.queue.length === 1 ? name : `${name} waits for its turn`);
    if (this.queue.length === 1) this.serveNext();
  }

  async stopAll(): Promise<void> {
    for (const child of this.running) this.stop(child);
    await Promise.all(this.stopping.values());
  }

  private serveNext(): void {
    const socket = this.queue[0];
    if (!socket) return;
    socket.resume();
    this.shared ??= this.start();
    this.attach(socket, this.shared, `connection ${this.connections}`);
  }

  /** Forwards between `socket` and `agent` until the socket closes; closes it when there is no agent or the agent exits. */
  private attach(socket: WebSocket, agent: Agent | undefined, name: string): void {
    if (!agent) return socket.close(1011, 'the agent could not be started');
    const detach = forward(socket, agent, this.options.allowClientMcp, (reason) => this.log(`${name}: refused a message: ${reason}`));
    const onExit = (code: number | null, signal: NodeJS.Signals | null): void => socket.close(1011, `the agent exited (${code ?? signal})`);
    agent.process.once('exit', onExit);
    socket.once('close', () => {
      detach();
      agent.process.off('exit', onExit);
    });
  }

  /** Starts CMD; undefined when it cannot run (the reason is logged). */
  private start(): Agent | undefined {
    const child = startAgentProcess(this.options.command, { cwd: this.io.cwd, env: this.io.env, stderr: 'inherit' });
    child.on('error', (err) => this.log(`agent ${this.options.command[0]}: ${err.message}`));
    if (child.pid === undefined) return undefined;
    this.running.add(child);
    child.once('exit', (code, signal) => {
      this.running.delete(child);
      if (this.shared?.process === child) this.shared = undefined;
      this.log(`agent pid ${child.pid} exited (${code ?? signal})`);
    });
    const lines = new AgentLines(child.stdout!, MAX_ACP_MESSAGE_BYTES);
    lines.once('overflow', () => {
      this.log(`agent pid ${child.pid} wrote a line of more than ${MAX_ACP_MESSAGE_TEXT} (the most the bridge passes in one message): stopping it`);
      this.stop(child);
    });
    return { process: child, lines };
  }

  private stop(child: ChildProcess): void {
    if (this.stopping.has(child)) return;
    this.stopping.set(child, stopAgentProcess(child).finally(() => this.stopping.delete(child)));
  }
}

/**
 * Forwards line for line between `socket` and `agent` until the returned
 * function detaches them, the client's messages screened on the way (see
 * acp-bridge-screen.ts). Each side stops reading while the other has too
 * much unsent.
 */
function forward(socket: WebSocket, agent: Agent, allowClientMcp: boolean, onRefused: (reason: string) => void): () => void {
  const stdin = agent.process.stdin!;
  const toSocket = (line: string): void => {
    if (line.trim() === '' || socket.readyState !== WebSocket.OPEN) return;
    socket.send(line, () => {
      if (socket.bufferedAmount < HIGH_WATER_BYTES) agent.lines.resume();
    });
    if (socket.bufferedAmount >= HIGH_WATER_BYTES) agent.lines.pause();
  };
  const toAgent = (data: RawData): void => {
    const { forward: line, replies, refused } = screenClientMessage(asText(data), allowClientMcp);
    if (refused !== undefined) onRefused(refused);
    for (const reply of replies) if (socket.readyState === WebSocket.OPEN) socket.send(reply);
    if (line !== undefined && stdin.writable && !stdin.write(`${line}\n`)) {
      socket.pause();
      stdin.once('drain', () => socket.resume());
    }
  };
  agent.lines.on('line', toSocket);
  socket.on('message', toAgent);
  return () => {
    agent.lines.off('line', toSocket);
    agent.lines.resume();
    socket.off('message', toAgent);
  };
}

function asText(data: RawData): string {
  const bytes = Array.isArray(data) ? Buffer.concat(data) : Buffer.isBuffer(data) ? data : Buffer.from(data);
  return bytes.toString('utf8');
}

function listeningAt(server: WebSocketServer): string {
  const address = server.address();
  if (address === null || typeof address === 'string') return String(address);
  return `ws://${address.family === 'IPv6' ? `[${address.address}]` : address.address}:${address.port}`;
}

/** The first stop signal; the subscription stays, so a second one quits at once (see CliIO.onInterrupt). */
function untilStopped(io: CliIO): Promise<StopSignal> {
  return new Promise((resolve) => void io.onInterrupt(resolve));
}
