/**
 * Bounds how many subagents run at once per provider (a local server can
 * take one request at a time; a cloud API several). Waiters are served in
 * order; a cancelled waiter leaves the queue.
 */
export class ProviderQueue {
  private readonly running = new Map<string, number>();
  private readonly waiting = new Map<string, (() => void)[]>();

  constructor(private readonly limitOf: (provider: string) => number) {}

  /** Waits for a slot of `provider`; resolves to the function that frees it. */
  async acquire(provider: string, signal: AbortSignal): Promise<() => void> {
    const limit = Math.max(1, this.limitOf(provider));
    if ((this.running.get(provider) ?? 0) >= limit) await this.wait(provider, signal);
    this.running.set(provider, (this.running.get(provider) ?? 0) + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.running.set(provider, (this.running.get(provider) ?? 1) - 1);
      this.waiting.get(provider)?.shift()?.();
    };
  }

  private wait(provider: string, signal: AbortSignal): Promise<void> {
    return new Promise((resolve, reject) => {
      const queue = this.waiting.get(provider) ?? [];
      this.waiting.set(provider, queue);
      const wake = (): void => {
        signal.removeEventListener('abort', onAbort);
        resolve();
      };
      const onAbort = (): void => {
        const index = queue.indexOf(wake);
        if (index >= 0) queue.splice(index, 1);
        reject(new Error('cancelled while waiting for a free slot'));
      };
      queue.push(wake);
      signal.addEventListener('abort', onAbort, { once: true });
    });
  }
}
