/**
 * A push-based async iterable with a final result: the producer pushes
 * events and ends with a result. One consumer iterates it, or takes each
 * event synchronously as it is pushed (`forEach`, for a stage that only
 * passes events on: no async hop per event); anyone may await `result`.
 * Events pushed before the consumer starts are buffered, never lost.
 */
export class EventStream<E, R> implements AsyncIterable<E> {
  private readonly buffer: E[] = [];
  private waiting: ((next: IteratorResult<E>) => void) | undefined;
  private listener: ((event: E) => void) | undefined;
  private done = false;
  private resolveResult!: (result: R) => void;
  private rejectResult!: (err: unknown) => void;
  /** Settles when the producer ends the stream. */
  readonly result: Promise<R>;

  constructor() {
    this.result = new Promise<R>((resolve, reject) => {
      this.resolveResult = resolve;
      this.rejectResult = reject;
    });
    // A producer failure is reported through `result`; an unobserved one must not crash the process.
    this.result.catch(() => undefined);
  }

  push(event: E): void {
    if (this.done) return;
    if (this.listener) return this.listener(event);
    const waiting = this.waiting;
    if (waiting) {
      this.waiting = undefined;
      waiting({ value: event, done: false });
    } else {
      this.buffer.push(event);
    }
  }

  /**
   * Hands every event to `listener` synchronously as it is pushed (those
   * buffered so far first) and resolves with the result. Instead of
   * iterating, never both. `listener` must not throw: it runs inside push().
   */
  forEach(listener: (event: E) => void): Promise<R> {
    for (const event of this.buffer.splice(0, this.buffer.length)) listener(event);
    this.listener = listener;
    return this.result;
  }

  end(result: R): void {
    if (this.done) return;
    this.done = true;
    this.resolveResult(result);
    this.wakeConsumer();
  }

  fail(err: unknown): void {
    if (this.done) return;
    this.done = true;
    this.rejectResult(err);
    this.wakeConsumer();
  }

  private wakeConsumer(): void {
    const waiting = this.waiting;
    this.waiting = undefined;
    waiting?.({ value: undefined, done: true });
  }

  async *[Symbol.asyncIterator](): AsyncIterator<E> {
    for (;;) {
      if (this.buffer.length > 0) {
        // Drain in batches: cheaper than shift() per event on long streams.
        const batch = this.buffer.splice(0, this.buffer.length);
        for (const event of batch) yield event;
        continue;
      }
      if (this.done) return;
      const next = await new Promise<IteratorResult<E>>((resolve) => (this.waiting = resolve));
      if (next.done) continue;
      yield next.value;
    }
  }
}
