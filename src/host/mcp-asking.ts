/**
 * How a session's MCP servers reach the person: a server's elicitation is
 * asked through the front door while a prompt runs, within limits, each
 * question a span in the prompt's trace. Outside a prompt, or where the
 * door has nobody to ask, it is declined and the person is told which
 * server asked what. Sampling is mcp-sampling.ts.
 */
import { clientRequests, type McpClientRequests } from '../mcp/client-requests';
import { answerProblem } from '../mcp/elicitation-form';
import type { ElicitUrl } from '../mcp/elicitation-url';
import type { ACPSession } from '../session/acp-session';
import { clip, errorText } from '../vocabulary/text';
import { runSampling } from './mcp-sampling';
import { countInPrompt, requestSpan, tell } from './server-requests';
import type { SharedPromptState } from './prompt-shared';
import type { HostSessionOptions } from './session-options';

/** Questions one server may ask in one prompt; later ones are declined. */
export const QUESTIONS_PER_PROMPT = 10;

/** The session's answers to its servers' requests, built once per session; URL mode only where the door can open a page. */
export function mcpRequestsOf(shared: SharedPromptState, options: HostSessionOptions, session: ACPSession): McpClientRequests {
  const { elicitUrl } = options;
  shared.mcpRequests ??= clientRequests({
    form: (form, serverSignal) =>
      ask(shared, options, session, { server: form.server, message: form.message, fields: form.fields.map((field) => field.name) }, serverSignal, async (signal) => {
        if (!options.elicit) return { declined: options.elicitUnavailable ?? 'this front door cannot ask you questions' };
        const answer = await options.elicit(form, signal);
        const problem = answer.action === 'accept' ? answerProblem(form, answer.content) : undefined;
        return problem !== undefined ? { declined: `the answer did not fit the form (${problem})` } : answer;
      }),
    ...(elicitUrl
      ? {
          url: (request: ElicitUrl, serverSignal: AbortSignal) =>
            ask(shared, options, session, { server: request.server, message: request.message, url: request.url }, serverSignal, (signal) => elicitUrl(request, signal)),
        }
      : {}),
    sample: (request, serverSignal) => runSampling(shared, options, session, request, serverSignal),
  });
  return shared.mcpRequests;
}

type Asked<T> = T | { declined: string };

/**
 * Asks the person through `door` while a prompt runs (and a server has not
 * asked QUESTIONS_PER_PROMPT times in it already); declines, telling the
 * person why, otherwise or when the door declines on its own account. The
 * question is a span: its message, its field names or URL, the action.
 */
async function ask<T extends { action: 'accept' | 'decline' | 'cancel' }>(
  shared: SharedPromptState,
  options: HostSessionOptions,
  session: ACPSession,
  what: { server: string; message: string; fields?: string[]; url?: string },
  serverSignal: AbortSignal,
  door: (signal: AbortSignal) => Promise<Asked<T>>,
): Promise<T | { action: 'decline' } | { action: 'cancel' }> {
  const { server, message } = what;
  const span = requestSpan(session, server, `elicitation ${server}`, {
    'crow.mcp.request': 'elicitation/create',
    'crow.mcp.elicitation.message': clip(message, 500),
    ...(what.fields ? { 'crow.mcp.elicitation.fields': what.fields } : {}),
    ...(what.url ? { 'crow.mcp.elicitation.url': clip(what.url, 500) } : {}),
  });
  const decline = (why: string): { action: 'decline' } => {
    tell(shared, options, 'An MCP server asked a question', `MCP server "${server}" asked: "${clip(message, 200)}". Crow declined: ${why}.`);
    span.set({ 'crow.mcp.elicitation.action': 'decline', 'crow.mcp.elicitation.declined_because': why });
    span.end('ok', why);
    return { action: 'decline' };
  };
  const prompt = shared.running?.signal;
  if (!prompt || prompt.aborted) return decline('no prompt was running, so nobody was there to answer');
  if (countInPrompt(prompt, `elicit ${server}`) > QUESTIONS_PER_PROMPT) return decline(`it already asked ${QUESTIONS_PER_PROMPT} questions in this prompt`);
  const signal = AbortSignal.any([prompt, serverSignal]);
  let answer: Asked<T> | { action: 'cancel' };
  try {
    answer = signal.aborted ? { action: 'cancel' } : await door(signal);
  } catch (err) {
    if (!signal.aborted) return decline(`asking failed: ${errorText(err)}`);
    answer = { action: 'cancel' };
  }
  if ('declined' in answer) return decline(answer.declined);
  if ('content' in answer && answer.content) span.set({ 'crow.mcp.elicitation.answered': Object.keys(answer.content as object) });
  span.set({ 'crow.mcp.elicitation.action': answer.action });
  span.end(answer.action === 'cancel' ? 'cancelled' : 'ok');
  return answer;
}
