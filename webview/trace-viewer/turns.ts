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

export class Pacer {
  private since = performance.now();

  /** Resolves at once within a slice; at its end, once the page has had its turn. */
  async pace(): Promise<void> {
    if (performance.now() - this.since < SLICE_MS) return;
    await nextTurn();
    this.since = performance.now();
  }
}

/** Turns waited for by frame, given at once when the page is hidden (no frame would come until it shows again). */
const byFrame = new Set<() => void>();
let watchingVisibility = false;

function nextTurn(): Promise<void> {
  return new Promise((resolve) => {
    if (document.visibilityState !== 'visible') return nextTask(resolve);
    const turn = (): void => {
      if (byFrame.delete(turn)) nextTask(resolve);
    };
    byFrame.add(turn);
    requestAnimationFrame(turn);
    if (watchingVisibility) return;
    watchingVisibility = true;
    document.addEventListener('visibilitychange', () => [...byFrame].forEach((waiting) => waiting()));
  });
}

/** Runs `run` in a task after this one (a timer could wait a second in a hidden page). */
const tasks: (() => void)[] = [];
let channel: MessageChannel | undefined;

function nextTask(run: () => void): void {
  if (!channel) {
    channel = new MessageChannel();
    channel.port1.onmessage = () => tasks.shift()?.();
  }
  tasks.push(run);
  channel.port2.postMessage(undefined);
}
