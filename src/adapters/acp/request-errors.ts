import { RequestError } from '@agentclientprotocol/sdk';

/** JSON-RPC errors the server answers with, each carrying a message a person can act on. */
export const requestErrors = {
  invalidParams: (message: string): RequestError => RequestError.invalidParams(undefined, message),
  invalidRequest: (message: string): RequestError => RequestError.invalidRequest(undefined, message),
  authRequired: (message: string): RequestError => RequestError.authRequired(undefined, message),
  internal: (message: string): RequestError => RequestError.internalError(undefined, message),
  /** A stored session another process writes to (a SessionInUseError's message says which and what to do). */
  sessionInUse: (sessionId: string, message: string): RequestError => new RequestError(-32600, message, { sessionId }),
  /** -32002 with `data.sessionId`, as the protocol asks for unknown sessions. */
  unknownSession: (sessionId: string): RequestError =>
    new RequestError(-32002, `Unknown session ${shown(sessionId)}: create one with session/new, or list them with session/list.`, { sessionId }),
};

/** The longest a value the client sent is shown in a message or a log line. */
const SHOWN_CHARS = 100;

/**
 * A value the client sent, as a message shows it: JSON, cut after
 * SHOWN_CHARS. A client's mistake is named, not echoed whole (a 5 MB value
 * would otherwise come back in the error and fill the log).
 */
export function shown(value: unknown): string {
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = String(value);
  }
  return text.length > SHOWN_CHARS ? `${text.slice(0, SHOWN_CHARS - 1)}… (${text.length.toLocaleString('en-US')} characters)` : text;
}

export { errorText } from '../../vocabulary/text';
