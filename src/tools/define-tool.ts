import { z } from 'zod';
import type { Tool, ToolContext, ToolKind, ToolLocation, ToolOutput, ToolResult } from './tool';

/** Default cap on what one tool call returns to the model, in characters. */
export const DEFAULT_MAX_OUTPUT_CHARS = 50_000;

export interface ToolDefinition<Schema extends z.ZodObject> {
  name: string;
  description: string;
  kind: ToolKind;
  parameters: Schema;
  /** Overrides DEFAULT_MAX_OUTPUT_CHARS for this tool. */
  maxOutputChars?: number;
  summarize?: (args: z.infer<Schema>) => string;
  locations?: (args: z.infer<Schema>) => ToolLocation[];
  /** The tool's own logic. Throwing is fine: the error becomes a result the model reads. */
  execute(args: z.infer<Schema>, ctx: ToolContext): Promise<ToolOutput>;
}

/**
 * Builds a Tool from a zod schema and its logic. Parsing, validation, output
 * capping, timing and turning failures into results all live here, so each
 * tool file holds only what the tool does.
 */
export function defineTool<Schema extends z.ZodObject>(def: ToolDefinition<Schema>): Tool {
  const inputSchema = z.toJSONSchema(def.parameters, { target: 'draft-7', io: 'input' }) as Record<string, unknown>;
  delete inputSchema.$schema;
  const maxOutputChars = def.maxOutputChars ?? DEFAULT_MAX_OUTPUT_CHARS;
  const safeArgs = (args: unknown): z.infer<Schema> | undefined => {
    const parsed = def.parameters.safeParse(args);
    return parsed.success ? parsed.data : undefined;
  };

  return {
    name: def.name,
    description: def.description,
    kind: def.kind,
    inputSchema,
    summarize(args) {
      const parsed = safeArgs(args);
      return parsed && def.summarize ? def.summarize(parsed) : summarizeJson(args);
    },
    locations(args) {
      const parsed = safeArgs(args);
      return parsed && def.locations ? def.locations(parsed) : [];
    },
    async run(rawArguments, ctx) {
      const started = performance.now();
      const finish = (partial: Omit<ToolResult, 'metadata'>, out?: ToolOutput): ToolResult => ({
        ...partial,
        output: capOutput(partial.output, maxOutputChars),
        metadata: {
          filesModified: out?.filesModified ?? [],
          ...(out?.diff !== undefined ? { diff: out.diff } : {}),
          durationMs: Math.round(performance.now() - started),
          extra: out?.extra ?? {},
        },
      });

      const args = parseArguments(def.name, def.parameters, rawArguments);
      if (!args.ok) return finish({ status: 'error', output: '', error: args.error });
      if (ctx.signal.aborted) return finish({ status: 'cancelled', output: '', error: 'Cancelled before it started.' });

      try {
        const out = await def.execute(args.value, ctx);
        if (ctx.signal.aborted) {
          return finish({ status: 'cancelled', output: out.output, error: 'Cancelled by the user.' }, out);
        }
        if (out.error !== undefined) return finish({ status: 'error', output: out.output, error: out.error }, out);
        return finish({ status: 'success', output: out.output }, out);
      } catch (err) {
        if (ctx.signal.aborted) return finish({ status: 'cancelled', output: '', error: 'Cancelled by the user.' });
        return finish({ status: 'error', output: '', error: errorMessage(err) });
      }
    },
  };
}

type Parsed<T> = { ok: true; value: T } | { ok: false; error: string };

function parseArguments<Schema extends z.ZodObject>(
  tool: string,
  schema: Schema,
  raw: string,
): Parsed<z.infer<Schema>> {
  let json: unknown;
  try {
    json = raw.trim() === '' ? {} : JSON.parse(raw);
  } catch (err) {
    return {
      ok: false,
      error: `Invalid arguments for ${tool}: not valid JSON (${errorMessage(err)}). Send the arguments as one JSON object.`,
    };
  }
  const parsed = schema.safeParse(json);
  if (parsed.success) return { ok: true, value: parsed.data };
  const problems = parsed.error.issues.map((issue) => {
    const field = issue.path.length > 0 ? issue.path.join('.') : '(arguments)';
    return `${field}: ${issue.message}`;
  });
  return { ok: false, error: `Invalid arguments for ${tool}: ${problems.join('; ')}.` };
}

/** Keeps the head and tail of an over-long output with a note of what was cut. */
export function capOutput(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  const head = Math.floor(maxChars * 0.6);
  const tail = maxChars - head;
  const omitted = text.length - head - tail;
  return `${text.slice(0, head)}\n\n[… ${omitted} characters omitted …]\n\n${text.slice(text.length - tail)}`;
}

export function errorMessage(err: unknown): string {
  if (err instanceof Error) return err.message;
  return String(err);
}

function summarizeJson(args: unknown): string {
  const text = JSON.stringify(args) ?? '';
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}
