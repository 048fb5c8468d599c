import * as vscode from 'vscode';
import type { ExecResult } from '../../../tools/workspace';
import { foregroundJob, stopGroup } from './foreground-job';
import { ExitStatusScanner, HeadTailText, TerminalTextCleaner } from './terminal-output';
import type { TerminalLease } from './terminal-pool';

export interface TerminalRunOptions {
  timeoutMs: number;
  signal: AbortSignal;
  onOutput?: (chunk: string) => void;
  /** Characters of output kept (half head, half tail). */
  maxOutputChars: number;
  /** Time between SIGTERM and SIGKILL when the command has to be stopped. */
  killGraceMs: number;
}

/** How long the output stream may lag behind the end of its command before the rest is given up. */
const OUTPUT_SETTLE_MS = 1_000;
/** How long the end of a command whose processes are gone may take to be reported before its terminal is closed. */
const SETTLE_MS = 1_000;

/** How a command ended, from the terminal's side. */
type Ending = { kind: 'exited'; exitCode: number | undefined } | { kind: 'closed' };

/**
 * Runs one command line through the terminal's shell integration: output
 * is read from the execution as it streams, the exit code comes with its
 * end (see ExecutionTracker). On timeout or abort the command is stopped
 * as a child process would be (see stopCommand).
 */
export async function runInTerminal(lease: TerminalLease, commandLine: string, options: TerminalRunOptions): Promise<ExecResult> {
  const output = new HeadTailText(options.maxOutputChars);
  const cleaner = new TerminalTextCleaner();
  const collect = (text: string) => {
    if (text === '') return;
    output.push(text);
    options.onOutput?.(text);
  };
  const tracker = new ExecutionTracker(lease.terminal, (data) => collect(cleaner.push(data)));
  try {
    // The integration object can be replaced while a new terminal settles; the current one is used.
    const integration = lease.terminal.shellIntegration ?? lease.integration;
    tracker.track(integration.executeCommand(commandLine));
    const stop = await waitForStop(tracker.ending, options);
    let ending = stop === 'ended' ? await tracker.ending : undefined;
    if (stop !== 'ended') ending = await stopCommand(lease, tracker.ending, options.killGraceMs);
    await Promise.race([tracker.reading, delay(OUTPUT_SETTLE_MS)]);
    collect(cleaner.end());
    if (ending?.kind === 'closed' && stop === 'ended') collect('\n[the terminal was closed while the command ran]\n');
    return {
      exitCode: exitCodeOf(ending, stop !== 'ended'),
      ...output.result(),
      timedOut: stop === 'timeout',
      aborted: stop === 'aborted',
    };
  } finally {
    tracker.dispose();
    if (lease.terminal.exitStatus === undefined) lease.release();
    else lease.discard();
  }
}

/** Whether the command ended by itself, ran out of time, or the caller gave up on it. */
function waitForStop(ending: Promise<Ending>, options: TerminalRunOptions): Promise<'ended' | 'timeout' | 'aborted'> {
  if (options.signal.aborted) return Promise.resolve('aborted');
  return new Promise((resolve) => {
    const finish = (how: 'ended' | 'timeout' | 'aborted') => {
      clearTimeout(timer);
      options.signal.removeEventListener('abort', onAbort);
      resolve(how);
    };
    const onAbort = () => finish('aborted');
    const timer = setTimeout(() => finish('timeout'), options.timeoutMs);
    options.signal.addEventListener('abort', onAbort, { once: true });
    void ending.then(() => finish('ended'));
  });
}

/**
 * Stops a running command the way the child-process route does: its
 * process group (background children included) gets SIGTERM, then SIGKILL
 * after the grace period. Where the group cannot be found (no /proc),
 * Ctrl+C stands in. A command still there after all that goes down with
 * its terminal.
 */
async function stopCommand(lease: TerminalLease, ending: Promise<Ending>, graceMs: number): Promise<Ending | undefined> {
  const shellPid = await lease.terminal.processId;
  const job = shellPid === undefined ? undefined : await foregroundJob(shellPid);
  if (job === undefined) lease.terminal.sendText('\x03', false);
  else await stopGroup(job, graceMs);
  const ended = await Promise.race([ending, delay(job === undefined ? graceMs : SETTLE_MS).then(() => undefined)]);
  if (ended) return ended;
  lease.discard();
  return undefined;
}

