import type { StopReason, ToolCallUpdate } from '@agentclientprotocol/sdk';
import type { ACPAgent } from '../../agents/acp-agent';
import type { AgentEvent, TurnStopReason } from '../../engine/events';
import { HostError } from '../../host/host-error';
import { CANCEL_GRACE_MS, type HostSession, type PromptOutcome } from '../../host/host-session';
import type { UserBlock } from '../../llm/types';
import type { PermissionRequest } from '../../tools/permissions';
import { requestErrors } from './request-errors';
import type { UpdateSink } from './update-sink';
import type { UpdateTranslator } from './update-translator';

export interface PromptTurnParts {
  host: HostSession;
  sink: UpdateSink;
  /** The translator for the composition the host built for this prompt. */
  translatorFor(composition: ACPAgent): UpdateTranslator;
  /** Says a host notice that came before the composition was built (there is no translator yet). */
  earlyNotice(event: Extract<AgentEvent, { type: 'notice' }>): void;
  /** Reports a run that failed outside the engine's own error handling (a bug). */
  onCrash(err: unknown): void;
}

/**
 * One prompt of a session as the client sees it: the host's event stream
 * turned into session updates, answered with a stop reason. After a cancel
 * the answer waits at most the host's grace period for the run to wind
 * down; once answered, nothing more of this prompt reaches the client.
 */
export class PromptTurn {
  private translator: UpdateTranslator | undefined;
  private readonly controller = new AbortController();
  private finishedRun: Promise<PromptOutcome | undefined> | undefined;

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

  /** Runs the prompt; a prompt the host refuses to start becomes the JSON-RPC error it deserves. */
  async run(prompt: UserBlock[]): Promise<StopReason> {
    const { host, sink } = this.parts;
    const stopPlan = host.session.todos.onChange((items) => this.translator?.plan(items));
    const signal = this.controller.signal;
    const stream = host.prompt(prompt, { signal, onStart: (composition) => (this.translator = this.parts.translatorFor(composition)) });
    const refused = deferred<never>();
    this.finishedRun = this.consume(stream, refused.reject).finally(stopPlan);
    const grace = graceAfterAbort(signal);
    try {
      const result = await Promise.race([this.finishedRun, grace, refused.promise]);
      this.translator?.flush();
      await Promise.race([sink.drained(), grace]);
      return this.cancelled ? 'cancelled' : stopReason(result, this.translator?.lastPrimaryStop);
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
    this.translator?.flush();
    await this.parts.sink.drained();
  }

  /** The client's view of the tool call a permission request comes from. */
  async toolCall(request: PermissionRequest): Promise<ToolCallUpdate> {
    await this.settled();
    return this.translator?.toolCall(request.agent, request.callId) ?? { toolCallId: request.callId, title: request.title };
  }

  /** Embeds a client terminal in the tool call now running, and waits until the client has been told. */
  async embedTerminal(terminalId: string): Promise<void> {
    await this.settled();
    if (this.translator?.attachTerminal(terminalId)) await this.parts.sink.drained();
  }

  private async consume(stream: ReturnType<HostSession['prompt']>, refuse: (err: unknown) => void): Promise<PromptOutcome | undefined> {
    try {
      return await stream.forEach((event) => {
        if (this.translator) this.translator.handle(event);
        else if (event.type === 'notice') this.parts.earlyNotice(event);
      });
    } catch (err) {
      if (err instanceof HostError) refuse(requestError(err));
      else this.parts.onCrash(err);
      return undefined;
    }
  }
}

/** The JSON-RPC error for a prompt the host would not start. */
function requestError(err: HostError): Error {
  switch (err.kind) {
    case 'busy':
      return requestErrors.invalidRequest(err.message);
    case 'unknown-session':
    case 'usage':
      return requestErrors.invalidParams(err.message);
    case 'auth':
      return requestErrors.authRequired(err.message);
    case 'config':
      return requestErrors.internal(err.message);
  }
}

/** How the client reads a run's end. `undefined`: the run crashed, which `onCrash` has already told. */
function stopReason(result: PromptOutcome | undefined, lastPrimaryStop: TurnStopReason | undefined): StopReason {
  switch (result?.status) {
    case undefined:
    case 'completed':
    case 'error':
      return 'end_turn';
    case 'needs_input':
      if (lastPrimaryStop === 'max_tokens') return 'max_tokens';
      return lastPrimaryStop === 'refused' ? 'refusal' : 'end_turn';
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

function deferred<T>(): { promise: Promise<T>; reject(err: unknown): void } {
  let reject!: (err: unknown) => void;
  const promise = new Promise<T>((_resolve, fail) => (reject = fail));
  promise.catch(() => undefined);
  return { promise, reject };
}
