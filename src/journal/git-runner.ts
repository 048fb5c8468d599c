/**
 * Runs git against a shadow repository: an explicit GIT_DIR and work tree,
 * none of the machine's or the user's git configuration, every GIT_*
 * variable of the caller's environment dropped, so nothing the user set up
 * for their own repositories (hooks, filters, autocrlf, fsmonitor, an
 * inherited GIT_INDEX_FILE) reaches it; no credential in its environment,
 * and every way git runs a program turned off as for all of Crow's git
 * (repository-git.ts), since the work tree it reads is the workspace.
 */
import { devNull, getPriority, setPriority } from 'node:os';
import { withoutSecrets } from '../config/secret-variables';
import { GIT_CODE_OFF } from '../tools/repository-git';
import { childProcess } from '../vocabulary/first-use';
import { objectsWritten } from './loose-objects';

export interface GitRunnerOptions {
  gitDir: string;
  workTree: string;
  /** Environment git starts from (credentials and GIT_* variables are dropped); its PATH locates git. */
  env: NodeJS.ProcessEnv;
  /** Longest one command may run before it is stopped. */
  timeoutMs: number;
}

export interface GitCall {
  /** Written to git's stdin, which is then closed. */
  input?: string | Buffer;
  signal?: AbortSignal;
  /** Exit codes that count as success (default: 0 only). */
  okExitCodes?: readonly number[];
  /** An index file other than the shadow repository's own (GIT_INDEX_FILE), for trees built on the side. */
  indexFile?: string;
}

/** A git command that failed, timed out or could not start; the message says which and why. */
export class GitError extends Error {
  override name = 'GitError';

  constructor(
    message: string,
    /** Stopped for running past the time limit, rather than failing. */
    readonly timedOut = false,
  ) {
    super(message);
  }
}

/** Settings every command runs with, whatever the shadow repository's config holds. */
const SETTINGS = [
  ...GIT_CODE_OFF,
  'core.autocrlf=false',
  'core.safecrlf=false',
  'core.longpaths=true',
  // The index of a big workspace is megabytes: each track rewrites only its split part (measured: a command's wait on
  // 100k files 289–317 ms against 359–375, the cold background snapshot ~0.4 s against ~0.5 s).
  'core.splitIndex=true',
  // Files git writes (objects, index, refs) readable by their owner only, as the rest of crow's data.
  'core.sharedRepository=0600',
  'core.quotePath=false',
  'gc.auto=0',
  'maintenance.auto=false',
  'safe.directory=*',
  'init.defaultBranch=snapshots',
  'advice.addEmbeddedRepo=false',
];

/**
 * The niceness undo's git runs at. It records beside the agent's work on
 * purpose (a scan beside the model's answer, objects written after a
 * file tool), so on a busy machine it yields to what the person waits for
 * (a search, a build); with nothing to yield to, it loses nothing.
 */
export const GIT_NICENESS = 10;

/** Time between SIGTERM (which lets git remove its lock files) and SIGKILL. */
const KILL_GRACE_MS = 1_000;
const STDERR_CHARS = 2_000;

export class GitRunner {
  private readonly env: NodeJS.ProcessEnv;

  constructor(private readonly options: GitRunnerOptions) {
    this.env = shadowEnvironment(options);
  }

  /** Runs `git <args>` in the work tree and resolves with its stdout, once the objects this process is writing into the repository are there. */
  async run(args: readonly string[], call: GitCall = {}): Promise<Buffer> {
    await objectsWritten(this.options.gitDir);
    return this.spawn(args, call);
  }

  private spawn(args: readonly string[], call: GitCall): Promise<Buffer> {
    const command = `git ${args[0] ?? ''}`.trim();
    if (call.signal?.aborted) return Promise.reject(cancelled(command));
    return new Promise((resolve, reject) => {
      const child = childProcess().spawn('git', ['--no-pager', ...SETTINGS.flatMap((setting) => ['-c', setting]), ...args], {
        cwd: this.options.workTree,
        env: call.indexFile ? { ...this.env, GIT_INDEX_FILE: call.indexFile } : this.env,
        stdio: ['pipe', 'pipe', 'pipe'],
        windowsHide: true,
      });
      yieldCpu(child.pid);
      const stdout: Buffer[] = [];
      let stderr = '';
      let stopReason: 'timeout' | 'abort' | undefined;
      let killTimer: NodeJS.Timeout | undefined;
      const stop = (reason: 'timeout' | 'abort'): void => {
        if (stopReason) return;
        stopReason = reason;
        child.kill('SIGTERM');
        killTimer = setTimeout(() => child.kill('SIGKILL'), KILL_GRACE_MS);
      };
      const timer = setTimeout(() => stop('timeout'), this.options.timeoutMs);
      const onAbort = (): void => stop('abort');
      call.signal?.addEventListener('abort', onAbort, { once: true });
      const cleanup = (): void => {
        clearTimeout(timer);
        clearTimeout(killTimer);
        call.signal?.removeEventListener('abort', onAbort);
      };

      child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk));
      child.stderr.on('data', (chunk: Buffer) => {
        if (stderr.length < STDERR_CHARS) stderr += chunk.toString('utf8');
      });
      // git may exit before reading all of its input; that is its answer, not ours to report.
      child.stdin.on('error', () => undefined);
      child.stdin.end(call.input ?? '');

      child.on('error', (err: NodeJS.ErrnoException) => {
        cleanup();
        reject(err.code === 'ENOENT' ? gitMissing() : new GitError(`${command} could not start: ${err.message}`));
      });
      child.on('close', (code, signal) => {
        cleanup();
        const limit = this.options.timeoutMs;
        const succeeded = code !== null && (call.okExitCodes ?? [0]).includes(code);
        if (stopReason === 'abort') reject(cancelled(command));
        else if (stopReason === 'timeout') reject(new GitError(`${command} took longer than ${limit} ms and was stopped`, true));
        else if (succeeded) resolve(Buffer.concat(stdout));
        else reject(new GitError(`${command} failed (${code === null ? signal : `exit ${code}`}): ${stderr.trim()}`));
      });
    });
  }

  /** Like run(), decoded as UTF-8. */
  async text(args: readonly string[], call: GitCall = {}): Promise<string> {
    return (await this.run(args, call)).toString('utf8');
  }
}

function shadowEnvironment({ env, gitDir, workTree }: GitRunnerOptions): NodeJS.ProcessEnv {
  const kept = Object.entries(withoutSecrets(env)).filter(([name]) => !name.toUpperCase().startsWith('GIT_'));
  return {
    ...Object.fromEntries(kept),
    GIT_DIR: gitDir,
    GIT_WORK_TREE: workTree,
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: devNull,
    // Older gits ignore GIT_CONFIG_GLOBAL; with these they find no user config or global excludes either.
    HOME: gitDir,
    XDG_CONFIG_HOME: gitDir,
    GIT_TERMINAL_PROMPT: '0',
  };
}

/** Lowers the process's priority to GIT_NICENESS (never above Crow's own: a Crow started with `nice` stays below); a process already gone, or a system that refuses, leaves it as it is. */
function yieldCpu(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    setPriority(pid, Math.max(getPriority(), GIT_NICENESS));
  } catch {
    // Gone already, or not allowed here: it runs at the normal priority.
  }
}

function gitMissing(): GitError {
  return new GitError('git was not found on PATH; snapshots and undo need git installed (https://git-scm.com)');
}

function cancelled(command: string): Error {
  const err = new Error(`${command} was cancelled`);
  err.name = 'AbortError';
  return err;
}
