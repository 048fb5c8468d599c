import type {
  CreateElicitationRequest,
  CreateElicitationResponse,
  PermissionOption,
  RequestPermissionRequest,
  RequestPermissionResponse,
  ToolCallUpdate,
} from '@agentclientprotocol/sdk';
import type { AskFn, PermissionAnswer, PermissionReply, PermissionRequest } from '../../tools/permissions';
import { editForm, editedArguments } from './acp-edit-form';

export interface PermissionChannel {
  sessionId: string;
  /**
   * Sends session/request_permission. When `signal` aborts it stops waiting
   * and rejects (or resolves `cancelled`), so a cancel never hangs on a
   * client that does not answer.
   */
  request(params: RequestPermissionRequest, signal: AbortSignal): Promise<RequestPermissionResponse>;
  /** The client's view of the tool call asking, once it has been announced. */
  toolCall(request: PermissionRequest): Promise<ToolCallUpdate>;
  /** Sends elicitation/create; present only when the client advertised form elicitation. */
  elicit?(params: CreateElicitationRequest, signal: AbortSignal): Promise<CreateElicitationResponse>;
}

const ANSWERS: readonly PermissionAnswer[] = ['allow_once', 'allow_always', 'reject_once', 'reject_always'];

/** The option that edits a call's arguments before allowing it (seed 002's Modify). */
export const MODIFY_OPTION_ID = 'modify';

/**
 * `_meta` key a client that knows Crow may set on the selected `modify`
 * outcome: the edited arguments, sparing the form.
 */
export const EDITED_ARGUMENTS_META = 'crow/arguments';

/** How often a form is offered again after edits that do not fit, before the call counts as refused. */
const MAX_EDIT_ROUNDS = 5;

/**
 * The permission gate's AskFn for an ACP client: each "ask" becomes a
 * session/request_permission with the four standard options (an agent's
 * own question: approve or deny). A cancelled outcome, an unknown option, a
 * failed request or an aborted prompt count as `reject_once`, as the AskFn
 * contract requires.
 *
 * Modify: ACP's permission options carry no arguments, so an editable call
 * gets a fifth option, "Modify…" (kind allow_once, listed last), only when
 * the client advertised form elicitation; choosing it opens an
 * elicitation/create form with the arguments (one field per argument where
 * all are plain values, else one JSON field). An edit that does not fit the
 * tool's parameters comes back in the form, as typed, with what is wrong.
 * A client that knows Crow may instead put the edited arguments in the
 * selected outcome's `_meta["crow/arguments"]`.
 */
export function clientAsk(channel: PermissionChannel): AskFn {
  return async (request, signal) => {
    try {
      const toolCall = await channel.toolCall(request);
      const modifiable = request.editable !== undefined && channel.elicit !== undefined;
      const response = await channel.request({ sessionId: channel.sessionId, toolCall, options: options(request, modifiable) }, signal);
      const outcome = response.outcome;
      if (outcome.outcome !== 'selected') return 'reject_once';
      if (outcome.optionId === MODIFY_OPTION_ID && request.editable) return await modify(channel, request, outcome._meta?.[EDITED_ARGUMENTS_META], signal);
      const answer = ANSWERS.find((a) => a === outcome.optionId) ?? 'reject_once';
      // An agent's question has no "always": its yes is for this request only.
      return request.question && answer !== 'allow_once' ? 'reject_once' : answer;
    } catch {
      return 'reject_once';
    }
  };
}

async function modify(channel: PermissionChannel, request: PermissionRequest, sent: unknown, signal: AbortSignal): Promise<PermissionReply> {
  const editable = request.editable!;
  if (typeof sent === 'object' && sent !== null && editable.check(sent) === undefined) return { modified: sent as Record<string, unknown> };
  if (!channel.elicit) return 'reject_once';
  let form = editForm(request, editable.arguments);
  for (let round = 0; round < MAX_EDIT_ROUNDS; round++) {
    const answer = await channel.elicit({ mode: 'form', sessionId: channel.sessionId, toolCallId: request.callId, ...form.request }, signal);
    if (answer.action !== 'accept' || !('content' in answer)) return 'reject_once';
    const content = (answer.content ?? {}) as Record<string, unknown>;
    const edited = editedArguments(form, content);
    const problem = edited.ok ? editable.check(edited.value) : edited.problem;
    if (edited.ok && problem === undefined) return { modified: edited.value };
    form = editForm(request, editable.arguments, { problem: problem!, typed: content, shape: form.shape });
  }
  return 'reject_once';
}

function options(request: PermissionRequest, modifiable: boolean): PermissionOption[] {
  const modify: PermissionOption[] = modifiable ? [{ optionId: MODIFY_OPTION_ID, kind: 'allow_once', name: request.question ? 'Approve a changed version…' : 'Modify arguments, then allow…' }] : [];
  if (request.question) {
    return [{ optionId: 'allow_once', kind: 'allow_once', name: 'Approve' }, { optionId: 'reject_once', kind: 'reject_once', name: 'Deny' }, ...modify];
  }
  return [
    { optionId: 'allow_once', kind: 'allow_once', name: 'Allow' },
    { optionId: 'allow_always', kind: 'allow_always', name: `Always allow ${request.alwaysScope}` },
    { optionId: 'reject_once', kind: 'reject_once', name: 'Reject' },
    { optionId: 'reject_always', kind: 'reject_always', name: `Always reject ${request.alwaysScope}` },
    ...modify,
  ];
}
