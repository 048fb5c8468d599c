import { type AssistantResponse, costOf, emptyUsage, isCutOff, type LlmRequest, type Provider, type StopReason, type Usage } from '../llm/types';
import { estimateTokens } from '../llm/token-estimate';
import { uniqueCallIds } from '../llm/call-ids';
import { llmPromptAttributes, llmRequestAttributes, llmResponseAttributes } from '../telemetry/gen-ai';
import type { Span, SpanStatus } from '../telemetry/span';
import { InternalSession } from '../session/internal-session';
import type { AgentEvent } from './events';
import type { Budget, NextCall } from '../vocabulary/budget';
import { errorText } from '../vocabulary/text';

export type Emit = (event: AgentEvent) => void;

/**
 * Makes one streaming LLM call: forwards deltas as events, then records what
 * the model said in the session. Tool calls of a response that did not end
 * cleanly are dropped (they were never complete); its text and thinking stay.
 * Never throws: a provider that breaks its contract becomes an error response.
 */
export interface ModelCallScope {
  agent: string;
  provider: Provider;
  session: InternalSession;
  emit: Emit;
  /** The turn's span; the call gets a child span with the gen_ai attributes. */
  span: Span | undefined;
  /** Told as soon as the model starts a tool call, before its arguments have streamed. */
  onToolCallStart?: (name: string) => void;
  /** What a call filled of the agent's context window (see ContextWindowKeeper.read); given, the usage event carries it. */
  context?: (request: LlmRequest, usage: Usage) => number | undefined;
}

export async function callModel(scope: ModelCallScope, request: LlmRequest, signal: AbortSignal): Promise<AssistantResponse> {
  const { agent, provider, session, emit } = scope;
  const span = scope.span?.child('llm_call', `chat ${provider.model}`, {
    agent,
    sessionId: session.id,
    attributes: { ...llmRequestAttributes(provider.name, provider.model), ...llmPromptAttributes(request) },
  });
  const streamed = await streamResponse(agent, provider, request, signal, emit, scope.onToolCallStart);
  // Two calls with one id would both run and one result be lost; an id another turn used makes the history invalid.
  const response = { ...streamed, content: uniqueCallIds(streamed.content, session.callIds) };
  recordResponse(agent, response, session, emit);
  const costUsd = provider.pricing ? costOf(response.usage, provider.pricing) : undefined;
  const context = scope.context?.(request, response.usage);
  emit({
    type: 'usage',
    agent,
    usage: response.usage,
    model: response.responseModel ?? provider.model,
    ...(costUsd !== undefined ? { costUsd } : {}),
    ...(context !== undefined ? { context } : {}),
  });
  span?.set(llmResponseAttributes(response, provider.pricing));
  span?.end(SPAN_STATUS[response.stopReason], response.errorMessage);
  return response;
}

/**
 * `emit`, charging every model call's usage event to `budget` on its way
 * (a subagent's usage arrives as subagent_usage and was charged by its own
 * turn already).
 */
/** What `request` will spend at least: its prompt's tokens (the keeper's estimate where there is one), at its model's cheapest input rate. */
export function nextCall(request: LlmRequest, provider: Pick<Provider, 'pricing'>, keeper?: { estimate(request: LlmRequest): number }): NextCall {
  const tokens = keeper ? keeper.estimate(request) : estimateTokens(request);
  const { pricing } = provider;
  const cheapest = pricing ? Math.min(pricing.input, pricing.cacheRead ?? pricing.input) : undefined;
  return { tokens, minCostUsd: cheapest === undefined ? undefined : (tokens * cheapest) / 1_000_000 };
}

export function charging(budget: Budget | undefined, emit: Emit): Emit {
  if (!budget) return emit;
  return (event) => {
    if (event.type === 'usage') chargeUsage(budget, event);
    emit(event);
  };
}

/** Charges one usage event to the budget. */
export function chargeUsage(budget: Budget | undefined, event: Extract<AgentEvent, { type: 'usage' }>): void {
  const { usage } = event;
  budget?.charge({ model: event.model, tokens: usage.input + usage.cacheRead + usage.cacheWrite + usage.output, costUsd: event.costUsd });
}

/** Who makes a tool-less call, on which provider, where its span hangs and where its usage goes. */
export interface ToollessScope {
  /** Named on the span and the usage event: an agent, or a flow's part such as "generator". */
  agent: string;
  provider: Provider;
  span: Span | undefined;
  /** Receives the call's usage (with its cost) and retry notices; its text is not streamed. */
  emit: Emit;
}

/**
 * One model call that may not call tools, outside any agent's history: a
 * summary for compaction, a generated follow-up, a reflection on a
 * subagent's work. An agent's own tools may be passed: they are sent with
 * `toolChoice: 'none'`, which keeps the request valid with tool calls in
 * its history and keeps the cached prompt prefix of the agent's own calls.
 * Traced as an LLM span like every call, its usage emitted so the run's cost
 * counts it; a failure is a value (stopReason "error" and errorMessage), and
 * `text` is what the model answered ('' when it failed or was cancelled).
 */
