import { UNDER_REPORT_SHARE } from './token-estimate';
import type { ContextOverflow } from './types';

/** Before anything is known of the server's tokens: reading less than half the estimate means part was dropped (or, of what it keeps, misreported). */
const FIRST_CALL_SHARE = UNDER_REPORT_SHARE;
/** Once the server's tokens per estimated token are known: reading 15% less than that means part was dropped. */
const CALIBRATED_SHARE = 0.85;

/**
 * Notices a server that fits an over-long prompt by silently dropping its
 * oldest messages (Ollama), which leaves the model without the start of the
 * conversation, the task itself. Such a server still reports the prompt
 * tokens it read. Each prompt read whole tells how many of the server's
 * tokens one token of Crow's estimate makes; a prompt read at noticeably
 * fewer than that was cut. Such a server keeps the system prompt, the
 * tools and the latest message (Ollama's server/prompt.go keeps the system
 * messages and the latest one): a count under what they come to is a
 * server that under-reports (one counting only what it had not cached),
 * not a cut, and its counts are not taken for cuts from then on.
 */
export class DroppedPromptWatch {
  /** The server's prompt tokens per estimated token, from the last prompt it read whole. */
  private density: number | undefined;
  /** The server once counted fewer tokens than it never drops: its counts tell nothing of drops. */
  private misreports = false;

  /**
   * The overflow, when the server read `read` tokens of a prompt estimated
   * at `sent` and dropped part of it; `kept` estimates what it never drops
   * (the system prompt, the tools and the latest message; 0 when not known).
   */
  check(read: number, sent: number, kept = 0): ContextOverflow | undefined {
    if (read <= 0 || sent <= 0) return undefined;
    const expected = this.density ?? 1;
    const share = this.density === undefined ? FIRST_CALL_SHARE : CALIBRATED_SHARE;
    if (read < kept * expected * share) this.misreports = true;
    if (this.misreports) return undefined;
    const density = read / sent;
    if (density >= expected * share) {
      this.density = density;
      return undefined;
    }
    // What it read is as much as its window holds; the whole prompt in its tokens, by the density seen so far.
    return { windowTokens: read, promptTokens: Math.round(sent * expected) };
  }
}
