import type { ProviderEntry, Settings } from '../config/settings';

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

/** Seed 002's provider limits: one request at a time for a server of your own, 3 for Anthropic's API, 5 for OpenAI's. */
export const DEFAULT_CONCURRENCY = { local: 1, anthropic: 3, openai: 5 } as const;

export type ConcurrencyKind = keyof typeof DEFAULT_CONCURRENCY;

/**
 * What kind of server a provider is, for its concurrency: an OpenAI-type
 * provider on any server but OpenAI's, or an Anthropic-type one on a
 * loopback or private address, is a server of your own.
 */
export function concurrencyKind(entry: Pick<ProviderEntry, 'type' | 'baseUrl'> | undefined): ConcurrencyKind {
  if (!entry) return 'local';
  const host = entry.baseUrl !== undefined ? hostOf(entry.baseUrl) : undefined;
  if (entry.type === 'bedrock' || entry.type === 'vertex') return 'anthropic';
  if (entry.type === 'anthropic') return host !== undefined && isOwnAddress(host) ? 'local' : 'anthropic';
  return host === undefined || host === 'api.openai.com' ? 'openai' : 'local';
}

/**
 * How many subagents of `provider` run at once: `[limits] concurrency` by
 * the provider's name, else by its kind, else `[subagents] concurrency`
 * (the older setting, for every provider), else the kind's default.
 */
export function providerConcurrency(settings: Pick<Settings, 'concurrency' | 'subagents' | 'providers'>, provider: string): number {
  const kind = concurrencyKind(settings.providers[provider]);
  const configured = settings.concurrency;
  return configured?.[provider] ?? configured?.[kind] ?? settings.subagents?.concurrency ?? DEFAULT_CONCURRENCY[kind];
}

function hostOf(url: string): string | undefined {
  try {
    return new URL(url).hostname.replace(/^\[|\]$/g, '');
  } catch {
    return undefined;
  }
}

function isOwnAddress(host: string): boolean {
  return host === 'localhost' || host.endsWith('.local') || host === '::1' || /^(127\.|10\.|192\.168\.|172\.(1[6-9]|2\d|3[01])\.)/.test(host);
}

/**
 * Which setting decides providerConcurrency for `provider`, by its
 * config.toml name (`limits.concurrency.local`, `subagents.concurrency`),
 * and the provider's kind; `setting` is undefined when it is the kind's
 * default. For messages that say why tasks wait for each other.
 */
export function concurrencySource(settings: Pick<Settings, 'concurrency' | 'subagents' | 'providers'>, provider: string): { kind: ConcurrencyKind; setting?: string } {
  const kind = concurrencyKind(settings.providers[provider]);
  const configured = settings.concurrency;
  if (configured?.[provider] !== undefined) return { kind, setting: `limits.concurrency.${provider}` };
  if (configured?.[kind] !== undefined) return { kind, setting: `limits.concurrency.${kind}` };
  if (settings.subagents?.concurrency !== undefined) return { kind, setting: 'subagents.concurrency' };
  return { kind };
}
