/**
 * A limit on what a prompt may spend, checked before each model call (its
 * subagents' calls included): at the limit the run stops cleanly between
 * steps, never in the middle of one. The engine charges every model call
 * to it as the call ends, so the check never waits on anyone's event loop.
 */
export interface Budget {
  /** One model call's tokens (input, cached input and output) and cost (undefined: its model has no prices). */
  charge(call: { model: string; tokens: number; costUsd: number | undefined }): void;
  /**
   * Why no further model call may be made, in words that say how to raise
   * the limit; undefined while within it. Given the next call, also when
   * that call would certainly pass a limit: what it reads alone.
   */
  exceeded(next?: NextCall): string | undefined;
}

/** The least the next model call will spend: the prompt it reads, before any answer. */
export interface NextCall {
  /** Its prompt's tokens, estimated. */
  tokens: number;
  /** Those tokens at the cheapest rate its model may bill them (a cache read); undefined when the model has no prices. */
  minCostUsd: number | undefined;
}
