/**
 * A failure of the harness itself (a missing package, a server that never
 * came up, a timeout) as opposed to a failing test. Its message already says
 * what to do next, so the runner prints it without a stack trace.
 */
export class HarnessError extends Error {
  override readonly name = 'HarnessError';
}
