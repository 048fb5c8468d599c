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
    new RequestError(-32002, `Unknown session "${sessionId}": create one with session/new, or list them with session/list.`, { sessionId }),
};

export { errorText } from '../../vocabulary/text';
