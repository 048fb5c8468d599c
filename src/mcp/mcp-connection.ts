import type * as ClientModule from '@modelcontextprotocol/sdk/client/index.js';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult, Progress, Tool as McpToolInfo } from '@modelcontextprotocol/sdk/types.js';
import { version } from '../../package.json';
import { errorText } from '../vocabulary/text';
import { McpInputLimitError } from './bounded-input';
import { capabilitiesOf, offerFeatures, type McpClientFeatures } from './client-features';
import type { McpClientRequests } from './client-requests';
import { allPages } from './list-pages';
import { connectFailure, failureKind, fixHint, withStderr } from './connection-failures';
import { openTransport, type OpenedTransport } from './mcp-transport';
import { McpOAuthProvider, McpSignInNeeded } from './oauth-provider';
import type { McpTokenStore } from './oauth-store';
import type { McpServerConfig } from './server-config';

export type { CallToolResult, McpToolInfo, Progress as McpProgress };
export type McpRequestOptions = { timeout: number; signal?: AbortSignal };

/** Something wrong with a server, in words that name it and say what to do. */
export interface McpProblem {
  server: string;
  message: string;
  /** The server needs the person to sign in (OAuth); a door may offer its way to. */
  signIn?: true;
}

/** How a session's remote servers sign in: where tokens are kept, and how this door tells a person to sign in. */
export interface McpAuth {
  store: McpTokenStore;
  /** What the person does to sign in to `server`, e.g. "run `crow mcp login docs`". */
  signInHint(server: McpServerConfig): string;
}

export interface McpConnectionOptions {
  config: McpServerConfig;
  /** Where a stdio server starts: the session's workspace. */
  cwd: string;
  /** Told each kind of problem once per connection: could not start, stopped, gave up. */
  report: (problem: McpProblem) => void;
  /** Waits before the 1st, 2nd, ... restart after the server stopped; one restart per entry, then it counts as broken. */
  restartDelaysMs?: readonly number[];
  /** Roots and list changes offered to the server; absent: none declared. */
  features?: McpClientFeatures;
  /** What the client declares and answers when the server asks (elicitation, sampling); none when absent. */
  requests?: McpClientRequests;
  /** Signing in to a remote server that asks (OAuth); without it a server that asks cannot be used. */
  auth?: McpAuth;
}

const DEFAULT_STARTUP_TIMEOUT_MS = 30_000;
const DEFAULT_TOOL_TIMEOUT_MS = 120_000;
const DEFAULT_RESTART_DELAYS_MS = [250, 1_000, 4_000];

type State =
  | { kind: 'idle' }
  | { kind: 'starting'; client: Promise<Client> }
  | { kind: 'ready'; client: Client; opened: OpenedTransport }
  /** It stopped under us; the next use restarts it. */
  | { kind: 'lost'; reason: string }
  | { kind: 'broken'; reason: string }
  /** It asks a person to sign in; the next use tries again once tokens are stored. */
  | { kind: 'signed_out'; reason: string }
  | { kind: 'closed' };

/**
 * The client side of one MCP server for one session. It connects on first
 * use, restarts a server that stopped (after a growing wait, a bounded
 * number of times in a row), and otherwise stays broken: its calls then fail
 * with the reason, and listing yields no tools. Reports go to `report`.
 */
export class McpConnection {
  private state: State = { kind: 'idle' };
  /** Restarts since the last call that succeeded. */
  private restarts = 0;
  private readonly reported = new Set<ReportKind>();
  /** How it signs in, for a remote server of a session with sign-in. */
  private readonly authProvider: McpOAuthProvider | undefined;

  constructor(private readonly options: McpConnectionOptions) {
    const { transport, oauth } = options.config;
    if (options.auth && transport.type !== 'stdio') {
      const span = options.features?.span;
      const attributes = { 'crow.mcp.server': options.config.name, 'server.address': new URL(transport.url).host };
      this.authProvider = new McpOAuthProvider({
        serverUrl: transport.url,
        store: options.auth.store,
        ...(oauth ? { settings: oauth } : {}),
        refreshed: () => span?.(`mcp oauth refresh ${options.config.name}`, attributes).end('ok'),
      });
    }
  }

