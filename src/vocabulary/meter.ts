/** Tokens and cost, as the meter of a prompt or a session shows them (the chat view reads the same shape). */
export interface Meter {
  /** Input tokens, cached ones included. */
  inputTokens: number;
  outputTokens: number;
  cachedTokens: number;
  /** US dollars; absent while some call had no configured prices. */
  costUsd?: number;
}
