import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as vscode from 'vscode';
import { hiddenVariablesOf } from '../../../config/secret-variables';
import { terminalShell } from '../../../tools/command-shell';
import { runWords, terminalRunnerEnvironment } from './terminal-output';

/** A terminal lent for one command. */
export interface TerminalLease {
  terminal: vscode.Terminal;
  integration: vscode.TerminalShellIntegration;
  /** Gives the terminal back for the next command. */
  release(): void;
  /** Closes the terminal (with whatever still runs in it) instead of giving it back. */
  discard(): void;
  /** Tells the terminal's runner where the next command runs and the words that go before it (see terminalCommandLine). */
  prepare(cwd: string, prefix: readonly string[]): void;
}

/** A lease, or why commands have to run some other way. */
export type TerminalOffer = { lease: TerminalLease } | { unavailable: string };

export interface TerminalRequest {
  /** How long a new terminal may take to activate shell integration. */
  integrationTimeoutMs: number;
  /** Show the terminal (focus stays where it is) when a command starts in it. */
  reveal: boolean;
  signal: AbortSignal;
}

/**
 * The "Crow" terminals of one workspace root: bash with VS Code's shell
 * integration, one per command running at the same time, kept between
 * commands so the user can scroll back through what the agents ran. A
 * terminal the user is running something in is not lent out. When shell
 * integration does not show up in a new terminal in time (no bash, the
 * integration turned off, a host without a terminal backend), the pool
 * says so from then on and commands run as child processes instead.
 */
export class CrowTerminalPool implements vscode.Disposable {
  private readonly idle = new Set<vscode.Terminal>();
  private readonly lent = new Set<vscode.Terminal>();
  /** Terminals waiting for their shell integration, not yet lendable. */
  private readonly starting = new Set<vscode.Terminal>();
  /**
   * Commands the user started by typing in one of our idle terminals and
   * that still run. Whatever starts in a lent terminal is the agent's.
   */
  private readonly userRuns = new Map<vscode.Terminal, number>();
  private unavailable: string | undefined;
  private readonly subscriptions: vscode.Disposable[];
  /** The terminals' words files, in a folder only this user can read, made with the first terminal. */
  private wordsFolder: string | undefined;
  private readonly wordsFiles = new Map<vscode.Terminal, string>();
  private opened = 0;

  constructor(private readonly root: string) {
    this.subscriptions = [
      vscode.window.onDidCloseTerminal((terminal) => this.forget(terminal)),
      vscode.window.onDidStartTerminalShellExecution((event) => this.countUserRun(event, +1)),
      vscode.window.onDidEndTerminalShellExecution((event) => this.countUserRun(event, -1)),
    ];
  }

  async acquire(request: TerminalRequest): Promise<TerminalOffer> {
    if (this.unavailable !== undefined) return { unavailable: this.unavailable };
    const ready = [...this.idle].find((terminal) => this.isFree(terminal));
    const terminal = ready ?? (await this.open(request));
    if (!terminal?.shellIntegration) return { unavailable: this.unavailable ?? 'cancelled before the terminal was ready' };
    this.idle.delete(terminal);
    this.lent.add(terminal);
    if (request.reveal) terminal.show(true);
    return { lease: this.lease(terminal, terminal.shellIntegration) };
  }

  dispose(): void {
    for (const subscription of this.subscriptions) subscription.dispose();
    for (const terminal of [...this.idle, ...this.lent, ...this.starting]) terminal.dispose();
    this.idle.clear();
    this.lent.clear();
    this.starting.clear();
    if (this.wordsFolder) rmSync(this.wordsFolder, { recursive: true, force: true });
  }

  private lease(terminal: vscode.Terminal, integration: vscode.TerminalShellIntegration): TerminalLease {
    let returned = false;
    const giveBack = (keep: boolean) => {
      if (returned) return;
      returned = true;
      this.lent.delete(terminal);
      if (keep && terminal.exitStatus === undefined) this.idle.add(terminal);
      else terminal.dispose();
    };
    const wordsFile = this.wordsFiles.get(terminal)!;
    return {
      terminal,
      integration,
      release: () => giveBack(true),
      discard: () => giveBack(false),
      prepare: (cwd, prefix) => writeFileSync(wordsFile, runWords(cwd, prefix), { mode: 0o600 }),
    };
  }

