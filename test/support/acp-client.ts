import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import * as acp from '@agentclientprotocol/sdk';
import type {
  AnyMessage,
  ClientCapabilities,
  ContentBlock,
  CreateElicitationRequest,
  CreateElicitationResponse,
  InitializeResponse,
  NewSessionResponse,
  PermissionOptionKind,
  PromptResponse,
  RequestPermissionRequest,
  SessionNotification,
  SessionUpdate,
} from '@agentclientprotocol/sdk';

/** An option kind (its id is the same), a cancel, or any option by id with the outcome's `_meta`. */
export type PermissionReply = PermissionOptionKind | 'cancelled' | { optionId: string; _meta?: Record<string, unknown> };

export interface TestClientOptions {
  /** What the client offers; default: nothing, so the agent uses its Node backend. */
  capabilities?: ClientCapabilities;
  /** How permission requests are answered; default: reject_once. */
  permission?: (request: RequestPermissionRequest) => PermissionReply | Promise<PermissionReply>;
  /** How elicitation/create forms are answered (advertise `elicitation: { form: {} }` too); default: cancel. */
  elicit?: (request: CreateElicitationRequest) => CreateElicitationResponse | Promise<CreateElicitationResponse>;
  /** Editor buffers by absolute path: read before the disk, written instead of it. */
  buffers?: Map<string, string>;
}

/** Client and agent ends of an in-memory connection: two TransformStreams. */
export function memoryStreams(): { agent: acp.Stream; client: acp.Stream } {
  const toAgent = new TransformStream<AnyMessage, AnyMessage>();
  const toClient = new TransformStream<AnyMessage, AnyMessage>();
  return {
    agent: { readable: toAgent.readable, writable: toClient.writable },
    client: { readable: toClient.readable, writable: toAgent.writable },
  };
}

interface FakeTerminal {
  command: string;
  output: string;
  exited: Promise<{ exitCode: number | null; signal: string | null }>;
  exitStatus?: { exitCode: number | null; signal: string | null };
  child: ChildProcess;
}

/**
 * An ACP client for tests, on the SDK's client API: records every update in
 * arrival order, answers permission requests as told, serves fs requests
 * from editor buffers over the disk, and runs terminals as child processes.
 */
export class TestClient {
  readonly notifications: SessionNotification[] = [];
  /** When each notification arrived (performance.now()), by its index in `notifications`: for benchmarks. */
  readonly arrivedAt: number[] = [];
  /** Updates and permission requests in arrival order, e.g. `tool_call w1` and `permission w1`. */
  readonly arrivals: string[] = [];
  readonly permissionRequests: RequestPermissionRequest[] = [];
  readonly elicitations: CreateElicitationRequest[] = [];
  readonly fsWrites: { path: string; content: string }[] = [];
  readonly terminals = new Map<string, FakeTerminal>();
  readonly connection: acp.ClientConnection;
  private readonly waiters = new Set<() => void>();

