/**
 * Messages the person sends while the agents work: shown as queued until
 * an agent takes one at its next step (the transcript then shows it
 * there), or sent as the next prompt when the run ends first.
 */
import type { HostMessage } from '../../../../webview/chat/protocol';
import type { ChatSession } from './chat-session';

interface Queued {
  id: string;
  text: string;
}

export class ChatQueue {
  private items: Queued[] = [];

  constructor(
    private readonly post: (message: HostMessage) => void,
    private readonly newId: () => string,
  ) {}

  /**
   * Queues `text` for the running prompt of `chat`; once the run has ended
   * without an agent taking it, `sendNext` sends it as the next prompt (only
   * while `chat` is still the session on screen: `isOpen`).
   */
  async steer(chat: ChatSession, text: string, isOpen: () => boolean, sendNext: (text: string) => Promise<void>): Promise<void> {
    const item = { id: this.newId(), text };
    this.items.push(item);
    this.announce();
    const outcome = await chat.steer(text);
    this.items = this.items.filter((queued) => queued !== item);
    this.announce();
    if (!outcome.delivered && isOpen()) await sendNext(text);
  }

  /** Forgets what was queued: another session opens. */
  clear(): void {
    this.items = [];
    this.announce();
  }

  /** What a reloaded view shows as queued; undefined when nothing is. */
  replay(): HostMessage | undefined {
    return this.items.length > 0 ? { type: 'queue', items: [...this.items] } : undefined;
  }

  private announce(): void {
    this.post({ type: 'queue', items: [...this.items] });
  }
}
