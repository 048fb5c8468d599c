import * as z from 'zod';
import type { Tool } from './tool';
import type { ToolDefinition } from './tool-definition';
import { ToolCall } from './tool-call';
import { builtinToolSchema } from '../config/builtin-snapshot';
import { onFirstUse } from '../vocabulary/first-use';

/** Default cap on what one tool call returns to the model, in characters. */
export const DEFAULT_MAX_OUTPUT_CHARS = 50_000;

export type { ApprovalText, ToolDefinition } from './tool-definition';

/**
 * Builds a Tool from a zod schema and its logic. What every call goes
 * through (parsing, the permission check, the record for undo, output
 * capping, progress, timing, failures turned into results) is the pipeline
 * of tool-call.ts, so each tool file holds only what the tool does.
 */
export function defineTool<Schema extends z.ZodObject>(def: ToolDefinition<Schema>): Tool {
  const { parameters: given } = def;
  const parameters = typeof given === 'function' ? onFirstUse(given) : () => given;
  // Derived on first use: a run sends only its agent's tools, and deriving every tool's schema at load slowed start-up.
  const schema = onFirstUse(() => builtinToolSchema(__dirname, def.name, def.description) ?? jsonSchemaOf(parameters()));
  const maxOutputChars = def.maxOutputChars ?? DEFAULT_MAX_OUTPUT_CHARS;
  const summarize = (args: z.infer<Schema>): string => (def.summarize ? def.summarize(args) : summarizeJson(args));
  const safeArgs = (args: unknown): z.infer<Schema> | undefined => {
    const parsed = parameters().safeParse(args);
    return parsed.success ? parsed.data : undefined;
  };

  const tool: Tool = {
    name: def.name,
    description: def.description,
    kind: def.kind,
    permission: def.permission,
    ...(def.parallel ? { parallel: true } : {}),
    ...(def.readOnly ? { readOnly: true } : {}),
    get inputSchema() {
      return schema();
    },
    summarize(args) {
      const parsed = safeArgs(args);
      return parsed ? summarize(parsed) : summarizeJson(args);
    },
    locations(args) {
      const parsed = safeArgs(args);
      return parsed && def.locations ? def.locations(parsed) : [];
    },
    prepare(workspace) {
      // Builds the schema, and a first parse compiles zod's object parser: the few ms a process's first call would spend.
      parameters().safeParse({});
      def.prepare?.(workspace);
    },
    run(rawArguments, ctx) {
      return new ToolCall({ def, tool, parameters, schema, summarize, maxOutputChars }, ctx).run(rawArguments);
    },
  };
  return tool;
}

/** The JSON Schema the model is given for a tool's parameters (draft 7, as the arguments come in). */
function jsonSchemaOf(parameters: z.ZodObject): Record<string, unknown> {
  const schema = z.toJSONSchema(parameters, { target: 'draft-7', io: 'input' }) as Record<string, unknown>;
  delete schema.$schema;
  return schema;
}

function summarizeJson(args: unknown): string {
  const text = JSON.stringify(args) ?? '';
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}
