import { type AssistantBlock, type AssistantResponse, emptyUsage, type LlmRequest, type ModelPricing, type Provider, type StopReason, type StreamEvent, type Usage } from './types';

/** One scripted model reply. Text and thinking stream in `chunkSize`-character deltas. */
export interface ScriptedTurn {
  thinking?: string;
  text?: string;
  toolCalls?: { name: string; arguments: unknown; id?: string }[];
  usage?: Partial<Usage>;
  /** Defaults to tool_use when there are tool calls, else end_turn. */
  stopReason?: StopReason;
  errorMessage?: string;
  /** Milliseconds to wait between deltas; the wait honours abort. */
  delayMs?: number;
  /** Stream the deltas, then wait until aborted (simulates a slow model). */
  hangAfterDeltas?: boolean;
}

export type ScriptStep = ScriptedTurn | ((request: LlmRequest, callIndex: number) => ScriptedTurn);

/**
 * A provider that plays queued replies, for fast, deterministic engine
 * tests. It records every request and honours abort at every wait.
 */
export class ScriptedProvider implements Provider {
  readonly name = 'scripted';
  supportsImages = true;
  pricing: ModelPricing | undefined;
  readonly requests: LlmRequest[] = [];
  private readonly steps: ScriptStep[];
  private nextId = 1;

  constructor(
    steps: ScriptStep[] = [],
    readonly model = 'scripted-model',
    private readonly chunkSize = 8,
  ) {
    this.steps = [...steps];
  }

  enqueue(...steps: ScriptStep[]): this {
    this.steps.push(...steps);
    return this;
  }

  get pending(): number {
    return this.steps.length;
  }

  async *stream(request: LlmRequest, signal: AbortSignal): AsyncIterable<StreamEvent> {
    // A deep copy: the caller's history keeps changing after the call.
    this.requests.push(structuredClone(request));
    const step = this.steps.shift();
    if (!step) {
      yield done([], 'error', emptyUsage(), this.model, 'scripted provider: no scripted reply left');
      return;
    }
    const turn = typeof step === 'function' ? step(request, this.requests.length - 1) : step;
    const content: AssistantBlock[] = [];
    const usage = { ...emptyUsage(), ...turn.usage };
    const aborted = (): StreamEvent => done(content, 'aborted', usage, this.model);

    if (turn.thinking) {
      const block = { type: 'thinking' as const, text: '', signature: `sig-${this.nextId++}` };
      content.push(block);
      for (const delta of chunks(turn.thinking, this.chunkSize)) {
        if (!(await pause(turn.delayMs, signal))) return yield aborted();
        block.text += delta;
        yield { type: 'thinking_delta', delta };
      }
    }
    if (turn.text) {
      const block = { type: 'text' as const, text: '' };
      content.push(block);
      for (const delta of chunks(turn.text, this.chunkSize)) {
        if (!(await pause(turn.delayMs, signal))) return yield aborted();
        block.text += delta;
        yield { type: 'text_delta', delta };
      }
    }
    for (const call of turn.toolCalls ?? []) {
      if (!(await pause(turn.delayMs, signal))) return yield aborted();
      const id = call.id ?? `call_${this.nextId++}`;
      const args = typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments);
      content.push({ type: 'tool_call', id, name: call.name, arguments: args });
      yield { type: 'tool_call_start', id, name: call.name };
    }
    if (turn.hangAfterDeltas) {
      await pause(Number.POSITIVE_INFINITY, signal);
      return yield aborted();
    }
    if (signal.aborted) return yield aborted();
    const stopReason = turn.stopReason ?? (turn.toolCalls?.length ? 'tool_use' : 'end_turn');
    yield done(content, stopReason, usage, this.model, turn.errorMessage);
  }
}

function done(
  content: AssistantBlock[],
  stopReason: StopReason,
  usage: Usage,
  model: string,
  errorMessage?: string,
): StreamEvent {
  const response: AssistantResponse = { content, stopReason, usage, responseModel: model, finishReasons: [stopReason] };
  if (errorMessage !== undefined) response.errorMessage = errorMessage;
  return { type: 'done', response };
}

function chunks(text: string, size: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

/** Waits `ms` (no wait when undefined); resolves false if aborted first. */
function pause(ms: number | undefined, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(false);
  if (ms === undefined) return Promise.resolve(true);
  return new Promise((resolve) => {
    const onAbort = (): void => {
      if (timer) clearTimeout(timer);
      resolve(false);
    };
    const timer = Number.isFinite(ms)
      ? setTimeout(() => {
          signal.removeEventListener('abort', onAbort);
          resolve(true);
        }, ms)
      : undefined;
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
