import type { ElicitationPropertySchema, ElicitationSchema } from '@agentclientprotocol/sdk';
import type { PermissionRequest } from '../../tools/permissions';

/**
 * The elicitation form a person edits a call's arguments in (see
 * clientAsk). ACP forms hold only plain values, so a tool whose arguments
 * are all strings, numbers or booleans gets one field per argument; any
 * other gets one field holding the arguments as JSON.
 */
export interface EditForm {
  shape: 'fields' | 'json';
  request: { message: string; requestedSchema: ElicitationSchema };
}

/** The field of the JSON-shaped form. */
const JSON_FIELD = 'arguments';

type Plain = 'string' | 'number' | 'integer' | 'boolean';

/**
 * The form for `values`; after an edit that did not fit, `retry` says what
 * was wrong and the form shows what the person typed, not the original.
 */
export function editForm(
  request: PermissionRequest,
  values: Record<string, unknown>,
  retry?: { problem: string; typed: Record<string, unknown>; shape: EditForm['shape'] },
): EditForm {
  const schema = request.editable!.schema;
  const plain = plainProperties(schema, values);
  const shape = retry?.shape ?? (plain ? 'fields' : 'json');
  const what = request.question ? `Change the question, then submit to approve it as changed: ${request.title}` : `Edit the arguments of ${request.tool}, then submit to allow it: ${request.title}`;
  const message = retry ? `Your edit does not fit: ${retry.problem}. Correct it and submit, or cancel to refuse.` : what;
  if (shape === 'fields' && plain) {
    const shown = retry?.typed ?? values;
    const properties: Record<string, ElicitationPropertySchema> = {};
    for (const [name, type] of Object.entries(plain)) properties[name] = field(type, descriptionOf(schema, name), shown[name]);
    return { shape, request: { message, requestedSchema: { type: 'object', properties, required: requiredOf(schema) } } };
  }
  const typed = retry?.typed[JSON_FIELD];
  const text = typeof typed === 'string' ? typed : JSON.stringify(values, null, 2);
  return {
    shape: 'json',
    request: {
      message,
      requestedSchema: {
        type: 'object',
        properties: { [JSON_FIELD]: { type: 'string', title: 'Arguments (JSON)', description: `${request.tool}'s arguments as one JSON object`, default: text } },
        required: [JSON_FIELD],
      },
    },
  };
}

/** The arguments a submitted form holds; a JSON field that is not a JSON object is a problem to show. */
export function editedArguments(form: EditForm, content: Record<string, unknown>): { ok: true; value: Record<string, unknown> } | { ok: false; problem: string } {
  if (form.shape === 'fields') {
    // An optional text field left empty means the argument is left out.
    const required = new Set(form.request.requestedSchema.required ?? []);
    return { ok: true, value: Object.fromEntries(Object.entries(content).filter(([name, value]) => value !== '' || required.has(name))) };
  }
  const text = content[JSON_FIELD];
  if (typeof text !== 'string') return { ok: false, problem: 'the arguments field is empty' };
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return { ok: false, problem: 'the arguments must be one JSON object, {…}' };
    return { ok: true, value: value as Record<string, unknown> };
  } catch (err) {
    return { ok: false, problem: `not JSON: ${(err as Error).message}` };
  }
}

/** Each argument's plain type, when every argument has one and every current value is plain; else undefined. */
function plainProperties(schema: Record<string, unknown>, values: Record<string, unknown>): Record<string, Plain> | undefined {
  const properties = schema.properties;
  if (typeof properties !== 'object' || properties === null) return undefined;
  const plain: Record<string, Plain> = {};
  for (const [name, property] of Object.entries(properties as Record<string, { type?: unknown }>)) {
    const type = property?.type;
    if (type !== 'string' && type !== 'number' && type !== 'integer' && type !== 'boolean') return undefined;
    plain[name] = type;
  }
  const known = Object.keys(plain);
  if (Object.keys(values).some((name) => !known.includes(name))) return undefined;
  return plain;
}

function field(type: Plain, description: string | undefined, value: unknown): ElicitationPropertySchema {
  const about = description !== undefined ? { description } : {};
  switch (type) {
    case 'string':
      return { type, ...about, ...(typeof value === 'string' ? { default: value } : {}) };
    case 'number':
    case 'integer':
      return { type, ...about, ...(typeof value === 'number' ? { default: value } : {}) };
    case 'boolean':
      return { type, ...about, ...(typeof value === 'boolean' ? { default: value } : {}) };
  }
}

function descriptionOf(schema: Record<string, unknown>, name: string): string | undefined {
  const property = (schema.properties as Record<string, { description?: unknown }>)[name];
  return typeof property?.description === 'string' ? property.description : undefined;
}

function requiredOf(schema: Record<string, unknown>): string[] {
  return Array.isArray(schema.required) ? schema.required.filter((name): name is string => typeof name === 'string') : [];
}
