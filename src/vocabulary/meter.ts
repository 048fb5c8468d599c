/** Tokens and cost, as the meter of a prompt or a session shows them (the chat view reads the same shape). */
export interface Meter {
  /** Input tokens, cached ones included. */
  inputTokens: number;
  outputTokens: number;
  cachedTokens: number;
  /** US dollars; absent while some call had no configured prices. */
  costUsd?: number;
}

export function emptyMeter(): Meter {
  return { inputTokens: 0, outputTokens: 0, cachedTokens: 0 };
}

/** Two meters added; the cost is the sum of the sides that have one. */
export function sumMeters(a: Meter, b: Meter): Meter {
  const costUsd = a.costUsd !== undefined && b.costUsd !== undefined ? a.costUsd + b.costUsd : (a.costUsd ?? b.costUsd);
  return {
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
    cachedTokens: a.cachedTokens + b.cachedTokens,
    ...(costUsd !== undefined ? { costUsd } : {}),
  };
}
