import type { SessionUpdate } from '@agentclientprotocol/sdk';

/** Delivers one session/update notification to the client. */
export type DeliverUpdate = (update: SessionUpdate) => Promise<void>;

/**
 * A session's outgoing updates, delivered strictly in the order they were
 * queued. An update may be queued while it is still being computed (a diff
 * whose file is being read); later updates wait for it. Delivery failures
 * (a closed connection) go to `onError` and do not stop the queue.
 */
export class UpdateSink {
  private tail: Promise<void> = Promise.resolve();
  private closed = false;

  constructor(
    private readonly deliver: DeliverUpdate,
    private readonly onError: (err: unknown) => void,
  ) {}

  send(update: SessionUpdate | Promise<SessionUpdate>): void {
    this.tail = this.tail
      .then(async () => {
        const ready = await update;
        if (!this.closed) await this.deliver(ready);
      })
      .catch(this.onError);
  }

  /** Settles when everything queued so far has been delivered (or failed). */
  drained(): Promise<void> {
    return this.tail;
  }

  /** Drops everything queued from now on, and whatever is still waiting to go. */
  close(): void {
    this.closed = true;
  }
}
