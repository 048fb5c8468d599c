/**
 * Messages a person sends while the agents work. They wait here and are
 * given to the working agent at its next step boundary (before its next
 * model call, so after the tool calls it is running return); whatever no
 * boundary took before the prompt ended is handed back to be sent as the
 * next prompt.
 */
import type { UserBlock } from '../llm/types';

/** One message waiting: what the person sent, and what the model reads (the same, introduced by a note). */
export interface SteeringMessage {
  content: UserBlock[];
  forModel: UserBlock[];
}

/** What happened to a queued message: given to the running prompt, or left for the next prompt because the run ended first. */
export type SteerOutcome = { delivered: true } | { delivered: false; content: UserBlock[] };

/** What the engine takes from: the messages waiting now, in the order sent. */
export interface Steering {
  take(): SteeringMessage[];
}

export class SteeringQueue implements Steering {
  private readonly waiting: { message: SteeringMessage; settle: (outcome: SteerOutcome) => void }[] = [];

  get size(): number {
    return this.waiting.length;
  }

  /** Queues a message; resolves once it is given to an agent, or handed back when the prompt ended first. */
  push(message: SteeringMessage): Promise<SteerOutcome> {
    return new Promise((settle) => this.waiting.push({ message, settle }));
  }

  take(): SteeringMessage[] {
    const taken = this.waiting.splice(0);
    for (const item of taken) item.settle({ delivered: true });
    return taken.map((item) => item.message);
  }

  /** The prompt ended: every message still waiting goes back to whoever sent it, to send as the next prompt. */
  handBack(): void {
    for (const item of this.waiting.splice(0)) item.settle({ delivered: false, content: item.message.content });
  }
}
