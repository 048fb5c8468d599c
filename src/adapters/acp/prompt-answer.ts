/** How a prompt request is answered in the protocol's terms: its stop reason, or the JSON-RPC error. */
import type { StopReason } from '@agentclientprotocol/sdk';
import type { HostError } from '../../host/host-error';
import type { TurnStopReason } from '../../engine/events';
import type { PromptOutcome } from '../../host/prompt-run';
import { requestErrors } from './request-errors';

/** The JSON-RPC error for a prompt the host would not start. */
export function requestError(err: HostError): Error {
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

/**
 * How the client reads a run's end: its stop reason, or, for a run that
 * failed (the model's server refused or broke), a failed request: the client
 * shows the error as an error, and what the agents said before it stays
 * their message. `undefined`: the run crashed, which the session has told.
 */
export function promptAnswer(result: PromptOutcome | undefined, lastPrimaryStop: TurnStopReason | undefined): StopReason {
  switch (result?.status) {
    case undefined:
    case 'completed':
      return 'end_turn';
    case 'error':
      throw requestErrors.internal(result.message);
    case 'needs_input':
      if (lastPrimaryStop === 'max_tokens') return 'max_tokens';
      return lastPrimaryStop === 'refused' ? 'refusal' : 'end_turn';
    case 'limit':
      return 'max_turn_requests';
    // The protocol has no stop reason for a spending limit; max_tokens ("the token limit was reached") is the nearest.
    case 'budget':
      return 'max_tokens';
    case 'cancelled':
      return 'cancelled';
  }
}
