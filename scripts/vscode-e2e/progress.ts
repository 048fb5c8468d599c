/**
 * Progress lines for a harness that mostly waits: each step says what it is
 * doing when it starts and how long it took when it ends, and long steps
 * print a heartbeat so a CI log never goes quiet for minutes.
 */
const HEARTBEAT_MS = 30_000;

export function log(message: string): void {
  process.stdout.write(`[vscode-e2e] ${message}\n`);
}

export function seconds(since: number): string {
  return `${((Date.now() - since) / 1000).toFixed(1)} s`;
}

/** Runs `work`, printing `label…` before and `label: done in N s` (or failed) after. */
export async function step<T>(label: string, work: () => Promise<T>, options: { heartbeat?: boolean } = {}): Promise<T> {
  const started = Date.now();
  log(`${label}…`);
  const beat = options.heartbeat ? setInterval(() => log(`${label}: still working (${seconds(started)})`), HEARTBEAT_MS) : undefined;
  try {
    const result = await work();
    log(`${label}: done in ${seconds(started)}`);
    return result;
  } catch (error) {
    log(`${label}: failed after ${seconds(started)}`);
    throw error;
  } finally {
    if (beat) clearInterval(beat);
  }
}