  /** Whether it waits for the person to sign in. */
  get signedOut(): boolean {
    return this.state.kind === 'signed_out';
  }

  get name(): string {
    return this.options.config.name;
  }

  /** Every tool the server offers (all pages, up to MAX_LIST_PAGES); none when it cannot start, which is reported. */
  async listTools(): Promise<McpToolInfo[]> {
    try {
      const client = await this.client();
      const timeout = this.startupTimeoutMs;
      return await allPages((cursor) => client.listTools(cursor === undefined ? {} : { cursor }, { timeout }), (page) => page.tools);
    } catch (err) {
      if (err instanceof McpSignInNeeded) this.signOut();
      else if (this.state.kind === 'ready' || this.state.kind === 'lost') this.breakDown(`listing its tools failed: ${errorText(err)}`, 'start');
      return [];
    }
  }

  /**
   * Calls a tool; throws an Error whose message says what went wrong and
   * what to do. Aborting cancels the request. With `onProgress` the call
   * asks for progress (a progress token), hands on each notifications/progress
   * the server sends, and is not timed out (tool_timeout_sec) while those
   * keep coming: the timeout counts from the last one.
   */
  async callTool(tool: string, args: Record<string, unknown>, signal: AbortSignal, onProgress?: (progress: Progress) => void): Promise<CallToolResult> {
    const client = await untilAborted(this.client(), signal);
    const call = new AbortController();
    const cancel = (): void => call.abort(signal.reason);
    signal.addEventListener('abort', cancel, { once: true });
    const progress = onProgress ? { onprogress: onProgress, resetTimeoutOnProgress: true } : {};
    try {
      const result = await client.callTool({ name: tool, arguments: args }, undefined, { signal: call.signal, timeout: this.toolTimeoutMs, ...progress });
      this.restarts = 0;
      return 'content' in result ? (result as CallToolResult) : { content: [{ type: 'text', text: JSON.stringify(result.toolResult) }] };
    } catch (err) {
      throw this.callFailure(client, tool, err, signal);
    } finally {
      signal.removeEventListener('abort', cancel);
    }
  }

  /**
   * Runs `use` with the connected client, for what is not a tool call
   * (resources, prompts), with the startup timeout; `undefined` when the
   * server did not declare `feature`. Throws when the server cannot be
   * reached or refuses, in words that name it.
   */
  async request<T>(feature: 'resources' | 'prompts' | 'completions', what: string, use: (client: Client, options: McpRequestOptions) => Promise<T>, signal?: AbortSignal): Promise<T | undefined> {
    const request = new AbortController();
    const cancel = (): void => request.abort(signal?.reason);
    const client = await untilAborted(this.client(), signal ?? request.signal);
    if (client.getServerCapabilities()?.[feature] === undefined) return undefined;
    // Our own signal, let go of when done: the SDK keeps a listener on the one it is given.
    signal?.addEventListener('abort', cancel, { once: true });
    try {
      return await use(client, { timeout: this.startupTimeoutMs, signal: request.signal });
    } catch (err) {
      throw new Error(`MCP server "${this.name}" could not ${what}: ${errorText(err)}`);
    } finally {
      signal?.removeEventListener('abort', cancel);
    }
  }

  /** Tells a running server that the roots changed (notifications/roots/list_changed); a server not running asks when it starts. */
  async rootsChanged(): Promise<void> {
    if (this.state.kind !== 'ready' || !this.options.features?.roots) return;
    await this.state.client.sendRootsListChanged().catch(() => undefined);
  }

  /** Stops the server (or our session with it) for good. */
  async close(): Promise<void> {
    const state = this.state;
    this.state = { kind: 'closed' };
    // A start under way sees the closed state and shuts its server down itself.
    if (state.kind === 'starting') await state.client.catch(() => undefined);
    if (state.kind === 'ready') await shutDown(state.client, state.opened);
  }

  private get closedMessage(): string {
    return `MCP server "${this.name}" was closed with its session.`;
  }

  private get startupTimeoutMs(): number {
    return this.options.config.startupTimeoutMs ?? DEFAULT_STARTUP_TIMEOUT_MS;
  }

  private get toolTimeoutMs(): number {
    return this.options.config.toolTimeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS;
  }

