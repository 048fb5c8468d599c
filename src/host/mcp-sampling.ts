/**
 * A server's sampling/createMessage in a session: shown to the person with
 * the model it will use and run only once they approve, on the session's
 * primary model, while a prompt runs. Its output tokens are capped, its
 * usage counted in the prompt's meter and budget, and it is a span (with
 * the model call's span below it) in the prompt's trace. Refused where
 * nobody can approve, outside a prompt, past the budget, or after
 * SAMPLES_PER_PROMPT requests of one server.
 */
import { callModel, chargeUsage, nextCall } from '../engine/model-call';
import { RequestDenied } from '../mcp/client-requests';
import type { SamplingAnswer, SamplingRequest } from '../mcp/sampling-request';
import { InternalSession } from '../session/internal-session';
import type { ACPSession } from '../session/acp-session';
import { errorText } from '../vocabulary/text';
import { countInPrompt, requestSpan, tell } from './server-requests';
import type { SharedPromptState } from './prompt-shared';
import type { HostSessionOptions } from './session-options';

/** Model requests one server may have run in one prompt; later ones are refused. */
export const SAMPLES_PER_PROMPT = 5;

const STOP_REASONS: Record<string, string> = { end_turn: 'endTurn', max_tokens: 'maxTokens', refusal: 'refusal' };

export async function runSampling(
  shared: SharedPromptState,
  options: HostSessionOptions,
  session: ACPSession,
  request: SamplingRequest,
  serverSignal: AbortSignal,
): Promise<SamplingAnswer> {
  const { server } = request;
  const running = shared.running;
  const agents = shared.composition?.agent;
  const refuse = (why: string, told = true): never => {
    if (told) tell(shared, options, 'An MCP server asked to use the model', `MCP server "${server}" asked to run a model request; Crow refused: ${why}.`);
    throw new RequestDenied(`Crow refused the model request: ${why}.`);
  };
  if (!running || running.signal.aborted) return refuse('no prompt was running, so nobody was there to approve it');
  if (!agents) return refuse('the session\'s agents were not ready yet');
  if (!options.ask) return refuse(options.elicitUnavailable ?? 'nobody can approve it here');
  if (countInPrompt(running.signal, `sample ${server}`) > SAMPLES_PER_PROMPT) return refuse(`it already ran ${SAMPLES_PER_PROMPT} model requests in this prompt`);
  const { provider } = agents.primary;
  // As before every model call: refused when what it reads alone would pass a limit.
  const over = session.budget?.exceeded(nextCall({ system: request.system, messages: request.messages, tools: [] }, provider));
  if (over !== undefined) return refuse(`the prompt's spending limit is reached (${over})`);
  const span = requestSpan(session, server, `sampling ${server}`, {
    'crow.mcp.request': 'sampling/createMessage',
    'crow.mcp.sampling.max_tokens': request.maxTokens,
    'gen_ai.request.model': provider.model,
  });
  const signal = AbortSignal.any([running.signal, serverSignal]);
  const reply = await options
    .ask(
      {
        tool: 'mcp_sampling',
        callId: `sampling-${span.spanId}`,
        agent: `MCP server "${server}"`,
        outsider: true,
        category: 'network',
        title: `run a model request on ${provider.name} ${provider.model}, at most ${request.maxTokens} output tokens`,
        paths: [],
        alwaysScope: 'this request only',
        question: { details: request.preview },
      },
      signal,
    )
    .catch(() => 'reject_once' as const);
  if (reply !== 'allow_once') {
    span.end(signal.aborted ? 'cancelled' : 'ok', 'denied');
    return refuse(signal.aborted ? 'the prompt was cancelled' : 'the person denied it', false);
  }
  try {
    return await sample(running.emit, session, agents.primary.name, provider, request, span, signal);
  } catch (err) {
    span.end('error', errorText(err));
    throw err;
  }
}

/** Runs the request on `provider`, outside every agent's history; its usage charged and counted as the session's own. */
async function sample(
  emit: NonNullable<SharedPromptState['running']>['emit'],
  session: ACPSession,
  agent: string,
  provider: Parameters<typeof callModel>[0]['provider'],
  request: SamplingRequest,
  span: ReturnType<typeof requestSpan>,
  signal: AbortSignal,
): Promise<SamplingAnswer> {
  const subagent = `MCP server "${request.server}" (sampling)`;
  const response = await callModel(
    {
      agent,
      provider,
      session: new InternalSession(agent),
      span,
      // Its tokens are not the agent's context: counted like a subagent's, charged here.
      emit: (event) => {
        if (event.type !== 'usage') return;
        chargeUsage(session.budget, event);
        const { usage, model, costUsd } = event;
        emit({ type: 'subagent_usage', agent, subagent, callId: span.spanId, usage, model, ...(costUsd !== undefined ? { costUsd } : {}) });
      },
    },
    { system: request.system, messages: request.messages, tools: [], maxOutputTokens: request.maxTokens },
    signal,
  );
  if (response.stopReason === 'error' || response.stopReason === 'aborted') {
    throw new Error(response.stopReason === 'aborted' ? 'the model request was cancelled' : `the model request failed: ${response.errorMessage ?? 'unknown error'}`);
  }
  const text = response.content.flatMap((block) => (block.type === 'text' ? [block.text] : [])).join('');
  span.set({ 'crow.mcp.sampling.output_chars': text.length });
  span.end('ok');
  return { text, model: response.responseModel ?? provider.model, stopReason: STOP_REASONS[response.stopReason] ?? response.stopReason };
}
