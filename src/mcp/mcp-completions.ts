/**
 * `completion/complete`: what a server suggests for an argument of one of
 * its prompts or a variable of one of its resource templates, given what
 * the person typed so far (MCP specification, server/utilities/completion).
 * Asked only of a server that declares `completions`. What comes back is the
 * server's text: at most the specification's 100 values, each clipped, its
 * control characters shown as marks, duplicates and non-text dropped.
 */
import * as z from 'zod';
import { onFirstUse } from '../vocabulary/first-use';
import { clip, shownText } from '../vocabulary/text';
import type { McpConnection } from './mcp-connection';

/** What is being completed: a prompt by name, or a resource template by its URI template. */
export type CompletionRef = { type: 'ref/prompt'; name: string } | { type: 'ref/resource'; uri: string };

/** One request for completions. */
export interface CompletionQuery {
  ref: CompletionRef;
  /** The argument's (or template variable's) name. */
  argument: string;
  /** What the person typed of it so far ('' for nothing yet). */
  value: string;
  /** The values of the arguments already given, which a server may narrow by (context.arguments). */
  arguments?: Record<string, string>;
}

/** The server's suggestions. */
export interface Completions {
  /** At most MAX_COMPLETION_VALUES, each at most MAX_COMPLETION_CHARS, safe to show. */
  values: string[];
  /** How many the server says there are in all, when it says. */
  total?: number;
  /** Whether there are more than `values` (the server said so, or Crow cut the list). */
  hasMore: boolean;
}

/** The specification's cap on one answer's values. */
export const MAX_COMPLETION_VALUES = 100;
/** Characters of one value kept. */
export const MAX_COMPLETION_CHARS = 200;

export const NO_COMPLETIONS: Completions = Object.freeze({ values: [], hasMore: false }) as Completions;

/**
 * Read leniently and cut here rather than refused: a server that sends 101
 * values, or a number where a text belongs, still helps with the rest.
 */
const LenientResult = onFirstUse(() =>
  z.looseObject({
    completion: z.looseObject({ values: z.array(z.unknown()), total: z.unknown().optional(), hasMore: z.unknown().optional() }),
  }),
);

/** The server's completions for `query`; none from a server without `completions`. Throws, naming the server, when it fails. */
export async function completeArgument(connection: McpConnection, query: CompletionQuery, signal?: AbortSignal): Promise<Completions> {
  const params = {
    ref: query.ref,
    argument: { name: query.argument, value: query.value },
    ...(query.arguments && Object.keys(query.arguments).length > 0 ? { context: { arguments: query.arguments } } : {}),
  };
  const result = await connection.request(
    'completions',
    `complete ${query.argument}`,
    (client, options) => client.request({ method: 'completion/complete', params }, LenientResult(), options),
    signal,
  );
  return result === undefined ? NO_COMPLETIONS : completionsOf(result.completion);
}

/** The server's answer made safe: text values only, each once, clipped and visible, at most MAX_COMPLETION_VALUES. */
export function completionsOf(completion: { values: unknown[]; total?: unknown; hasMore?: unknown }): Completions {
  const texts = completion.values.filter((value): value is string => typeof value === 'string');
  const values = [...new Set(texts.map((value) => clip(shownText(value).replace(/\n/g, '\\n'), MAX_COMPLETION_CHARS)))];
  const kept = values.slice(0, MAX_COMPLETION_VALUES);
  const total = typeof completion.total === 'number' && Number.isInteger(completion.total) && completion.total >= 0 ? completion.total : undefined;
  const hasMore = completion.hasMore === true || values.length > kept.length || (total !== undefined && total > kept.length);
  return { values: kept, ...(total !== undefined ? { total } : {}), hasMore };
}
