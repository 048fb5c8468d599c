import type { ClientCapabilities, CreateElicitationRequest, CreateElicitationResponse, ElicitationPropertySchema } from '@agentclientprotocol/sdk';
import type { HostSessionOptions } from '../../host/session-options';
import type { ElicitAnswer, ElicitField, ElicitFn, ElicitForm, ElicitValue } from '../../mcp/elicitation-form';
import type { ElicitUrlFn } from '../../mcp/elicitation-url';

/** Sends elicitation/create to the client (one that advertised form elicitation). */
export type ElicitRequester = (params: CreateElicitationRequest, signal: AbortSignal) => Promise<CreateElicitationResponse>;

/** What an ACP session answers MCP servers' elicitations with: the client's own forms and pages where it offers them. */
export function mcpElicitation(
  sessionId: string,
  services: { capabilities?: ClientCapabilities | undefined; client: { request(method: 'elicitation/create', params: CreateElicitationRequest, options: object): Promise<CreateElicitationResponse> } },
): Pick<HostSessionOptions, 'elicit' | 'elicitUrl' | 'elicitUnavailable'> {
  const offered = services.capabilities?.elicitation;
  const request: ElicitRequester = (params, signal) => services.client.request('elicitation/create', params, { cancellationSignal: signal, stopWaitingOnCancel: true });
  if (!offered?.form) return { elicitUnavailable: 'this ACP client offers no forms (elicitation), so Crow cannot ask you' };
  return { elicit: clientElicit(sessionId, request), ...(offered.url ? { elicitUrl: clientElicitUrl(sessionId, request) } : {}) };
}

/**
 * An MCP server's form asked through the ACP client's own elicitation: the
 * same questions, rebuilt from the checked form (never the server's schema
 * as sent), under a message that names the server. The host checks the
 * answer against the form; an action the protocol does not name counts as
 * cancel.
 */
export function clientElicit(sessionId: string, request: ElicitRequester): ElicitFn {
  return async (form, signal) => {
    const response = await request(
      { mode: 'form', sessionId, message: `MCP server "${form.server}" asks: ${form.message}`, requestedSchema: schemaOf(form) },
      signal,
    );
    return answerOf(response);
  };
}

/** A page an MCP server asks the person to open, passed to a client that offers URL elicitation, the domain named first. */
export function clientElicitUrl(sessionId: string, request: ElicitRequester): ElicitUrlFn {
  return async (asked, signal) => {
    const message = `MCP server "${asked.server}" asks you to open a page on ${asked.domain}: ${asked.message}`;
    const response = await request({ mode: 'url', sessionId, message, url: asked.url, elicitationId: asked.elicitationId }, signal);
    return response.action === 'accept' || response.action === 'decline' ? { action: response.action } : { action: 'cancel' };
  };
}

function answerOf(response: CreateElicitationResponse): ElicitAnswer {
  if (response.action === 'decline') return { action: 'decline' };
  if (response.action !== 'accept') return { action: 'cancel' };
  const content = (response as { content?: Record<string, ElicitValue> | null }).content ?? {};
  return { action: 'accept', content };
}

function schemaOf(form: ElicitForm): Extract<CreateElicitationRequest, { mode: 'form' }>['requestedSchema'] {
  const properties: Record<string, ElicitationPropertySchema> = {};
  for (const field of form.fields) properties[field.name] = propertyOf(field);
  return { type: 'object', properties, required: form.fields.filter((field) => field.required).map((field) => field.name) };
}

function propertyOf(field: ElicitField): ElicitationPropertySchema {
  const about = { title: field.title, ...(field.description !== undefined ? { description: field.description } : {}) };
  const given = <T>(key: string, value: T | undefined): Record<string, T> => (value === undefined ? {} : { [key]: value });
  switch (field.kind) {
    case 'text':
      return { type: 'string', ...about, ...given('format', field.format), ...given('minLength', field.minLength), ...given('maxLength', field.maxLength), ...given('default', field.default) };
    case 'number':
      return { type: field.integer ? 'integer' : 'number', ...about, ...given('minimum', field.minimum), ...given('maximum', field.maximum), ...given('default', field.default) };
    case 'boolean':
      return { type: 'boolean', ...about, ...given('default', field.default) };
    case 'choice':
      return { type: 'string', ...about, oneOf: field.options.map((option) => ({ const: option.value, title: option.label })), ...given('default', field.default) };
    case 'choices':
      return {
        type: 'array',
        ...about,
        items: { anyOf: field.options.map((option) => ({ const: option.value, title: option.label })) },
        ...given('minItems', field.minItems),
        ...given('maxItems', field.maxItems),
        ...given('default', field.default),
      };
  }
}
