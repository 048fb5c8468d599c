/**
 * How a session's MCP servers reach the person: a server's elicitation is
 * asked through the front door while a prompt runs, within limits, each
 * question a span in the prompt's trace. Outside a prompt, or where the
 * door has nobody to ask, it is declined and the person is told which
 * server asked what.
 */
import { elicitationRequests, type McpClientRequests } from '../mcp/client-requests';
import { type ElicitAnswer, type ElicitForm, answerProblem } from '../mcp/elicitation-form';
import type { ACPSession } from '../session/acp-session';
import type { Span } from '../telemetry/span';
import { clip, errorText } from '../vocabulary/text';
import type { SharedPromptState } from './prompt-shared';
import type { HostSessionOptions } from './session-options';

/** Questions one server may ask in one prompt; later ones are declined. */
export const QUESTIONS_PER_PROMPT = 10;

const UNSAFE = /[^A-Za-z0-9_-]/g;

/** The session's answers to its servers' requests, built once per session. */
export function mcpRequestsOf(shared: SharedPromptState, options: HostSessionOptions, session: ACPSession): McpClientRequests {
  shared.mcpRequests ??= elicitationRequests((form, serverSignal) => answerForm(shared, options, session, form, serverSignal));
  return shared.mcpRequests;
}

const asked = new WeakMap<AbortSignal, Map<string, number>>();

async function answerForm(shared: SharedPromptState, options: HostSessionOptions, session: ACPSession, form: ElicitForm, serverSignal: AbortSignal): Promise<ElicitAnswer> {
  const span = spanFor(session, form);
  const decline = (why: string): ElicitAnswer => {
    tell(shared, options, `MCP server "${form.server}" asked: "${clip(form.message, 200)}". Crow declined: ${why}.`);
    span.set({ 'crow.mcp.elicitation.action': 'decline', 'crow.mcp.elicitation.declined_because': why });
    span.end('ok', why);
    return { action: 'decline' };
  };
  const prompt = shared.promptSignal;
  if (!prompt || prompt.aborted) return decline('no prompt was running, so nobody was there to answer');
  if (!options.elicit) return decline(options.elicitUnavailable ?? 'this front door cannot ask you questions');
  const counts = asked.get(prompt) ?? new Map<string, number>();
  asked.set(prompt, counts);
  const count = (counts.get(form.server) ?? 0) + 1;
  counts.set(form.server, count);
  if (count > QUESTIONS_PER_PROMPT) return decline(`it already asked ${QUESTIONS_PER_PROMPT} questions in this prompt`);
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

/** Tells the running prompt, else the door's observer. */
function tell(shared: SharedPromptState, options: HostSessionOptions, message: string): void {
  const title = 'An MCP server asked a question';
  if (shared.noticeSink) shared.noticeSink('warning', message, title);
  else options.observer?.notice?.('warning', message, title);
}

/**
 * The question's span: below the open call of one of the server's tools
 * (a server asks while its tool runs), else below the running prompt, else
 * a trace of its own. The answer's values stay out of it, only the names
 * of the fields answered go in.
 */
function spanFor(session: ACPSession, form: ElicitForm): Span {
  const name = `elicitation ${form.server}`;
  const fields = {
    sessionId: session.id,
    attributes: {
      'crow.mcp.server': form.server,
      'crow.mcp.request': 'elicitation/create',
      'crow.mcp.elicitation.message': clip(form.message, 500),
      'crow.mcp.elicitation.fields': form.fields.map((field) => field.name),
    },
  };
  const open = session.trace.spans.filter((span) => span.end === undefined);
  const tool = `execute_tool mcp__${form.server.replace(UNSAFE, '_')}__`;
  const parent = open.findLast((span) => span.kind === 'tool' && span.name.startsWith(tool)) ?? open.findLast((span) => span.kind === 'prompt');
  return parent ? session.trace.childOf(parent, 'tool', name, fields) : session.trace.startTrace('tool', name, fields);
}
