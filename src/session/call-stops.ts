/**
 * The tool calls of a session that are running now, each stoppable on its
 * own: a person stops one long command without cancelling the prompt, and
 * the agent is told and goes on. A call's signal aborts with its turn or
 * with its own stop, whichever comes first.
 */
export interface RunningCall {
  /** Aborted when the turn is, or when the person stops this call. */
  signal: AbortSignal;
  /** Whether the person stopped this call (not the whole prompt). */
  stopped(): boolean;
  /** The call ended: it can no longer be stopped. */
  release(): void;
}

export class CallStops {
  private readonly running = new Map<string, AbortController>();

  start(callId: string, turn: AbortSignal): RunningCall {
    const own = new AbortController();
    this.running.set(callId, own);
    return {
      signal: AbortSignal.any([turn, own.signal]),
      stopped: () => own.signal.aborted && !turn.aborted,
      release: () => {
        if (this.running.get(callId) === own) this.running.delete(callId);
      },
    };
  }

  /** Stops call `callId`; false when no such call runs (it ended, or never ran here). */
  stop(callId: string): boolean {
    const own = this.running.get(callId);
    if (!own) return false;
    own.abort();
    this.running.delete(callId);
    return true;
  }

  has(callId: string): boolean {
    return this.running.has(callId);
  }
}
