/**
 * The run of a built-in command that answers in words (/undo, /rewind,
 * /compact): its outcome is said as the answer, so every front door shows
 * it where an answer goes, and the run completes with that status.
 */
import type { RunResult } from '../agents/run-result';
import { EventStream } from '../engine/event-stream';
import type { AgentEvent, RunStatus } from '../engine/events';
import type { CommandInput } from '../agents/programmatic-command';
import { emptyUsage } from '../llm/types';

export interface CommandOutcome {
  status: RunStatus;
  message: string;
}

/**
 * Runs `work` (which may emit events of its own on the way) and answers
 * with how it ended; a failure is answered by `failed`.
 */
export function answeringRun(
  input: CommandInput,
  work: (emit: (event: AgentEvent) => void) => Promise<CommandOutcome>,
  failed: (err: unknown) => CommandOutcome,
): EventStream<AgentEvent, RunResult> {
  const stream = new EventStream<AgentEvent, RunResult>();
  const speaker = input.agent.primary.name;
  const finish = ({ status, message }: CommandOutcome): void => {
    stream.push({ type: 'text_delta', agent: speaker, delta: `${message}\n` });
    stream.push({ type: 'text_complete', agent: speaker, text: `${message}\n` });
    stream.push({ type: 'run_complete', agent: input.agent.name, status, message });
    stream.end({ status, message, turns: 0, usage: emptyUsage(), filesChanged: [] });
  };
  work((event) => stream.push(event)).then(finish, (err: unknown) => finish(failed(err)));
  return stream;
}
