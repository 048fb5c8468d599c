/**
 * One running turn of a BaseAgent: the ReAct loop itself (call the model,
 * run the tools it asks for, repeat) and the state it keeps while it runs.
 * Start here to follow a turn end to end; each step names where it lives:
 *
 *   BaseAgent.executeTurn (base-agent.ts)  the turn's tools and context, events as a stream (event-stream.ts)
 *   Turn.loop (below)                    until an answer, a stop rule (stop-rules.ts) or the budget
 *     takeSteering                       what the person sent meanwhile, as user messages
 *     callModel                          the context kept inside the window (compaction.ts), the request
 *       → callModel (model-call.ts)      checked against the budget (nextCall), streamed as events
 *                                        (events.ts), the response recorded in the session
 *     afterResponse                      stop, refusal, cut-off calls, or the tool calls of the response:
 *       runToolRound (tool-round.ts)     in order, read-only ones side by side, loops and task_complete caught
 *         executeToolCall                hooks before and after, the call's span, its progress
 *           (tool-execution.ts,           (tool-progress.ts, output-tail.ts)
 *            tool-progress.ts)
 *           tool.run                     parse → refuse → authorize → record for undo → execute → finish
 *             (tools/tool-call.ts)       (the permission gate: tools/permissions.ts)
 *     finish                             the TurnResult (turn.ts) and the turn's span
 *
 * Above a turn, a flow (agents/flow-run.ts, coagent-flow.ts) runs the
 * primary and its reviewer; below the model call, a provider (llm/) speaks
 * one API's wire format.
 */
import { addUsage, type AssistantResponse, emptyUsage, isCutOff, type LlmRequest, type ToolCallBlock, type Usage } from '../llm/types';
import type { InternalSession } from '../session/internal-session';
import { argumentsForDisplay } from '../session/history';
import { TASK } from '../vocabulary/tool-names';
import { clip } from '../vocabulary/text';
import { REVIEW_FEEDBACK_CHARS, reviewVerdict } from './review-verdict';
import type { SystemEventKind } from '../session/history';
import { type Tool, type ToolContext, toolSpec } from '../tools/tool';
import type { Span, SpanStatus } from '../telemetry/span';
import type { AgentEvent, TurnStopReason } from './events';
import { callModel, nextCall } from './model-call';
import { RepeatedCallDetector, stepLimitReached } from './stop-rules';
import { runToolRound } from './tool-round';
import { skipToolCall, type ToolRunScope } from './tool-execution';
import type { ExecutedToolCall, TurnResult } from './turn';
import type { BaseAgentOptions, TurnAgent, TurnScope } from './turn-options';

/** The state of one running turn. */
export class Turn {
  private readonly usage = emptyUsage();
  private readonly executed: ExecutedToolCall[] = [];
  private readonly filesChanged = new Set<string>();
  private readonly repeats: RepeatedCallDetector;
  private readonly scope: ToolRunScope;
  private readonly span: Span | undefined;
  private lastText = '';
  private taskSummary: string | undefined;
  /** Responses in a row whose last tool call the output cap cut off. */
  private cutOffs = 0;
  /** What the last model call read and wrote: how full the context window is now. */
  private lastCallTokens: number | undefined;