export async function toollessCall(
  scope: ToollessScope,
  request: Pick<LlmRequest, 'system' | 'messages'> & Partial<Pick<LlmRequest, 'tools'>>,
  signal: AbortSignal,
): Promise<{ text: string; response: AssistantResponse }> {
  const quiet: Emit = (event) => {
    if (event.type === 'usage' || event.type === 'retry') scope.emit(event);
  };
  // Recorded on a scratch session: no agent's history gains the exchange.
  const scratch = new InternalSession(scope.agent);
  const tools = request.tools ?? [];
  const call: LlmRequest = { ...request, tools, ...(tools.length > 0 ? { toolChoice: 'none' as const } : {}) };
  const response = await callModel({ agent: scope.agent, provider: scope.provider, session: scratch, emit: quiet, span: scope.span }, call, signal);
  const failed = response.stopReason === 'error' || response.stopReason === 'aborted';
  return { response, text: failed ? '' : response.content.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join('').trim() };
}

const SPAN_STATUS: Record<StopReason, SpanStatus> = {
  end_turn: 'ok',
  tool_use: 'ok',
  max_tokens: 'ok',
  refusal: 'ok',
  pause_turn: 'ok',
  error: 'error',
  aborted: 'cancelled',
};

async function streamResponse(
  agent: string,
  provider: Provider,
  request: LlmRequest,
  signal: AbortSignal,
  emit: Emit,
  onToolCallStart?: (name: string) => void,
): Promise<AssistantResponse> {
  const deltas = new DeltaBatch(agent, emit);
  try {
    for await (const event of provider.stream(request, signal)) {
      if (event.type === 'text_delta' || event.type === 'thinking_delta') {
        deltas.add(event.type, event.delta);
        continue;
      }
      deltas.flush();
      switch (event.type) {
        case 'retry':
          emit({ type: 'retry', agent, attempt: event.attempt, delayMs: event.delayMs, reason: event.reason });
          break;
        case 'tool_call_start':
          onToolCallStart?.(event.name);
          break;
        case 'notice':
          emit({ type: 'notice', agent, level: 'warning', title: provider.name, message: event.message });
          break;
        case 'done':
          return event.response;
      }
    }
    return failed(signal, `${provider.name} stream ended without a final response`);
  } catch (err) {
    return failed(signal, `${provider.name} provider failed: ${errorText(err)}`);
  } finally {
    deltas.close();
  }
}

function failed(signal: AbortSignal, message: string): AssistantResponse {
  return {
    content: [],
    stopReason: signal.aborted ? 'aborted' : 'error',
    finishReasons: [],
    usage: emptyUsage(),
    errorMessage: message,
  };
}

/**
 * What of a response enters the history. A refused reply enters nothing
 * (the provider asks that it not be sent back); a call cut off by the
 * output cap is incomplete JSON and enters nothing either.
 */
function recordResponse(agent: string, response: AssistantResponse, session: InternalSession, emit: Emit): void {
  if (response.stopReason === 'refusal') return;
  const complete = response.stopReason !== 'error' && response.stopReason !== 'aborted';
  const at = Date.now();
  for (const block of response.content) {
    switch (block.type) {
      case 'text':
        if (block.text === '') break;
        session.append({ kind: 'assistant_text', text: block.text, at });
        emit({ type: 'text_complete', agent, text: block.text });
        break;
      case 'thinking':
        if (block.text === '' && block.signature === undefined) break;
        session.append({
          kind: 'thinking',
          text: block.text,
          ...(block.signature !== undefined ? { signature: block.signature } : {}),
          at,
        });
        if (block.text !== '') emit({ type: 'thinking_complete', agent, text: block.text });
        break;
      case 'redacted_thinking':
        session.append({ kind: 'redacted_thinking', data: block.data, at });
        break;
      case 'tool_call':
        if (complete && !isCutOff(block, response)) {
          session.append({ kind: 'tool_call', id: block.id, name: block.name, arguments: block.arguments, ...(block.extra ? { extra: block.extra } : {}), at });
        }
        break;
    }
  }
}

/**
 * Text (or thinking) deltas that arrive within one turn of the event loop,
 * passed on as one delta: a fast stream then costs every later stage (the
 * history, the event log, each front door) one event per network read
 * rather than one per token. A delta waits at most until the loop's check
 * phase (setImmediate); any other event, and the call's end, sends it first.
 */
class DeltaBatch {
  private pending: { type: 'text_delta' | 'thinking_delta'; delta: string } | undefined;
  private timer: NodeJS.Immediate | undefined;

  constructor(
    private readonly agent: string,
    private readonly emit: Emit,
  ) {}

  add(type: 'text_delta' | 'thinking_delta', delta: string): void {
    if (this.pending && this.pending.type !== type) this.flush();
    if (this.pending) {
      this.pending.delta += delta;
      return;
    }
    this.pending = { type, delta };
    this.timer ??= setImmediate(() => {
      this.timer = undefined;
      this.flush();
    });
  }

  flush(): void {
    const pending = this.pending;
    if (!pending) return;
    this.pending = undefined;
    this.emit({ type: pending.type, agent: this.agent, delta: pending.delta });
  }

  close(): void {
    this.flush();
    if (this.timer) clearImmediate(this.timer);
    this.timer = undefined;
  }
}
