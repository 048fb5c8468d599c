/**
 * Polls `find` (every 25 ms) until it gives a value other than undefined
 * or false; fails naming `what` after `timeoutMs`. For what the workbench
 * does in its own time: a tab opening, a message reaching the view.
 */
export async function waitFor<T>(what: string, find: () => T | undefined | false | Promise<T | undefined | false>, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = await find();
    if (found !== undefined && found !== false) return found;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
