import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type * as TypesModule from '@modelcontextprotocol/sdk/types.js';
import type { ClientCapabilities, ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { type ElicitAnswer, type ElicitForm, elicitForm, ElicitRefusal } from './elicitation-form';

/**
 * What Crow's MCP client answers when a server asks it something: the
 * capabilities it declares at initialize, and the handlers that answer.
 * Declared only with a handler behind it.
 */
export interface McpClientRequests {
  capabilities: ClientCapabilities;
  /** Puts the handlers on a new Client of server `server` (before it connects). */
  install(client: Client, server: string): void;
}

/** Answers one form of one server; `signal` aborts when the server cancels its request. */
export type FormAsker = (form: ElicitForm, signal: AbortSignal) => Promise<ElicitAnswer>;

/** Declares nothing and answers nothing: a session whose door asks no one anything. */
export const NO_CLIENT_REQUESTS: McpClientRequests = { capabilities: {}, install: () => undefined };

/**
 * Form-mode elicitation answered by `ask`. The request is read into a form
 * (elicitForm: refused with the reason when it is not the flat form the
 * specification allows, or too big); a server asks one question at a time,
 * and one that asks again while its first is open is refused at once (a
 * flood never queues up in front of the person).
 */
export function elicitationRequests(ask: FormAsker): McpClientRequests {
  const asking = new Set<string>();
  return {
    capabilities: { elicitation: { form: {} } },
    install(client, server) {
      // Required, not imported: the SDK loads with the first server (see McpConnection).
      const { ElicitRequestSchema, ErrorCode } = require('@modelcontextprotocol/sdk/types.js') as typeof TypesModule;
      client.setRequestHandler(ElicitRequestSchema, async (request, extra): Promise<ElicitResult> => {
        let form: ElicitForm;
        try {
          form = elicitForm(server, request.params);
        } catch (err) {
          if (err instanceof ElicitRefusal) throw refusal(ErrorCode.InvalidParams, err.message);
          throw err;
        }
        if (asking.has(server)) {
          throw refusal(ErrorCode.InvalidRequest, `Crow asks the person one question of MCP server "${server}" at a time; this one came while another was open.`);
        }
        asking.add(server);
        try {
          return await ask(form, extra.signal);
        } finally {
          asking.delete(server);
        }
      });
    },
  };
}

/** A JSON-RPC error with `code` and exactly `message` (McpError would put "MCP error -326xx:" before it). */
function refusal(code: number, message: string): Error {
  return Object.assign(new Error(message), { code });
}