  private client(): Promise<Client> {
    switch (this.state.kind) {
      case 'ready':
        return Promise.resolve(this.state.client);
      case 'starting':
        return this.state.client;
      case 'idle':
        return this.begin(() => this.start());
      case 'lost': {
        const { reason } = this.state;
        return this.begin(() => this.restart(reason));
      }
      case 'broken':
        return Promise.reject(new Error(this.state.reason));
      case 'signed_out': {
        const { reason } = this.state;
        return this.begin(() => this.afterSignIn(reason));
      }
      case 'closed':
        return Promise.reject(new Error(this.closedMessage));
    }
  }

  /** Starts `connect` once the state says so, so that whatever it sets (broken, ready) wins. */
  private begin(connect: () => Promise<Client>): Promise<Client> {
    const client = Promise.resolve().then(connect);
    this.state = { kind: 'starting', client };
    // Callers see the rejection; this only keeps an unobserved one quiet.
    client.catch(() => undefined);
    return client;
  }

  private async start(): Promise<Client> {
    const { problem } = this.options.config;
    try {
      if (problem !== undefined) throw new Error(problem);
      return await this.connectOnce();
    } catch (err) {
      if (err instanceof McpSignInNeeded) throw new Error(this.signOut());
      throw new Error(this.breakDown(errorText(err), 'start'));
    }
  }

  /** Starts again when the person has signed in since (tokens are stored), else stays signed out. */
  private async afterSignIn(reason: string): Promise<Client> {
    if (await this.authProvider?.hasTokens().catch(() => false)) return this.start();
    if (this.state.kind !== 'closed') this.state = { kind: 'signed_out', reason };
    throw new Error(reason);
  }

  /** Waits, then starts again, until it works or the restarts allowed in a row are spent. */
  private async restart(lostBecause: string): Promise<Client> {
    const delays = this.options.restartDelaysMs ?? DEFAULT_RESTART_DELAYS_MS;
    let failure = lostBecause;
    while (this.restarts < delays.length) {
      await new Promise((resolve) => setTimeout(resolve, delays[this.restarts++]).unref());
      if (this.state.kind === 'closed') throw new Error(this.closedMessage);
      try {
        return await this.connectOnce();
      } catch (err) {
        if (err instanceof McpInputLimitError) throw new Error(this.breakDown(err.message, 'gave_up'));
        if (err instanceof McpSignInNeeded) throw new Error(this.signOut());
        failure = errorText(err);
      }
    }
    throw new Error(this.breakDown(`it stopped, and ${this.restarts} restarts in a row failed (last: ${failure})`, 'gave_up'));
  }

  /** One attempt: start the transport, initialize, and watch for the server going away. */
  private async connectOnce(): Promise<Client> {
    // Required here, not imported: the SDK loads with the first server, sessions without any never load it.
    const { Client } = require('@modelcontextprotocol/sdk/client/index.js') as typeof ClientModule;
    const opened = openTransport(this.options.config.transport, this.options.cwd, this.authProvider);
    const features = this.options.features ?? {};
    const client = new Client({ name: 'crow-agent', version }, { capabilities: { ...capabilitiesOf(features), ...this.options.requests?.capabilities } });
    offerFeatures(client, this.name, features);
    this.options.requests?.install(client, this.name);
    try {
      await opened.freshen();
      await client.connect(opened.transport, { timeout: this.startupTimeoutMs });
    } catch (err) {
      await opened.transport.close().catch(() => undefined);
      throw connectFailure(err, opened, this.authProvider);
    }
    if (this.state.kind === 'closed') {
      await shutDown(client, opened);
      throw new Error(this.closedMessage);
    }
    client.onclose = () => {
      // A server that sends more than Crow reads would only do it again: no restart.
      const overLimit = opened.overLimit();
      if (overLimit === undefined) this.lose(client, withStderr('its connection closed', opened));
      else if (this.state.kind === 'ready' && this.state.client === client) this.breakDown(overLimit, 'gave_up');
    };
    this.state = { kind: 'ready', client, opened };
    return client;
  }

