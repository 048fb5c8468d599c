import type { PermissionOption, RequestPermissionRequest, RequestPermissionResponse, ToolCallUpdate } from '@agentclientprotocol/sdk';
import type { AskFn, PermissionAnswer, PermissionRequest } from '../../tools/permissions';

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
}

const ANSWERS: readonly PermissionAnswer[] = ['allow_once', 'allow_always', 'reject_once', 'reject_always'];

/**
 * The permission gate's AskFn for an ACP client: each "ask" becomes a
 * session/request_permission with the four standard options. A cancelled
 * outcome, an unknown option, a failed request or an aborted prompt count as
 * `reject_once`, as the AskFn contract requires.
 */
export function clientAsk(channel: PermissionChannel): AskFn {
  return async (request, signal) => {
    try {
      const toolCall = await channel.toolCall(request);
      const response = await channel.request({ sessionId: channel.sessionId, toolCall, options: options(request) }, signal);
      const outcome = response.outcome;
      if (outcome.outcome !== 'selected') return 'reject_once';
      return ANSWERS.find((answer) => answer === outcome.optionId) ?? 'reject_once';
    } catch {
      return 'reject_once';
    }
  };
}

function options(request: PermissionRequest): PermissionOption[] {
  return [
    { optionId: 'allow_once', kind: 'allow_once', name: 'Allow' },
    { optionId: 'allow_always', kind: 'allow_always', name: `Always allow ${request.alwaysScope}` },
    { optionId: 'reject_once', kind: 'reject_once', name: 'Reject' },
    { optionId: 'reject_always', kind: 'reject_always', name: `Always reject ${request.alwaysScope}` },
  ];
}
