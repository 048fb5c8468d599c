/**
 * Runs the ACP registry's checks of a launched agent (see acp-registry.ts):
 * the auth check of verify_agents.py --auth-check (client.py run_auth_check)
 * and the daily protocol matrix (protocol_matrix.py probe_agent), over raw
 * newline-delimited JSON-RPC as theirs do (no SDK, so `_meta` is seen as
 * sent). Lines that are not the awaited answer (notifications such as
 * session/update) are passed over, as their read loop passes them over.
 */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import {
  METHOD_PROBES,
  type ProbeStatus,
  type ProbedMethod,
  authProblem,
  classify,
  closeAdvertised,
  closeOutcome,
  probeParams,
  registryInitializeParams,
} from './acp-registry';

interface RpcMessage {
  id?: unknown;
  result?: unknown;
  error?: { code?: unknown; message?: unknown };
}

/** An agent process spoken to in raw JSON-RPC lines. */
export class RawAgent {
  readonly child: ChildProcessWithoutNullStreams;
  private buffer = '';
  private readonly waiting = new Map<number, (message: RpcMessage) => void>();
  private stderrText = '';
  readonly exited: Promise<number | null>;

  constructor(command: string, args: string[], options: { cwd: string; env: NodeJS.ProcessEnv }) {
    this.child = spawn(command, args, { cwd: options.cwd, env: options.env });
    this.child.stdout.setEncoding('utf8');
    this.child.stdout.on('data', (text: string) => this.read(text));
    this.child.stderr.on('data', (chunk: Buffer) => (this.stderrText += chunk.toString()));
    this.exited = new Promise((done) => this.child.on('close', (code) => done(code)));
  }

  stderr(): string {
    return this.stderrText;
  }

  private read(text: string): void {
    const lines = (this.buffer + text).split('\n');
    this.buffer = lines.pop()!;
    for (const line of lines.filter((candidate) => candidate.trim() !== '')) {
      const message = JSON.parse(line) as RpcMessage;
      if (typeof message.id === 'number' && ('result' in message || 'error' in message)) this.waiting.get(message.id)?.(message);
    }
  }

  /** Sends a request and waits for its answer; rejects after `timeoutMs` (theirs: 120 s for initialize, 5 s per probe). */
  request(id: number, method: string, params: Record<string, unknown>, timeoutMs: number): Promise<RpcMessage> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no answer to ${method} within ${timeoutMs} ms; stderr:\n${this.stderrText}`)), timeoutMs);
      this.waiting.set(id, (message) => {
        clearTimeout(timer);
        this.waiting.delete(id);
        resolve(message);
      });
      this.child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
    });
  }

  /** Ends its input and waits for it to exit. */
  stop(): Promise<number | null> {
    this.child.stdin.end();
    return this.exited;
  }
}

export interface RegistryReport {
  /** The initialize answer's result. */
  initialize: Record<string, unknown>;
  /** Milliseconds from spawn to the initialize answer. */
  initializeMs: number;
  /** Why the registry's auth check fails; undefined when it passes. */
  authProblem: string | undefined;
  sessionNew: ProbeStatus;
  /** Capabilities as the matrix reads them (MATRIX probe_agent). */
  advertised: { loadSession: boolean; list: boolean; fork: boolean; resume: boolean; close: boolean };
  probes: Record<ProbedMethod, ProbeStatus>;
}

/** MATRIX capability_present: a key with a value that is not null. */
const present = (capabilities: Record<string, unknown>, key: string): boolean => key in capabilities && capabilities[key] !== null && capabilities[key] !== undefined;

/**
 * The registry's checks against a started agent: initialize with their
 * client's params, the auth check on its authMethods, then the matrix's
 * session/new in `workspace` and its method probes (close last, and only on
 * the session made, when advertised).
 */
export async function registryChecks(agent: RawAgent, workspace: string, started: number): Promise<RegistryReport> {
  const init = await agent.request(1, 'initialize', registryInitializeParams(), 120_000);
  const initializeMs = Date.now() - started;
  if (!('result' in init)) throw new Error(`initialize failed: ${JSON.stringify(init.error)}`);
  const result = init.result as Record<string, unknown>;
  const capabilities = (result.agentCapabilities ?? {}) as Record<string, unknown>;
  const session = (capabilities.sessionCapabilities ?? {}) as Record<string, unknown>;
  const advertised = {
    loadSession: Boolean(capabilities.loadSession),
    list: present(session, 'list'),
    fork: present(session, 'fork'),
    resume: present(session, 'resume'),
    close: closeAdvertised(session),
  };
  const created = await agent.request(2, 'session/new', { cwd: workspace, mcpServers: [] }, 5_000);
  const sessionId = 'result' in created ? String((created.result as { sessionId?: unknown }).sessionId ?? '') : '';
  const probes = {} as Record<ProbedMethod, ProbeStatus>;
  let id = 3;
  for (const method of METHOD_PROBES) {
    if (method === 'session/close' && !advertised.close) {
      probes[method] = 'not_applicable';
      continue;
    }
    const answer = await agent.request(id++, method, probeParams(method, sessionId || 'sess_matrix_probe', workspace), 5_000);
    probes[method] = method === 'session/close' ? closeOutcome(answer) : classify(answer);
  }
  return { initialize: result, initializeMs, authProblem: authProblem(result.authMethods), sessionNew: classify(created), advertised, probes };
}
