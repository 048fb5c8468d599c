/**
 * How a session's MCP servers reach the person: a server's elicitation is
 * asked through the front door while a prompt runs, within limits, each
 * question a span in the prompt's trace. Outside a prompt, or where the
 * door has nobody to ask, it is declined and the person is told which
 * server asked what. Sampling is mcp-sampling.ts.
 */
import { clientRequests, type McpClientRequests } from '../mcp/client-requests';
import { type ElicitAnswer, type ElicitForm, answerProblem } from '../mcp/elicitation-form';
import type { ACPSession } from '../session/acp-session';
import { clip, errorText } from '../vocabulary/text';
import { runSampling } from './mcp-sampling';
import { countInPrompt, requestSpan, tell } from './server-requests';
import type { SharedPromptState } from './prompt-shared';
import type { HostSessionOptions } from './session-options';

/** Questions one server may ask in one prompt; later ones are declined. */
export const QUESTIONS_PER_PROMPT = 10;

/** The session's answers to its servers' requests, built once per session. */
export function mcpRequestsOf(shared: SharedPromptState, options: HostSessionOptions, session: ACPSession): McpClientRequests {
  shared.mcpRequests ??= clientRequests({
    form: (form, serverSignal) => answerForm(shared, options, session, form, serverSignal),
    sample: (request, serverSignal) => runSampling(shared, options, session, request, serverSignal),
  });
  return shared.mcpRequests;
}

async function answerForm(shared: SharedPromptState, options: HostSessionOptions, session: ACPSession, form: ElicitForm, serverSignal: AbortSignal): Promise<ElicitAnswer> {
  const span = requestSpan(session, form.server, `elicitation ${form.server}`, {
    'crow.mcp.request': 'elicitation/create',
    'crow.mcp.elicitation.message': clip(form.message, 500),
    'crow.mcp.elicitation.fields': form.fields.map((field) => field.name),
  });
  const decline = (why: string): ElicitAnswer => {
    tell(shared, options, 'An MCP server asked a question', `MCP server "${form.server}" asked: "${clip(form.message, 200)}". Crow declined: ${why}.`);
    span.set({ 'crow.mcp.elicitation.action': 'decline', 'crow.mcp.elicitation.declined_because': why });
    span.end('ok', why);
    return { action: 'decline' };
  };
  const prompt = shared.running?.signal;
  if (!prompt || prompt.aborted) return decline('no prompt was running, so nobody was there to answer');
  if (!options.elicit) return decline(options.elicitUnavailable ?? 'this front door cannot ask you questions');
  if (countInPrompt(prompt, `elicit ${form.server}`) > QUESTIONS_PER_PROMPT) return decline(`it already asked ${QUESTIONS_PER_PROMPT} questions in this prompt`);
  const signal = AbortSignal.any([prompt, serverSignal]);
  let answer: ElicitAnswer;
  try {
    answer = signal.aborted ? { action: 'cancel' } : await options.elicit(form, signal);
  } catch (err) {
    if (!signal.aborted) return decline(`asking failed: ${errorText(err)}`);
    answer = { action: 'cancel' };
  }
  if (answer.action === 'accept') {
    const problem = answerProblem(form, answer.content);
    if (problem !== undefined) return decline(`the answer did not fit the form (${problem})`);
    span.set({ 'crow.mcp.elicitation.answered': Object.keys(answer.content) });
  }
  span.set({ 'crow.mcp.elicitation.action': answer.action });
  span.end(answer.action === 'cancel' ? 'cancelled' : 'ok');
  return answer;
}
