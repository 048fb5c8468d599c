/**
 * A server's elicitation/create in form mode, read into a form Crow can ask
 * a person, and the person's answer checked against it. The server is
 * untrusted: the schema must be the flat object of plain fields the MCP
 * specification allows (text, number, yes/no, one choice, several choices),
 * within size caps; anything else is refused with a message that says why.
 * Every text a door shows comes from here with its control characters
 * made visible, so a message cannot move a terminal's cursor or pass as
 * markup.
 */
import { shownText } from '../vocabulary/text';

export { shownText };

/** One question of the form. `name` is the key of the answer's content. */
export type ElicitField = {
  name: string;
  title: string;
  description?: string;
  required: boolean;
} & (
  | { kind: 'text'; format?: 'email' | 'uri' | 'date' | 'date-time'; minLength?: number; maxLength?: number; default?: string }
  | { kind: 'number'; integer: boolean; minimum?: number; maximum?: number; default?: number }
  | { kind: 'boolean'; default?: boolean }
  | { kind: 'choice'; options: ElicitOption[]; default?: string }
  | { kind: 'choices'; options: ElicitOption[]; minItems?: number; maxItems?: number; default?: string[] }
);

export interface ElicitOption {
  value: string;
  label: string;
}

/** What a server asks: its name, its message and the questions, all safe to show. */
export interface ElicitForm {
  server: string;
  message: string;
  fields: ElicitField[];
}

export type ElicitValue = string | number | boolean | string[];

/** The spec's three actions; content only with accept. */
export type ElicitAnswer = { action: 'accept'; content: Record<string, ElicitValue> } | { action: 'decline' } | { action: 'cancel' };

/** Asks the person a form; resolves `cancel` when `signal` aborts. */
export type ElicitFn = (form: ElicitForm, signal: AbortSignal) => Promise<ElicitAnswer>;

/** A request Crow will not ask: the message says why, naming the server. */
export class ElicitRefusal extends Error {}

export const ELICIT_LIMITS = {
  messageChars: 4_000,
  fields: 30,
  options: 100,
  /** Titles, descriptions, option labels and values, field names. */
  textChars: 500,
  /** A text answer or a default. */
  answerChars: 10_000,
} as const;

const FORMATS = new Set(['email', 'uri', 'date', 'date-time']);

/** The form of `params` (elicitation/create's), or an ElicitRefusal naming `server`. */
export function elicitForm(server: string, params: { message?: unknown; requestedSchema?: unknown }): ElicitForm {
  const refuse = (why: string): never => {
    throw new ElicitRefusal(`MCP server "${server}" asked for input Crow cannot ask: ${why}`);
  };
  if (typeof params.message !== 'string') return refuse('it sent no message');
  if (params.message.length > ELICIT_LIMITS.messageChars) return refuse(`its message is over ${ELICIT_LIMITS.messageChars} characters`);
  const schema = record(params.requestedSchema) ?? refuse('its requestedSchema is not an object');
  if (schema.type !== 'object') return refuse('its requestedSchema is not of type "object"');
  const properties = record(schema.properties) ?? refuse('its requestedSchema has no properties');
  const names = Object.keys(properties);
  if (names.length > ELICIT_LIMITS.fields) return refuse(`it asks ${names.length} questions; at most ${ELICIT_LIMITS.fields} are asked`);
  const required = new Set(Array.isArray(schema.required) ? schema.required.filter((name): name is string => typeof name === 'string') : []);
  const fields = names.map((name) => {
    if (name.length > ELICIT_LIMITS.textChars) return refuse('a field name is too long');
    try {
      return fieldOf(name, record(properties[name]) ?? {}, required.has(name));
    } catch (err) {
      return refuse(`field "${shownText(name)}": ${(err as Error).message}`);
    }
  });
  return { server, message: shownText(params.message), fields };
}

/** What is wrong with `content` as an answer to `form`, or undefined when it fits. */
export function answerProblem(form: ElicitForm, content: Record<string, unknown>): string | undefined {
  const known = new Set(form.fields.map((field) => field.name));
  const stray = Object.keys(content).find((name) => !known.has(name));
  if (stray !== undefined) return `"${shownText(stray)}" is not one of the questions`;
  for (const field of form.fields) {
    const value = content[field.name];
    if (value === undefined) {
      if (field.required) return `${field.title} is required`;
      continue;
    }
    const problem = valueProblem(field, value);
    if (problem !== undefined) return `${field.title}: ${problem}`;
  }
  return undefined;
}

