/**
 * Parallel attempts as a background run of the chat (Background with the
 * Attempts picker above 1): the attempts run as the chat's own run them
 * (attempt-sessions.ts: writes in their worktree allowed, nobody asked,
 * the check setting), but with no card in the session on screen; once
 * ranked, the result and each attempt's patch are kept beside the run's
 * record (src/attempts/kept-attempts.ts), the worktrees removed, and the
 * Background runs list opens the comparison card to pick one later
 * (chat-kept-attempts.ts), as `crow sessions apply` does in the CLI.
 * Plain Node, like the rest of the controller.
 */
import { AttemptsError, checkAttemptsRoot } from '../../../attempts/attempt-trees';
import { runAttempts } from '../../../attempts/best-of';
import { keepAttempts } from '../../../attempts/kept-attempts';
import { t } from '../l10n';
import { attemptSessions } from './attempt-sessions';
import { attemptsCheck } from './attempts-check';
import type { ChatHost, ChatSession } from './chat-session';

/** Whether attempts can run from the chat's folder; an Error in the chat's words when not, before anything starts. */
export async function checkBackgroundAttempts(host: ChatHost): Promise<void> {
  await checkAttemptsRoot(host.root, await host.env()).catch((err: unknown) => {
    if (!(err instanceof AttemptsError)) throw err;
    const top = /^Attempts run from the top folder of the repository: run crow there \((.*)\), or pass --cwd /.exec(err.message)?.[1];
    throw new Error(top === undefined ? err.message : t`Attempts run from the top folder of the repository: open ${top} in VS Code (File > Open Folder), then try again.`);
  });
}

/**
 * Runs `prompt` as `count` attempts of `chat`'s agent (the run's own
 * session, `chat.id` its id), keeps what they came to under that id, and
 * removes their worktrees; the exit code its end records (as the CLI's:
 * 0 ranked, 1 every attempt failed or they could not run, 143 stopped).
 */
export async function runBackgroundAttempts(host: ChatHost, chat: ChatSession, prompt: string, count: number, signal: AbortSignal): Promise<number> {
  const sessions = await attemptSessions({ host, chat, count });
  const check = attemptsCheck(host.attemptsCheck?.() ?? {}, host.trusted?.() ?? false);
  if (check.withheld !== undefined) host.log?.(`The workspace's crow.attempts.check (${check.withheld}) was not run: the workspace is not trusted.`);
  const result = await runAttempts({
    root: host.root,
    env: await host.env(),
    prompt,
    count,
    concurrency: sessions.concurrency,
    ...(check.command !== undefined ? { check: check.command } : {}),
    signal,
    openAttempt: (root, n) => sessions.openAttempt(root, n),
    openJudge: (judge) => sessions.openJudge(judge),
  });
  try {
    if (signal.aborted) return 143;
    keepAttempts(host.dataHome, chat.id, result);
    return result.attempts.every((attempt) => attempt.status === 'error') ? 1 : 0;
  } finally {
    const left = await result.trees.removeAll().catch(() => [result.trees.folder]);
    if (left.length > 0) host.log?.(`Could not remove the attempts' worktrees ${left.join(', ')}: remove them with git worktree remove --force PATH.`);
  }
}
