import type { StopReason, ToolCallUpdate } from '@agentclientprotocol/sdk';
import type { ACPAgent, RunStream } from '../../agents/acp-agent';
import type { RunResult } from '../../agents/run-result';
import type { TurnStopReason } from '../../engine/events';
import type { UserBlock } from '../../llm/types';
import type { ACPSession } from '../../session/acp-session';
import type { PermissionRequest } from '../../tools/permissions';
import type { UpdateSink } from './update-sink';
import type { UpdateTranslator } from './update-translator';

/** After a cancel, how long the run gets to wind down before the prompt answers `cancelled` anyway. */
const CANCEL_GRACE_MS = 120;

export interface PromptTurnParts {
  session: ACPSession;
  composition: ACPAgent;
  translator: UpdateTranslator;
  sink: UpdateSink;
  /** Reports a run that failed outside the engine's own error handling (a bug). */
  onCrash(err: unknown): void;
}

/**
 * One prompt of a session: runs the composition with its own AbortController,
 * streams the run's events to the client, and answers with the stop reason.
 * Once answered, nothing more of this prompt reaches the client, even if a
 * cancelled run is still winding down (`finished` says when it has).
 */
export class PromptTurn {
  private readonly controller = new AbortController();
  private finishedRun: Promise<RunResult | undefined> | undefined;

  constructor(private readonly parts: PromptTurnParts) {}

  get cancelled(): boolean {
    return this.controller.signal.aborted;
  }

  /** Settles when the run itself has ended, which after a cancel may be after the answer. */
  get finished(): Promise<unknown> {
    return this.finishedRun ?? Promise.resolve();
  }

  cancel(): void {
    this.controller.abort();
  }

  async run(prompt: UserBlock[]): Promise<StopReason> {
    const { session, composition, translator, sink } = this.parts;
    const stopPlan = session.todos.onChange((items) => translator.plan(items));
    const signal = this.controller.signal;
    this.finishedRun = this.consume(composition.run(session, prompt, { signal })).finally(stopPlan);
    const grace = graceAfterAbort(signal);
    try {
      const result = await Promise.race([this.finishedRun, grace]);
      translator.flush();
      await Promise.race([sink.drained(), grace]);
      return this.cancelled ? 'cancelled' : stopReason(result, translator.lastPrimaryStop);
    } finally {
      sink.close();
    }
  }

  /**
   * Resolves once every event emitted before the call has been translated
   * and its updates delivered. Events travel from the engine to the
   * translator through promise continuations only, and the translator
   * handles each synchronously, so all of them have arrived by the next
   * macrotask.
   */
  async settled(): Promise<void> {
    await new Promise((resolve) => setImmediate(resolve));
    this.parts.translator.flush();
    await this.parts.sink.drained();
  }

  /** The client's view of the tool call a permission request comes from. */
  async toolCall(request: PermissionRequest): Promise<ToolCallUpdate> {
    await this.settled();
    return this.parts.translator.toolCall(request.agent, request.callId) ?? { toolCallId: request.callId, title: request.title };
  }

  /** Embeds a client terminal in the tool call now running, and waits until the client has been told. */
  async embedTerminal(terminalId: string): Promise<void> {
    await this.settled();
    if (this.parts.translator.attachTerminal(terminalId)) await this.parts.sink.drained();
  }

  private async consume(stream: RunStream): Promise<RunResult | undefined> {
    try {
      for await (const event of stream) this.parts.translator.handle(event);
      return await stream.result;
    } catch (err) {
      this.parts.onCrash(err);
      return undefined;
    }
  }
}

/** How the client reads a run's end. `undefined`: the run crashed, which `onCrash` has already told. */
function stopReason(result: RunResult | undefined, lastPrimaryStop: TurnStopReason | undefined): StopReason {
  switch (result?.status) {
    case undefined:
    case 'completed':
    case 'error':
      return 'end_turn';
    case 'needs_input':
      return lastPrimaryStop === 'max_tokens' ? 'max_tokens' : 'end_turn';
    case 'limit':
      return 'max_turn_requests';
    case 'cancelled':
      return 'cancelled';
  }
}

/** Resolves CANCEL_GRACE_MS after `signal` aborts; never if it does not. */
function graceAfterAbort(signal: AbortSignal): Promise<undefined> {
  return new Promise((resolve) => {
    const start = (): void => void setTimeout(resolve, CANCEL_GRACE_MS, undefined).unref();
    if (signal.aborted) start();
    else signal.addEventListener('abort', start, { once: true });
  });
}