  constructor(
    private readonly agent: TurnAgent,
    private readonly options: BaseAgentOptions,
    tools: ReadonlyMap<string, Tool>,
    private readonly session: InternalSession,
    private readonly turnScope: TurnScope,
    private readonly emit: (event: AgentEvent) => void,
  ) {
    this.repeats = new RepeatedCallDetector(agent.limits.doomLoopThreshold);
    this.span = turnScope.span?.child('agent_turn', `invoke_agent ${agent.name}`, {
      agent: agent.name,
      ...(turnScope.role !== undefined ? { role: turnScope.role } : {}),
      sessionId: session.id,
      attributes: { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': agent.name },
    });
    this.scope = {
      agent: agent.name,
      session,
      tools,
      context: (callId, span) => this.context(callId, span),
      checkpointBefore: (call, tool) => this.checkpoint(call, tool),
      emit,
      depth: turnScope.depth ?? 0,
      signal: turnScope.signal,
      ...(this.span ? { span: this.span } : {}),
      ...(turnScope.hooks ? { hooks: turnScope.hooks } : {}),
      ...(turnScope.calls ? { calls: turnScope.calls } : {}),
    };
  }

  async run(): Promise<TurnResult> {
    this.emit({ type: 'turn_start', agent: this.agent.name });
    try {
      return await this.loop();
    } catch (err) {
      // Only a bug gets here; the turn still ends with a visible reason.
      const message = `internal error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`;
      return this.finish('error', message);
    }
  }

  private async loop(): Promise<TurnResult> {
    const { maxIterations } = this.agent.limits;
    for (let step = 0; ; step++) {
      if (this.signal.aborted) return this.finish('cancelled', 'Cancelled by the user.');
      if (stepLimitReached(step, maxIterations)) {
        return this.finish('max_iterations', `Stopped after ${maxIterations} model calls (the agent's limit).`);
      }
      const over = this.turnScope.budget?.exceeded();
      if (over !== undefined) return this.finish('budget', over);
      this.takeSteering();
      const response = await this.callModel();
      if ('overBudget' in response) return this.finish('budget', response.overBudget);
      const stop = await this.afterResponse(response);
      if (stop) return stop;
    }
  }

  /** Announces a checkpoint before a call that may change the workspace or start other agents. */
  private checkpoint(call: ToolCallBlock, tool: Tool): void {
    const checkpoints = this.turnScope.checkpoints;
    if (!checkpoints || !mayChangeState(tool)) return;
    const label = `${call.name} ${tool.summarize(argumentsForDisplay(call.arguments))}`.trim();
    const checkpoint = checkpoints.beforeCall(this.turnScope.role === 'coagent' ? 'coagent' : 'primary', this.agent.name, call.id, label);
    this.emit({ type: 'checkpoint', agent: this.agent.name, checkpoint });
  }

  /** Gives the agent what the person sent while it worked, as user messages before its next call. */
  private takeSteering(): void {
    for (const message of this.turnScope.steering?.take() ?? []) {
      this.session.addUserMessage(message.forModel);
      this.emit({ type: 'steer', agent: this.agent.name, content: message.content });
    }
  }

  /** What a response leads to: the turn's end, or (undefined) another model call. */
  private async afterResponse(response: AssistantResponse): Promise<TurnResult | undefined> {
    switch (response.stopReason) {
      case 'aborted':
        return this.finish('cancelled', 'Cancelled by the user.');
      case 'error':
        return this.finish('error', response.errorMessage ?? `${this.agent.provider.name} request failed.`);
      case 'refusal':
        return this.finish('refused', REFUSED);
      case 'pause_turn':
        // The provider paused a long turn; the conversation sent back as it is lets the model go on.
        return undefined;
      default:
        break;
    }
    const calls = response.content.filter((block): block is ToolCallBlock => block.type === 'tool_call');
    const cutOff = calls.filter((call) => isCutOff(call, response));
    const whole = calls.filter((call) => !cutOff.includes(call));
    if (whole.length > 0) {
      const stop = this.turnScope.withoutTools ? this.refuseCalls(whole) : await this.runTools(whole);
      if (stop) return stop;
    }
    if (cutOff.length > 0) return this.cutOffCall(cutOff[0]!);
    this.cutOffs = 0;
    if (whole.length > 0) return undefined;
    return response.stopReason === 'max_tokens'
      ? this.finish('max_tokens', 'The model reached its output token limit before finishing its answer.')
      : this.finish('answered', 'The agent answered.');
  }

  /**
   * A tool call the output cap cut off was not run (its arguments are
   * incomplete). The model is told once, to write the step smaller; cut off
   * again right away, the turn ends, saying what to change.
   */
  private cutOffCall(call: ToolCallBlock): TurnResult | undefined {
    this.cutOffs += 1;
    const limit = this.options.maxOutputTokens !== undefined ? ` (${this.options.maxOutputTokens} tokens)` : '';
    if (this.cutOffs > 1) {
      return this.finish(
        'max_tokens',
        `The model hit its output token limit${limit} in the middle of a ${call.name} call twice in a row; the calls were not run. ` +
          'Raise max_output_tokens in config.toml, or ask for the change in smaller steps.',
      );
    }
    this.session.addUserMessage(
      `[Your last response reached the output token limit${limit} in the middle of a call to ${call.name}, so that call was not run. ` +
        'Make the same progress in smaller steps: split a large file into several writes or edits.]',
      this.agent.name,
    );
    return undefined;
  }

  /** In a turn without tools, calls the model makes anyway (a server that ignores tool_choice) are answered, not run. */
  private refuseCalls(calls: ToolCallBlock[]): undefined {
    for (const call of calls) {
      this.record(skipToolCall(this.scope, call, 'error', 'Not run: no tools are available for this answer. Reply in text.'));
    }
    return undefined;
  }

  private buildRequest(): LlmRequest {
    return {
      system: this.options.systemPrompt,
      messages: this.session.toMessages(),
      tools: [...this.scope.tools.values()].map(toolSpec),
      // Without tools, they are still sent (the history holds tool calls, and the cached prefix stays), but may not be called.
      ...(this.turnScope.withoutTools ? { toolChoice: 'none' as const } : {}),
      ...(this.options.maxOutputTokens !== undefined ? { maxOutputTokens: this.options.maxOutputTokens } : {}),
      ...(this.options.temperature !== undefined ? { temperature: this.options.temperature } : {}),
      ...(this.options.thinkingBudget !== undefined ? { thinkingBudget: this.options.thinkingBudget } : {}),
    };
  }

  /**
   * One model call, its request fitted to the context window. A server that
   * says the prompt did not fit gets it once more, compacted (see
   * ContextWindowKeeper).
   */
  /** The model's response; or, when the call would certainly pass a spending limit, why it was not made. */
  private async callModel(): Promise<AssistantResponse | { overBudget: string }> {
    const build = (): LlmRequest => this.buildRequest();
    const keeper = this.agent.contextWindow;
    const { budget } = this.turnScope;
    const scope = { agent: this.agent.name, provider: this.agent.provider, session: this.session, emit: this.emit, span: this.span, signal: this.signal, ...(budget ? { budget } : {}) };
    const request = keeper ? await keeper.fit(scope, build) : build();
    const overBudget = this.turnScope.budget?.exceeded(nextCall(request, this.agent.provider, keeper));
    if (overBudget !== undefined) return { overBudget };
    const response = await this.callOnce(request);
    if (response.stopReason !== 'error' || !response.overflow || !keeper) return response;
    const compacted = await keeper.recover(scope, build, request, response.overflow);
    if (!compacted) {
      const next = keeper.auto
        ? 'Nothing older is left to compact: start a new session, or use a model with a larger context window.'
        : 'Compaction is off (compaction = "off"): send /compact to summarise the conversation, or start a new session.';
      return { ...response, errorMessage: `${response.errorMessage ?? 'The prompt does not fit the context window.'} ${next}` };
    }
    const retried = await this.callOnce(compacted);
    if (retried.overflow) {
      return { ...retried, errorMessage: `${retried.errorMessage ?? 'The prompt does not fit the context window'} (even after compacting the conversation): start a new session, or use a model with a larger context window.` };
    }
    return retried;
  }

  private async callOnce(request: LlmRequest): Promise<AssistantResponse> {
    // The model may answer with a command (or a tool whose changes are not known in advance): undo's record of the tree starts beside it.
    if ([...this.scope.tools.values()].some((tool) => tool.permission === 'execute')) this.turnScope.undo?.beforeModelCall?.();
    const keeper = this.agent.contextWindow;
    let filled: number | undefined;
    const response = await callModel(
      {
        agent: this.agent.name,
        provider: this.agent.provider,
        session: this.session,
        emit: this.emit,
        span: this.span,
        // While the model still streams the call: the tool readies its parser, and undo's track before a command starts.
        onToolCallStart: (name) => {
          const tool = this.scope.tools.get(name);
          tool?.prepare?.(this.options.workspace);
          if (tool?.permission === 'execute') this.turnScope.undo?.expectCommand?.();
        },
        ...(keeper ? { context: (sent: LlmRequest, usage: Usage) => (filled = keeper.read(sent, usage, { agent: this.agent.name, emit: this.emit })) } : {}),
      },
      request,
      this.signal,
    );
    addUsage(this.usage, response.usage);
    if (filled !== undefined) this.lastCallTokens = filled;
    const text = response.content.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join('');
    if (text.trim() !== '') this.lastText = text;
    return response;
  }

  /** Runs the calls of one response; returns a result when the turn must stop. */
  private async runTools(calls: ToolCallBlock[]): Promise<TurnResult | undefined> {
    const outcome = await runToolRound(
      { scope: this.scope, repeats: this.repeats, signal: this.signal, record: (call) => this.record(call) },
      calls,
    );
    if (outcome.taskSummary !== undefined) this.taskSummary = outcome.taskSummary;
    return outcome.stop ? this.finish(outcome.stop.reason, outcome.stop.message) : undefined;
  }

  private record(call: ExecutedToolCall): ExecutedToolCall {
    this.executed.push(call);
    for (const file of call.result.metadata.filesModified) this.filesChanged.add(file);
    return call;
  }

  private get signal(): AbortSignal {
    return this.turnScope.signal;
  }

  private context(callId: string, span: Span | undefined): ToolContext {
    const { permissions, todos, undo, subagents, depth, budget, outputs, hooks } = this.turnScope;
    return {
      sessionId: this.session.id,
      agentName: this.agent.name,
      agentTools: this.agent.toolNames,
      callId,
      workspace: this.options.workspace,
      signal: this.signal,
      provider: this.agent.provider.name,
      model: this.agent.provider.model,
      supportsImages: this.agent.provider.supportsImages,
      // The session's gate, judging by this agent's own policy when it has one.
      permissions: this.options.policy ? permissions.forPolicy(this.options.policy) : permissions,
      todos,
      ...(undo ? { undo } : {}),
      ...(span ? { span } : {}),
      ...(subagents ? { subagents } : {}),
      depth: depth ?? 0,
      ...(budget ? { budget } : {}),
      report: this.emit,
      outputs,
      ...(hooks ? { hooks } : {}),
      ...(this.options.approvalTimeoutMs !== undefined ? { approvalTimeoutMs: this.options.approvalTimeoutMs } : {}),
    };
  }

  private endSpan(reason: TurnStopReason, message: string): void {
    if (!this.span) return;
    const u = this.usage;
    this.span.set({
      'crow.turn.stop_reason': reason,
      'crow.turn.tool_calls': this.executed.length,
      'gen_ai.usage.input_tokens': u.input + u.cacheRead + u.cacheWrite,
      'gen_ai.usage.output_tokens': u.output,
    });
    if (this.turnScope.role === 'coagent') {
      // A reviewer's turn carries its verdict, so the trace tells who approved what (the text is the model's: viewers show it as text).
      const feedback = (this.taskSummary ?? this.lastText).trim();
      this.span.set({ 'crow.review.verdict': reviewVerdict(this.taskSummary, reason), ...(feedback !== '' ? { 'crow.review.feedback': clip(feedback, REVIEW_FEEDBACK_CHARS) } : {}) });
    }
    this.span.end(SPAN_STATUS[reason], SPAN_STATUS[reason] === 'ok' ? undefined : message);
  }

  private finish(reason: TurnStopReason, message: string): TurnResult {
    const agent = this.agent.name;
    const window = this.agent.contextWindow?.settings.contextWindow;
    if (window !== undefined && this.lastCallTokens !== undefined) this.emit({ type: 'context', agent, used: this.lastCallTokens, window });
    const systemEvent = SYSTEM_EVENTS[reason];
    if (systemEvent) this.session.append({ kind: 'system', event: systemEvent, message, at: Date.now() });
    if (reason === 'cancelled') this.emit({ type: 'cancelled', agent });
    if (reason === 'error') this.emit({ type: 'error', agent, message });
    if (reason === 'task_complete') this.emit({ type: 'task_complete', agent, summary: this.taskSummary ?? '' });
    this.emit({ type: 'turn_complete', agent, reason, message });
    this.endSpan(reason, message);
    return {
      text: this.lastText,
      toolCalls: this.executed,
      ...(this.taskSummary !== undefined ? { taskComplete: this.taskSummary } : {}),
      usage: this.usage,
      filesChanged: [...this.filesChanged],
      stopReason: reason,
      message,
    };
  }
}

/** Calls that may change something a checkpoint restores: writes, commands, and subagents (which may do either). */
function mayChangeState(tool: Tool): boolean {
  return tool.permission === 'write' || tool.permission === 'execute' || tool.name === TASK;
}

const REFUSED =
  'The model declined to continue (the provider reported a refusal). Its reply was left out of the conversation; rephrase the request, or start a new session.';

const SPAN_STATUS: Record<TurnStopReason, SpanStatus> = {
  answered: 'ok',
  refused: 'ok',
  task_complete: 'ok',
  max_iterations: 'ok',
  doom_loop: 'ok',
  max_tokens: 'ok',
  budget: 'ok',
  hook_stop: 'ok',
  cancelled: 'cancelled',
  error: 'error',
};

const SYSTEM_EVENTS: Partial<Record<TurnStopReason, SystemEventKind>> = {
  cancelled: 'cancelled',
  doom_loop: 'doom_loop',
  max_iterations: 'max_iterations',
  budget: 'budget',
  task_complete: 'task_complete',
  error: 'error',
};