  /** A new terminal once its shell integration is active; undefined (and the pool marked unavailable) otherwise. */
  private async open(request: TerminalRequest): Promise<vscode.Terminal | undefined> {
    // mkdtemp makes the folder 0700: nobody else can swap the words a terminal runs.
    this.wordsFolder ??= mkdtempSync(join(tmpdir(), 'crow-terminal-'));
    const wordsFile = join(this.wordsFolder, `words-${++this.opened}`);
    // On Windows Git Bash, never a bare `bash` (WSL's); without it the pool is off and commands say why (command-shell.ts).
    const shell = terminalShell();
    if ('problem' in shell) {
      this.unavailable = shell.problem;
      return undefined;
    }
    const terminal = vscode.window.createTerminal({
      name: this.nextName(),
      shellPath: shell.shell,
      cwd: this.root,
      env: { ...withoutSecrets(), ...terminalRunnerEnvironment(wordsFile) },
      // Not restored after a reload: its commands belonged to the window that ran them.
      isTransient: true,
    });
    // Shown before its shell starts drawing: a terminal shown only later is resized under bash's first prompt, and readline's redraw then
    // mangles the first line typed ("root@vm:/tmp/crow-vcrow-run 'echo …'").
    if (request.reveal) terminal.show(true);
    this.wordsFiles.set(terminal, wordsFile);
    this.starting.add(terminal);
    const seconds = request.integrationTimeoutMs / 1000;
    const outcome = await waitForIntegration(terminal, request.integrationTimeoutMs, request.signal);
    this.starting.delete(terminal);
    if (outcome === 'ready') return terminal;
    terminal.dispose();
    if (outcome === 'exited') this.unavailable = 'the Crow terminal exited while starting (is bash installed?)';
    if (outcome === 'timeout') this.unavailable = `shell integration did not activate in the Crow terminal within ${seconds}s`;
    return undefined;
  }

  private isFree(terminal: vscode.Terminal): boolean {
    return terminal.exitStatus === undefined && terminal.shellIntegration !== undefined && !this.userRuns.get(terminal);
  }

  private countUserRun(
    event: vscode.TerminalShellExecutionStartEvent | vscode.TerminalShellExecutionEndEvent,
    change: number,
  ): void {
    const { terminal } = event;
    const count = this.userRuns.get(terminal) ?? 0;
    if (change > 0 && !this.idle.has(terminal)) return;
    if (change < 0 && count === 0) return;
    this.userRuns.set(terminal, count + change);
  }

  private forget(terminal: vscode.Terminal): void {
    this.idle.delete(terminal);
    this.lent.delete(terminal);
    this.starting.delete(terminal);
    this.userRuns.delete(terminal);
    const wordsFile = this.wordsFiles.get(terminal);
    this.wordsFiles.delete(terminal);
    if (wordsFile) rmSync(wordsFile, { force: true });
  }

  private nextName(): string {
    const count = this.idle.size + this.lent.size + this.starting.size;
    return count === 0 ? 'Crow' : `Crow ${count + 1}`;
  }
}

/** Waits for a terminal's shell integration: 'ready', 'timeout', 'exited' (the shell ended first) or 'cancelled'. */
function waitForIntegration(
  terminal: vscode.Terminal,
  timeoutMs: number,
  signal: AbortSignal,
): Promise<'ready' | 'timeout' | 'exited' | 'cancelled'> {
  if (terminal.shellIntegration) return Promise.resolve('ready');
  if (signal.aborted) return Promise.resolve('cancelled');
  return new Promise((resolve) => {
    const finish = (outcome: 'ready' | 'timeout' | 'exited' | 'cancelled') => {
      clearTimeout(timer);
      changed.dispose();
      closed.dispose();
      signal.removeEventListener('abort', onAbort);
      resolve(outcome);
    };
    const onAbort = () => finish('cancelled');
    const timer = setTimeout(() => finish(terminal.shellIntegration ? 'ready' : 'timeout'), timeoutMs);
    const changed = vscode.window.onDidChangeTerminalShellIntegration((event) => {
      if (event.terminal === terminal) finish('ready');
    });
    const closed = vscode.window.onDidCloseTerminal((gone) => {
      if (gone === terminal) finish('exited');
    });
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * Our own credentials, unset in the terminal as they are for child
 * processes, by name and by value (null removes a variable the terminal
 * would inherit).
 */
function withoutSecrets(): Record<string, string | null> {
  const env: Record<string, string | null> = {};
  for (const name of hiddenVariablesOf(process.env)) env[name] = null;
  return env;
}

/** One pool per workspace root, shared by every VscodeWorkspace on it and closed with the last one. */
const pools = new Map<string, { pool: CrowTerminalPool; users: number }>();

/** Closes every Crow terminal with what still runs in it: the window is going away (see deactivate). */
export function closeAllPools(): void {
  for (const { pool } of pools.values()) pool.dispose();
  pools.clear();
}

export function usePool(root: string): { pool: CrowTerminalPool; release: () => void } {
  const entry = pools.get(root) ?? { pool: new CrowTerminalPool(root), users: 0 };
  pools.set(root, entry);
  entry.users++;
  let released = false;
  return {
    pool: entry.pool,
    release: () => {
      if (released) return;
      released = true;
      entry.users--;
      if (entry.users > 0) return;
      pools.delete(root);
      entry.pool.dispose();
    },
  };
}
