import type { CreateElicitationRequest, CreateElicitationResponse, ElicitationPropertySchema } from '@agentclientprotocol/sdk';
import type { ElicitAnswer, ElicitField, ElicitFn, ElicitForm, ElicitValue } from '../../mcp/elicitation-form';

/** Sends elicitation/create to the client (one that advertised form elicitation). */
export type ElicitRequester = (params: CreateElicitationRequest, signal: AbortSignal) => Promise<CreateElicitationResponse>;

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