/** What is wrong with `value` for `field`, or undefined. */
export function valueProblem(field: ElicitField, value: unknown): string | undefined {
  switch (field.kind) {
    case 'text': {
      if (typeof value !== 'string') return 'must be text';
      if (value.length > ELICIT_LIMITS.answerChars) return `at most ${ELICIT_LIMITS.answerChars} characters`;
      if (field.minLength !== undefined && value.length < field.minLength) return `at least ${field.minLength} characters`;
      if (field.maxLength !== undefined && value.length > field.maxLength) return `at most ${field.maxLength} characters`;
      return field.format !== undefined && !FORMAT_CHECKS[field.format](value) ? `not a valid ${field.format}` : undefined;
    }
    case 'number': {
      if (typeof value !== 'number' || !Number.isFinite(value)) return 'must be a number';
      if (field.integer && !Number.isInteger(value)) return 'must be a whole number';
      if (field.minimum !== undefined && value < field.minimum) return `at least ${field.minimum}`;
      return field.maximum !== undefined && value > field.maximum ? `at most ${field.maximum}` : undefined;
    }
    case 'boolean':
      return typeof value === 'boolean' ? undefined : 'must be yes or no';
    case 'choice':
      return typeof value === 'string' && field.options.some((option) => option.value === value) ? undefined : 'not one of the choices';
    case 'choices': {
      if (!Array.isArray(value) || value.some((item) => !field.options.some((option) => option.value === item))) return 'not among the choices';
      if (new Set(value).size !== value.length) return 'a choice is repeated';
      if (field.minItems !== undefined && value.length < field.minItems) return `choose at least ${field.minItems}`;
      return field.maxItems !== undefined && value.length > field.maxItems ? `choose at most ${field.maxItems}` : undefined;
    }
  }
}

const FORMAT_CHECKS: Record<'email' | 'uri' | 'date' | 'date-time', (value: string) => boolean> = {
  email: (value) => /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(value),
  uri: (value) => /^[a-z][a-z0-9+.-]*:\S+$/i.test(value),
  date: (value) => /^\d{4}-\d{2}-\d{2}$/.test(value) && !Number.isNaN(Date.parse(value)),
  'date-time': (value) => /^\d{4}-\d{2}-\d{2}T/.test(value) && !Number.isNaN(Date.parse(value)),
};

function fieldOf(name: string, schema: Record<string, unknown>, required: boolean): ElicitField {
  const base = {
    name,
    title: shownText(short(schema.title) ?? name),
    ...(short(schema.description) !== undefined ? { description: shownText(short(schema.description)!) } : {}),
    required,
  };
  const field = plainFieldOf(schema, base);
  if (schema.default !== undefined && valueProblem(field, schema.default) === undefined) return { ...field, default: schema.default } as ElicitField;
  return field;
}

function plainFieldOf(schema: Record<string, unknown>, base: Pick<ElicitField, 'name' | 'title' | 'description' | 'required'>): ElicitField {
  switch (schema.type) {
    case 'string': {
      const options = optionsOf(schema);
      if (options) return { ...base, kind: 'choice', options };
      const format = typeof schema.format === 'string' && FORMATS.has(schema.format) ? (schema.format as 'email') : undefined;
      return { ...base, kind: 'text', ...(format ? { format } : {}), ...bound('minLength', schema.minLength), ...bound('maxLength', schema.maxLength) };
    }
    case 'number':
    case 'integer':
      return { ...base, kind: 'number', integer: schema.type === 'integer', ...bound('minimum', schema.minimum), ...bound('maximum', schema.maximum) };
    case 'boolean':
      return { ...base, kind: 'boolean' };
    case 'array': {
      const options = optionsOf(record(schema.items) ?? {});
      if (!options) throw new Error('a list that is not a list of choices');
      return { ...base, kind: 'choices', options, ...bound('minItems', schema.minItems), ...bound('maxItems', schema.maxItems) };
    }
    default:
      throw new Error(`type ${JSON.stringify(schema.type) ?? 'missing'} is not text, number, boolean or a choice`);
  }
}

/** The choices of an enum (with enumNames), a oneOf or an anyOf of {const, title}; undefined when it has none. */
function optionsOf(schema: Record<string, unknown>): ElicitOption[] | undefined {
  const titled = Array.isArray(schema.oneOf) ? schema.oneOf : Array.isArray(schema.anyOf) ? schema.anyOf : undefined;
  let options: ElicitOption[] | undefined;
  if (Array.isArray(schema.enum)) {
    const labels = Array.isArray(schema.enumNames) ? schema.enumNames : [];
    options = schema.enum.map((value, i) => option(value, labels[i]));
  } else if (titled) {
    options = titled.map((entry) => option(record(entry)?.const, record(entry)?.title));
  }
  if (options === undefined) return undefined;
  if (options.length === 0) throw new Error('a choice with no options');
  if (options.length > ELICIT_LIMITS.options) throw new Error(`over ${ELICIT_LIMITS.options} options`);
  return options;
}

function option(value: unknown, label: unknown): ElicitOption {
  if (typeof value !== 'string' || value.length > ELICIT_LIMITS.textChars) throw new Error('an option that is not short text');
  return { value, label: shownText(short(label) ?? value) };
}

function bound<K extends string>(key: K, value: unknown): Partial<Record<K, number>> {
  return typeof value === 'number' && Number.isFinite(value) ? ({ [key]: value } as Record<K, number>) : {};
}

function short(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  if (value.length > ELICIT_LIMITS.textChars) throw new Error(`a title or description over ${ELICIT_LIMITS.textChars} characters`);
  return value;
}

function record(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}
