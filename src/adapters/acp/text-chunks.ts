import { randomUUID } from 'node:crypto';
import { agentLabel } from './client-text';
import type { UpdateSink } from './update-sink';

/** A pending chunk is sent once it holds this many characters (a fast stream: fewer, larger writes)… */
const FLUSH_CHARS = 4096;
/** …or once its first delta is this old. */
const FLUSH_MS = 20;

/** Where agent text goes: the answer (agent_message_chunk) or the thoughts around it (agent_thought_chunk). */
export type Channel = 'message' | 'thought';

/**
 * Agent text on its way to the client. The first delta of a message goes
 * out at once; later tiny deltas are coalesced: a chunk goes out once it is
 * FLUSH_CHARS long or FLUSH_MS old, when text for another channel or agent
 * arrives, or on `flush`. A run of chunks of one
 * channel and agent is one client message (one messageId), opened with the
 * agent's label unless the agent is the primary.
 */
export class TextChunks {
  private pending: { channel: Channel; agent: string; text: string } | undefined;
  private timer: NodeJS.Timeout | undefined;
  private message: { channel: Channel; agent: string; messageId: string } | undefined;

  /** `primary`: who speaks the answer now (known once the prompt has started). */
  constructor(
    private readonly primary: () => string,
    private readonly sink: UpdateSink,
  ) {}

  append(channel: Channel, agent: string, text: string): void {
    if (this.pending && (this.pending.channel !== channel || this.pending.agent !== agent)) this.flush();
    if (!this.pending) {
      const opens = this.message?.channel !== channel || this.message.agent !== agent;
      this.pending = { channel, agent, text: opens ? agentLabel(agent, this.primary()) : '' };
      // The first words of a message go out at once: the person sees the answer start without waiting for a batch.
      if (opens) {
        this.pending.text += text;
        return this.flush();
      }
      this.timer = setTimeout(() => this.flush(), FLUSH_MS);
    }
    this.pending.text += text;
    if (this.pending.text.length >= FLUSH_CHARS) this.flush();
  }

  /** Sends the pending chunk, if any. */
  flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    const pending = this.pending;
    if (!pending) return;
    this.pending = undefined;
    if (this.message?.channel !== pending.channel || this.message.agent !== pending.agent) {
      this.message = { channel: pending.channel, agent: pending.agent, messageId: randomUUID() };
    }
    const sessionUpdate = pending.channel === 'message' ? 'agent_message_chunk' : 'agent_thought_chunk';
    this.sink.send({ sessionUpdate, content: { type: 'text', text: pending.text }, messageId: this.message.messageId });
  }

  /** Sends the pending chunk and ends the message: the next text starts a new one. */
  endMessage(): void {
    this.flush();
    this.message = undefined;
  }
}