  /** The server went away under a live connection: report it once, restart on the next use. */
  private lose(client: Client, reason: string): void {
    if (this.state.kind !== 'ready' || this.state.client !== client) return;
    this.state = { kind: 'lost', reason };
    void client.close().catch(() => undefined);
    this.reportOnce('stopped', `MCP server "${this.name}" stopped unexpectedly (${reason}); it is restarted on the next call of one of its tools.`);
  }

  /** Marks the server as waiting for the person to sign in and reports it once; returns the message calls fail with. */
  private signOut(): string {
    if (this.state.kind === 'closed') return this.closedMessage;
    const hint = this.options.auth?.signInHint(this.options.config) ?? 'sign in to it where you configured it';
    const message = `MCP server "${this.name}" needs you to sign in: ${hint}. Its tools are unavailable until then.`;
    if (this.state.kind === 'ready') void shutDown(this.state.client, this.state.opened);
    this.state = { kind: 'signed_out', reason: message };
    if (!this.reported.has('sign_in')) this.options.features?.span?.(`mcp oauth sign-in needed ${this.name}`, { 'crow.mcp.server': this.name }).end('error', 'the server needs the person to sign in');
    this.reportOnce('sign_in', message);
    return message;
  }

  /** Marks the server broken for the session and reports it once; returns the message calls fail with. Closed stays closed, unreported. */
  private breakDown(reason: string, kind: 'start' | 'gave_up'): string {
    if (this.state.kind === 'closed') return this.closedMessage;
    const what = kind === 'start' ? 'could not start' : 'is unavailable';
    const message = `MCP server "${this.name}" ${what}: ${reason}. Its tools are unavailable in this session; ${fixHint(this.options.config)}.`;
    if (this.state.kind === 'ready') void shutDown(this.state.client, this.state.opened);
    this.state = { kind: 'broken', reason: message };
    this.reportOnce(kind, message);
    return message;
  }

  private reportOnce(kind: ReportKind, message: string): void {
    if (this.reported.has(kind)) return;
    this.reported.add(kind);
    this.options.report({ server: this.name, message, ...(kind === 'sign_in' ? { signIn: true as const } : {}) });
  }

  private callFailure(client: Client, tool: string, err: unknown, signal: AbortSignal): Error {
    if (signal.aborted) return new Error(`Cancelled; the call of ${tool} on MCP server "${this.name}" was cancelled too.`);
    if (err instanceof McpSignInNeeded) return new Error(this.signOut());
    const reason = errorText(err);
    switch (failureKind(err)) {
      case 'timeout': {
        const seconds = this.toolTimeoutMs / 1000;
        return new Error(
          `MCP server "${this.name}" did not answer ${tool}, nor report progress, within ${seconds} s (tool_timeout_sec); the call was cancelled. Raise tool_timeout_sec for a tool that takes longer.`,
        );
      }
      case 'refused':
        return new Error(`MCP server "${this.name}" refused the call of ${tool}: ${reason}`);
      case 'malformed':
        return new Error(`MCP server "${this.name}" answered ${tool} with something that is not a tool result: ${reason}`);
      case 'connection': {
        const overLimit = this.state.kind === 'ready' && this.state.client === client ? this.state.opened.overLimit() : undefined;
        if (overLimit !== undefined) return new Error(this.breakDown(overLimit, 'gave_up'));
        // Broken meanwhile (e.g. by what it sent): that is the reason, and nothing restarts it.
        if (this.state.kind === 'broken') return new Error(this.state.reason);
        this.lose(client, reason);
        return new Error(`MCP server "${this.name}" stopped while running ${tool} (${reason}); it is restarted on the next call.`);
      }
    }
  }
}

type ReportKind = 'start' | 'stopped' | 'gave_up' | 'sign_in';

async function shutDown(client: Client, opened: OpenedTransport): Promise<void> {
  client.onclose = undefined;
  await opened.release();
  await client.close().catch(() => undefined);
}

/** The promise, or a rejection as soon as `signal` aborts (the work behind the promise goes on). */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(new Error('Cancelled before the MCP server was ready.'));
  return new Promise<T>((resolve, reject) => {
    const abort = (): void => reject(new Error('Cancelled while the MCP server was starting.'));
    signal.addEventListener('abort', abort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', abort));
  });
}
