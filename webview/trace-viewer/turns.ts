/**
 * Pacing for a long load in the page: pieces of a stored trace are handed
 * on one after another, and every SLICE_MS of that work the page gets its
 * turn, so the rows loaded so far are drawn and the person's clicks and
 * keys are answered while the rest arrives. A browser keeps running tasks
 * that are ready without drawing in between, so the turn is the next frame
 * drawn while the page is visible; while it is hidden nothing is drawn, and
 * the turn is the next task (a frame would wait until the page shows again).
 */

/** How long pieces are handed on before the page gets its turn. */
const SLICE_MS = 12;
/** The first slice is longer: its frame is the first screen, better full than early. */
const FIRST_SLICE_MS = 50;

export class Pacer {
  private since: number | undefined;
  private slice = FIRST_SLICE_MS;

  /** Resolves at once within a slice (the first starts with the first piece); at its end, once the page has had its turn. */
  async pace(): Promise<void> {
    this.since ??= performance.now();
    if (performance.now() - this.since < this.slice) return;
    await nextTurn();
    this.since = performance.now();
    this.slice = SLICE_MS;
  }
}

function nextTurn(): Promise<void> {
  return new Promise((resolve) => {
    const go = (): void => {
      document.removeEventListener('visibilitychange', go);
      nextTask(resolve);
    };
    if (document.visibilityState !== 'visible') return go();
    requestAnimationFrame(go);
    document.addEventListener('visibilitychange', go);
  });
}

/** A task after this one (a timer could wait a second in a hidden page). */
function nextTask(run: () => void): void {
  const channel = new MessageChannel();
  channel.port1.onmessage = () => run();
  channel.port2.postMessage(undefined);
}
