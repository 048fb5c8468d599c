/**
 * A real pseudo-terminal for tests of the CLI as a person uses it: the
 * command runs in a tmux pane (its own tmux server, nothing shared with the
 * user's), keys are typed into it, and the screen is read back as text.
 * The pane stays after the command exits, so its screen can still be read.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const HAVE_TMUX = spawnSync('tmux', ['-V']).status === 0;
/** Why the terminal tests skip here, or undefined when tmux runs. */
export const NO_TMUX = HAVE_TMUX ? undefined : 'no tmux (apt-get install -y tmux)';

export interface TerminalOptions {
  cwd: string;
  /** The command's whole environment (TERM is added). */
  env: NodeJS.ProcessEnv;
  columns?: number;
  rows?: number;
}

export class Terminal {
  private readonly dir: string;
  private readonly socket: string;
  private readonly statusFile: string;

  private constructor(dir: string) {
    this.dir = dir;
    this.socket = join(dir, 'tmux.sock');
    this.statusFile = join(dir, 'status');
  }

  /** Starts `argv` in a fresh pane of a private tmux server. */
  static start(argv: readonly string[], options: TerminalOptions): Terminal {
    const terminal = new Terminal(mkdtempSync(join(tmpdir(), 'crow-tty-')));
    const config = join(terminal.dir, 'tmux.conf');
    writeFileSync(config, 'set -g remain-on-exit on\nset -g history-limit 5000\nset -g status off\n');
    const env = { ...options.env, TERM: 'xterm-256color' };
    // `env -i` gives the command exactly `env`, not the tmux server's environment.
    const command = ['env', '-i', ...Object.entries(env).flatMap(([key, value]) => (value === undefined ? [] : [`${key}=${value}`])), ...argv];
    // tmux loses the exit status of a command that ends quickly; a shell around it writes it down.
    // Its INT trap is a handler, not "ignore", so the command (exec resets handlers) still gets Ctrl-C.
    const wrapped = ['sh', '-c', 'status="$1"; shift; trap : INT; "$@"; echo $? > "$status"', 'sh', terminal.statusFile, ...command];
    execFileSync('tmux', [
      '-S', terminal.socket, '-f', config,
      'new-session', '-d', '-s', 'crow', '-x', String(options.columns ?? 120), '-y', String(options.rows ?? 40), '-c', options.cwd,
      ...wrapped,
    ]);
    return terminal;
  }

  /** Types `text` and presses Enter. */
  typeLine(text: string): void {
    this.tmux('send-keys', '-t', 'crow', '-l', text);
    this.tmux('send-keys', '-t', 'crow', 'Enter');
  }

  /** Presses keys by tmux name, e.g. `C-c`. */
  press(...keys: string[]): void {
    this.tmux('send-keys', '-t', 'crow', ...keys);
  }

  /** Everything the pane shows, with its scrollback, wrapped lines joined, trailing blanks dropped; `colors`: with its SGR escapes. */
  screen(options: { colors?: boolean } = {}): string {
    return this.tmux('capture-pane', '-p', '-J', ...(options.colors ? ['-e'] : []), '-t', 'crow', '-S', '-5000').replace(/\s+$/, '');
  }

  /** The command's exit status once it has ended, else undefined. */
  exitStatus(): number | undefined {
    try {
      const text = readFileSync(this.statusFile, 'utf8').trim();
      return text === '' ? undefined : Number(text);
    } catch {
      return undefined;
    }
  }

  /** Waits until the screen matches `pattern`; fails with the screen when it does not within `timeoutMs`. */
  async waitFor(pattern: RegExp, timeoutMs = 15_000): Promise<string> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const screen = this.screen();
      if (pattern.test(screen)) return screen;
      if (Date.now() > deadline) throw new Error(`the terminal never showed ${pattern}; it shows:\n${screen}`);
      await new Promise((done) => setTimeout(done, 50));
    }
  }

  /** Waits for the command to end; its exit status. */
  async waitForExit(timeoutMs = 15_000): Promise<number> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const status = this.exitStatus();
      if (status !== undefined) return status;
      if (Date.now() > deadline) throw new Error(`the command did not end within ${timeoutMs / 1000} s; the terminal shows:\n${this.screen()}`);
      await new Promise((done) => setTimeout(done, 50));
    }
  }

  close(): void {
    spawnSync('tmux', ['-S', this.socket, 'kill-server']);
    rmSync(this.dir, { recursive: true, force: true });
  }

  private tmux(...args: string[]): string {
    return execFileSync('tmux', ['-S', this.socket, ...args], { encoding: 'utf8' });
  }
}
