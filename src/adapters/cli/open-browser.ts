import { withoutSecrets } from '../../config/secret-variables';
import { childProcess } from '../../vocabulary/first-use';

/** How each platform opens a URL in the default browser. */
const OPENERS: Partial<Record<NodeJS.Platform, [string, ...string[]]>> = {
  linux: ['xdg-open'],
  freebsd: ['xdg-open'],
  darwin: ['open'],
  win32: ['cmd', '/c', 'start', '""'],
};

/** How long the opener may take to tell whether it found a browser; one still running then is taken to have. */
const OPENER_WAIT_MS = 5_000;

export type Opened = { ok: true; opener: string } | { ok: false; why: string };

/**
 * Starts the platform's opener on `url` (never a secret: the opener's
 * arguments are readable by every local user; the trace viewer's is a
 * one-time URL only a process of this user can redeem), detached, without
 * our credentials in its environment, and waits for its verdict: its exit
 * status (xdg-open exits 3 when no browser is found), or, when it keeps
 * running (an opener that waits for the browser it started), success.
 */
export function openInBrowser(url: string, env: NodeJS.ProcessEnv): Promise<Opened> {
  const opener = chosenOpener(env) ?? OPENERS[process.platform];
  if (!opener) return Promise.resolve({ ok: false, why: `no browser opener is known for ${process.platform} (set CROW_BROWSER to a command that opens a URL)` });
  const [command, ...args] = opener;
  return new Promise((resolve) => {
    const child = childProcess().spawn(command, [...args, url], { detached: true, stdio: 'ignore', env: withoutSecrets(env) });
    const timer = setTimeout(() => {
      child.unref();
      resolve({ ok: true, opener: command });
    }, OPENER_WAIT_MS);
    const settle = (opened: Opened): void => {
      clearTimeout(timer);
      resolve(opened);
    };
    child.once('error', (err: NodeJS.ErrnoException) =>
      settle({ ok: false, why: err.code === 'ENOENT' ? `${command} is not installed` : `${command} could not be started: ${err.message}` }),
    );
    child.once('exit', (code, signal) => {
      if (code === 0) settle({ ok: true, opener: command });
      else settle({ ok: false, why: signal ? `${command} was stopped by ${signal}` : `${command} exited with code ${code}` });
    });
  });
}

/**
 * CROW_BROWSER: a command that opens a URL in place of the platform's
 * opener (its words split on spaces, the URL added last), e.g.
 * `CROW_BROWSER="firefox --new-tab"`. The person's own environment, like
 * any command they run; unset or blank: the platform's opener.
 */
function chosenOpener(env: NodeJS.ProcessEnv): [string, ...string[]] | undefined {
  const words = (env.CROW_BROWSER ?? '').trim().split(/\s+/).filter(Boolean);
  return words.length > 0 ? (words as [string, ...string[]]) : undefined;
}
