/**
 * A prompt that stopped because Crow itself went away (a window reload, the
 * editor closing), not because the person cancelled it: its session says
 * so when it is shown again, and a front door offers to resume it.
 */

/** What a prompt interrupted that way, or left unfinished in its record, says when the session is shown again. */
export const INTERRUPTED = 'Interrupted: Crow stopped (or the window was reloaded) while this ran. Send a prompt to go on.';

/** The abort reason of a prompt stopped because Crow is going away. */
export class Interruption extends Error {
  override name = 'Interruption';
  constructor() {
    super(INTERRUPTED);
  }
}

/** How a cancelled run ends in words: the interruption's, or the person's cancel (`cancelled`). */
export function cancelMessage(signal: AbortSignal, cancelled: string): string {
  return signal.reason instanceof Interruption ? INTERRUPTED : cancelled;
}