/**
 * The exit code as ExecResult means it: null when the command was stopped
 * by a signal (ours, or a shell status above 128 after we interrupted it),
 * or when the shell did not report one.
 */
function exitCodeOf(ending: Ending | undefined, stopped: boolean): number | null {
  if (ending?.kind !== 'exited' || ending.exitCode === undefined) return null;
  if (stopped && ending.exitCode > 128) return null;
  return ending.exitCode;
}

/**
 * Follows the one command running in a leased terminal: its output and its
 * end (VS Code's end event, or the exit status the command line prints,
 * whichever comes first), or the closing of the terminal. VS Code pairs the execution that
 * executeCommand returns with the one the shell reports by comparing
 * command lines; when they differ (a long line wrapped in a narrow
 * terminal, a resize while it is typed), the reported execution is a new
 * object and the returned one never ends. The lease makes the terminal
 * ours, so the first execution starting in it after the command was sent
 * is the command, and the next end is its end, whichever objects they are.
 */
class ExecutionTracker implements vscode.Disposable {
  readonly ending: Promise<Ending>;
  private sent: vscode.TerminalShellExecution | undefined;
  private started: vscode.TerminalShellExecution | undefined;
  /** The stream output is taken from: the first to deliver any. */
  private source: vscode.TerminalShellExecution | undefined;
  private readonly streams = new Map<vscode.TerminalShellExecution, Promise<void>>();
  private readonly exitStatus = new ExitStatusScanner();
  private finish!: (ending: Ending) => void;
  private readonly subscriptions: vscode.Disposable[] = [];

  constructor(
    terminal: vscode.Terminal,
    private readonly onData: (data: string) => void,
  ) {
    // Subscribed before the command is sent, so a quick command's start and end are not missed.
    this.ending = new Promise((resolve) => {
      this.finish = resolve;
      this.subscriptions.push(
        vscode.window.onDidStartTerminalShellExecution((event) => {
          // May come before executeCommand has returned: the terminal is leased, so it is ours all the same.
          if (event.terminal !== terminal || this.started !== undefined) return;
          this.started = event.execution;
          this.read(event.execution);
        }),
        vscode.window.onDidEndTerminalShellExecution((event) => {
          // Once the command has started, the next end in the terminal is its end, whichever object VS Code hands over.
          const ours = event.execution === this.sent || event.execution === this.started;
          if (ours || (event.terminal === terminal && this.started !== undefined)) {
            resolve({ kind: 'exited', exitCode: event.exitCode });
          }
        }),
        vscode.window.onDidCloseTerminal((closed) => {
          if (closed === terminal) resolve({ kind: 'closed' });
        }),
      );
    });
  }

  /** Takes the execution executeCommand returned; its stream is read at once, as read() misses earlier data. */
  track(execution: vscode.TerminalShellExecution): void {
    this.sent = execution;
    this.read(execution);
  }

  dispose(): void {
    for (const subscription of this.subscriptions) subscription.dispose();
  }

  /** Settles when the stream carrying the command's output has ended. */
  get reading(): Promise<void> {
    const execution = this.source ?? this.started ?? this.sent;
    return (execution && this.streams.get(execution)) ?? Promise.resolve();
  }

  private read(execution: vscode.TerminalShellExecution): void {
    if (this.streams.has(execution)) return;
    const stream = readAll(execution, (data) => {
      this.source ??= execution;
      if (this.source !== execution) return;
      this.onData(data);
      const status = this.exitStatus.push(data);
      if (status !== undefined) this.finish({ kind: 'exited', exitCode: status });
    });
    this.streams.set(execution, stream);
  }
}

async function readAll(execution: vscode.TerminalShellExecution, onData: (data: string) => void): Promise<void> {
  try {
    for await (const data of execution.read()) onData(data);
  } catch {
    // The stream breaks when the terminal goes away; what was read is kept.
  }
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