  constructor(
    stream: acp.Stream,
    private readonly options: TestClientOptions = {},
  ) {
    const buffers = options.buffers ?? new Map<string, string>();
    this.connection = acp
      .client({ name: 'crow-test-client' })
      .onNotification('session/update', ({ params }) => {
        this.notifications.push(params);
        this.arrivedAt.push(performance.now());
        const update = params.update;
        this.arrivals.push('toolCallId' in update ? `${update.sessionUpdate} ${update.toolCallId}` : update.sessionUpdate);
        this.wake();
      })
      .onRequest('session/request_permission', async ({ params }) => {
        this.permissionRequests.push(params);
        this.arrivals.push(`permission ${params.toolCall.toolCallId}`);
        this.wake();
        const reply = (await options.permission?.(params)) ?? 'reject_once';
        if (typeof reply === 'object') return { outcome: { outcome: 'selected', ...reply } };
        return { outcome: reply === 'cancelled' ? { outcome: 'cancelled' } : { outcome: 'selected', optionId: reply } };
      })
      .onRequest('elicitation/create', async ({ params }) => {
        this.elicitations.push(params);
        this.wake();
        return (await options.elicit?.(params)) ?? { action: 'cancel' };
      })
      .onRequest('fs/read_text_file', ({ params }) => ({ content: buffers.get(params.path) ?? readFileSync(params.path, 'utf8') }))
      .onRequest('fs/write_text_file', ({ params }) => {
        this.fsWrites.push({ path: params.path, content: params.content });
        buffers.set(params.path, params.content);
        return {};
      })
      .onRequest('terminal/create', ({ params }) => {
        const child = spawn(params.command, params.args ?? [], { cwd: params.cwd ?? undefined, stdio: ['ignore', 'pipe', 'pipe'] });
        const terminal: FakeTerminal = {
          command: [params.command, ...(params.args ?? [])].join(' '),
          output: '',
          child,
          exited: new Promise((resolve) => child.on('close', (exitCode, signal) => resolve({ exitCode, signal }))),
        };
        const collect = (chunk: Buffer): void => void (terminal.output += chunk.toString());
        child.stdout!.on('data', collect);
        child.stderr!.on('data', collect);
        void terminal.exited.then((status) => (terminal.exitStatus = status));
        const terminalId = `term-${this.terminals.size + 1}`;
        this.terminals.set(terminalId, terminal);
        return { terminalId };
      })
      .onRequest('terminal/output', ({ params }) => {
        const terminal = this.terminal(params.terminalId);
        return { output: terminal.output, truncated: false, exitStatus: terminal.exitStatus ?? null };
      })
      .onRequest('terminal/wait_for_exit', async ({ params }) => this.terminal(params.terminalId).exited)
      .onRequest('terminal/kill', ({ params }) => {
        this.terminal(params.terminalId).child.kill();
        return {};
      })
      .onRequest('terminal/release', ({ params }) => {
        this.terminal(params.terminalId).child.kill();
        return {};
      })
      .connect(stream);
  }

  get agent(): acp.ClientContext {
    return this.connection.agent;
  }

  initialize(): Promise<InitializeResponse> {
    return this.agent.request('initialize', {
      protocolVersion: acp.PROTOCOL_VERSION,
      clientCapabilities: this.options.capabilities ?? {},
      clientInfo: { name: 'crow-test-client', version: '0' },
    });
  }

  newSession(cwd: string): Promise<NewSessionResponse> {
    return this.agent.request('session/new', { cwd, mcpServers: [] });
  }

  prompt(sessionId: string, prompt: string | ContentBlock[]): Promise<PromptResponse> {
    const blocks = typeof prompt === 'string' ? [{ type: 'text' as const, text: prompt }] : prompt;
    return this.agent.request('session/prompt', { sessionId, prompt: blocks });
  }

  cancel(sessionId: string): Promise<void> {
    return this.agent.notify('session/cancel', { sessionId });
  }

  /** The session's updates so far, optionally of one kind. */
  updates<K extends SessionUpdate['sessionUpdate']>(sessionId: string, kind?: K): Extract<SessionUpdate, { sessionUpdate: K }>[] {
    return this.notifications
      .filter((n) => n.sessionId === sessionId && (kind === undefined || n.update.sessionUpdate === kind))
      .map((n) => n.update as Extract<SessionUpdate, { sessionUpdate: K }>);
  }

  /** Everything the agent said (agent_message_chunk text), joined. */
  said(sessionId: string): string {
    return this.chunkText(sessionId, 'agent_message_chunk');
  }

  /** Every thought (agent_thought_chunk text), joined. */
  thought(sessionId: string): string {
    return this.chunkText(sessionId, 'agent_thought_chunk');
  }

  /** Resolves once `condition` holds (checked on each update and permission request), rejects after `timeoutMs`. */
  async until(condition: () => boolean, timeoutMs = 5_000): Promise<void> {
    if (condition()) return;
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters.delete(check);
        reject(new Error(`condition not met within ${timeoutMs} ms`));
      }, timeoutMs);
      const check = (): void => {
        if (!condition()) return;
        clearTimeout(timer);
        this.waiters.delete(check);
        resolve();
      };
      this.waiters.add(check);
    });
  }

  close(): void {
    for (const terminal of this.terminals.values()) terminal.child.kill();
    this.connection.close();
  }

  private wake(): void {
    for (const check of this.waiters) check();
  }

  private chunkText(sessionId: string, kind: 'agent_message_chunk' | 'agent_thought_chunk'): string {
    return this.updates(sessionId, kind)
      .map((update) => (update.content.type === 'text' ? update.content.text : ''))
      .join('');
  }

  private terminal(id: string): FakeTerminal {
    const terminal = this.terminals.get(id);
    if (!terminal) throw acp.RequestError.invalidParams(undefined, `no terminal ${id}`);
    return terminal;
  }
}
