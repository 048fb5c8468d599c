/**
 * Typing while `crow run` works (on a terminal): each line is queued for
 * the agents' next step (after the tool calls running now return), said on
 * screen as queued; a line no step took before the run ended is sent as the
 * next prompt in the same session once the run is done. While an approval
 * question waits, the line typed is its answer, not a message.
 */
import type { HostSession } from '../../host/host-session';
import type { ApprovalScreen } from './cli-approval';
import type { CliIO } from './cli-io';
import type { Style } from './terminal-style';

export class SteerInput {
  private host: HostSession | undefined;
  private reading: AbortController | undefined;
  private stopped = false;
  /** Lines handed back because the run ended first: the next prompts, in order. */
  private readonly next: string[] = [];
  /** Steering outcomes still pending, so the run's end can wait for the hand-backs. */
  private readonly pending = new Set<Promise<void>>();
  /** The run's screen, told when a typed line moved the cursor under it. */
  private screen: { typedOver?(): void } | undefined;

  constructor(
    private readonly io: CliIO,
    private readonly style: Style,
  ) {}

  /** Starts reading lines for the session's running prompt. */
  start(host: HostSession): void {
    this.host = host;
    this.stopped = false;
    void this.loop();
  }

  /** Stops reading for good (the run and its follow-ups are over); a line half typed stays in the terminal. */
  stop(): void {
    this.stopped = true;
    this.reading?.abort();
  }

  /** The screen an approval is asked on, with this input out of the way while it waits. */
  around(screen: ApprovalScreen & { typedOver?(): void }): ApprovalScreen {
    this.screen = screen;
    return {
      whenShown: (callId) => screen.whenShown(callId),
      markPreviewed: (callId) => screen.markPreviewed(callId),
      pause: () => {
        this.reading?.abort();
        screen.pause();
      },
      resume: () => {
        screen.resume();
        if (!this.stopped) void this.loop();
      },
    };
  }

  /** The messages to send as prompts now that the run ended (after every queued line has its outcome). */
  async leftOver(): Promise<string[]> {
    await Promise.all(this.pending);
    return this.next.splice(0);
  }

  private async loop(): Promise<void> {
    if (this.reading && !this.reading.signal.aborted) return;
    const reading = new AbortController();
    this.reading = reading;
    while (!reading.signal.aborted) {
      const line = await this.io.readLine(reading.signal);
      if (line === undefined) break;
      if (line.trim() !== '') this.queue(line.trim());
    }
  }

  private queue(text: string): void {
    if (!this.host) return;
    // The terminal echoed the line where the answer was being drawn: what is drawn there stays as it is.
    this.screen?.typedOver?.();
    this.io.stderr.write(`${this.style.dim(`› queued: ${text} (the agents get it after their current step)`)}\n`);
    const outcome = this.host.steer(text).then((steered) => {
      if (!steered.delivered) this.next.push(text);
    });
    this.pending.add(outcome);
    void outcome.finally(() => this.pending.delete(outcome));
  }
}
