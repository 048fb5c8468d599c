import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type * as TypesModule from '@modelcontextprotocol/sdk/types.js';
import type { ClientCapabilities, CreateMessageResult, ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { errorText } from '../vocabulary/text';
import { type ElicitAnswer, type ElicitForm, elicitForm, ElicitRefusal } from './elicitation-form';
import { type ElicitUrlFn, elicitUrl } from './elicitation-url';
import { type SampleFn, samplingRequest, SamplingRefusal } from './sampling-request';

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

/** A person said no to a server's request: the spec's "user rejected" error goes back. */
export class RequestDenied extends Error {}

/** The JSON-RPC code of a sampling request the person rejected (the MCP specification's example). */
export const USER_REJECTED = -1;

/**
 * Form-mode elicitation answered by `form`, URL mode by `url`, sampling run
 * by `sample`. A request is first read into what Crow can show and run
 * (elicitForm, elicitUrl, samplingRequest: refused with the reason when it is not what the
 * specification allows, or too big). A server has one request of each kind
 * open at a time: one that asks again meanwhile is refused at once, so a
 * flood never queues up in front of the person.
 */
export function clientRequests(handlers: { form?: FormAsker; url?: ElicitUrlFn; sample?: SampleFn }): McpClientRequests {
  const open = new Set<string>();
  const once = async <T>(key: string, what: string, run: () => Promise<T>): Promise<T> => {
    if (open.has(key)) throw refusal(-32600, `Crow takes one ${what} of MCP server "${key.split('\n')[1]}" at a time; this one came while another was open.`);
    open.add(key);
    try {
      return await run();
    } finally {
      open.delete(key);
    }
  };
  return {
    capabilities: {
      ...(handlers.form ? { elicitation: { form: {}, ...(handlers.url ? { url: {} } : {}) } } : {}),
      ...(handlers.sample ? { sampling: {} } : {}),
    },
    install(client, server) {
      // Required, not imported: the SDK loads with the first server (see McpConnection).
      const { CreateMessageRequestSchema, ElicitRequestSchema, ErrorCode } = require('@modelcontextprotocol/sdk/types.js') as typeof TypesModule;
      const { form, url, sample } = handlers;
      if (form) {
        client.setRequestHandler(ElicitRequestSchema, async (request, extra): Promise<ElicitResult> => {
          const { params } = request;
          // The SDK refuses a URL-mode request unless `url` was declared.
          if (params.mode === 'url' && url) {
            const read = readOrRefuse(() => elicitUrl(server, params), ErrorCode.InvalidParams);
            return once(`elicit\n${server}`, 'question', () => url(read, extra.signal));
          }
          const read = readOrRefuse(() => elicitForm(server, params as { message?: unknown; requestedSchema?: unknown }), ErrorCode.InvalidParams);
          return once(`elicit\n${server}`, 'question', () => form(read, extra.signal));
        });
      }
      if (sample) {
        client.setRequestHandler(CreateMessageRequestSchema, async (request, extra): Promise<CreateMessageResult> => {
          const read = readOrRefuse(() => samplingRequest(server, request.params), ErrorCode.InvalidParams);
          return once(`sample\n${server}`, 'model request', async () => {
            try {
              const answer = await sample(read, extra.signal);
              return { role: 'assistant', content: { type: 'text', text: answer.text }, model: answer.model, stopReason: answer.stopReason };
            } catch (err) {
              throw refusal(err instanceof RequestDenied ? USER_REJECTED : ErrorCode.InternalError, errorText(err));
            }
          });
        });
      }
    },
  };
}

function readOrRefuse<T>(read: () => T, code: number): T {
  try {
    return read();
  } catch (err) {
    if (err instanceof ElicitRefusal || err instanceof SamplingRefusal) throw refusal(code, err.message);
    throw err;
  }
}

/** A JSON-RPC error with `code` and exactly `message` (McpError would put "MCP error -326xx:" before it). */
function refusal(code: number, message: string): Error {
  return Object.assign(new Error(message), { code });
}
