/**
 * A provider's table in config.toml (`[providers.NAME]`): the kinds of
 * provider and of OpenAI-compatible server Crow speaks, and the schema of
 * the table and of its models, in the file's own spelling. Keys are never
 * stored, only the names of the variables that hold them (ApiKeyEnv).
 */
import * as z from 'zod';
import { onFirstUse } from '../vocabulary/first-use';

/**
 * `openai`: Chat Completions (OpenAI and compatible servers); `openai-responses`: OpenAI's Responses API;
 * `bedrock`, `vertex`: Claude on Amazon Bedrock and Google Vertex AI;
 * `vscode`: the language models VS Code offers (Copilot's, other extensions'), which only Crow's VS Code extension can reach.
 */
export const PROVIDER_KINDS = ['anthropic', 'openai', 'openai-responses', 'bedrock', 'vertex', 'vscode'] as const;
export type ProviderKind = (typeof PROVIDER_KINDS)[number];

/** Whether a provider of `kind` speaks Anthropic's Messages API: Anthropic's own, or Claude on Amazon Bedrock or Google Vertex AI. */
export function speaksMessagesApi(kind: ProviderKind | undefined): boolean {
  return kind === 'anthropic' || kind === 'bedrock' || kind === 'vertex';
}

/**
 * Which server an OpenAI-compatible provider is: what decides the field that
 * carries the output cap and how a tool-less answer is asked for (see
 * llm/openai-flavor.ts). `generic`: any other compatible server.
 */
export const SERVER_FLAVORS = ['openai', 'azure', 'openrouter', 'ollama', 'llama.cpp', 'vllm', 'lmstudio', 'deepseek', 'gemini', 'generic'] as const;
export type ServerFlavor = (typeof SERVER_FLAVORS)[number];

/** Something that reads like a secret rather than a variable name: a vendor prefix, or a long mix of letters and digits. */
function looksLikeKey(value: string): boolean {
  return /^(sk|pk|ak|rk)[-_]/i.test(value) || (value.length >= 24 && /[a-z]/.test(value) && /\d/.test(value) && !value.includes('_'));
}

/** The name of an environment variable holding a key, never the key itself. */
export const ApiKeyEnv = onFirstUse(() =>
  z.string().superRefine((value, ctx) => {
    if (looksLikeKey(value)) {
      ctx.addIssue({
        code: 'custom',
        message: 'this looks like an API key itself. Put the key in an environment variable and give that variable\'s name here, e.g. MY_API_KEY.',
      });
    } else if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(value)) {
      ctx.addIssue({ code: 'custom', message: 'must be the name of an environment variable, e.g. MY_API_KEY.' });
    }
  }),
);

/** What a model can do and what it costs (US dollars per million tokens). */
const ModelSchema = onFirstUse(() =>
  z
    .object({
      context_window: z.number().int().positive().optional(),
      /** The most output tokens the model produces in one answer, thinking included: requests are fitted under it. */
      output_cap: z.number().int().positive().optional(),
      tools: z.boolean().optional(),
      vision: z.boolean().optional(),
      thinking: z.boolean().optional(),
      /** Whether the model takes a sampling temperature; false for models that refuse one (reasoning models). */
      temperature: z.boolean().optional(),
      input_per_mtok: z.number().min(0).optional(),
      output_per_mtok: z.number().min(0).optional(),
      cache_read_per_mtok: z.number().min(0).optional(),
      cache_write_per_mtok: z.number().min(0).optional(),
    })
    .strict(),
);

export const ProviderSchema = onFirstUse(() =>
  z
    .object({
      type: z.enum(PROVIDER_KINDS).optional(),
      base_url: z.url().optional(),
      api_key_env: ApiKeyEnv().optional(),
      /** For type openai: which server it is; default: told from base_url. */
      flavor: z.enum(SERVER_FLAVORS).optional(),
      /** For type bedrock (the AWS region) and vertex (the Google Cloud region, or "global"). */
      region: z.string().regex(/^[a-z0-9-]+$/, 'a region such as us-east-1, us-east5 or global').optional(),
      /** For type vertex: the Google Cloud project. */
      project_id: z.string().regex(/^[a-z0-9][a-z0-9-]*$/, 'a Google Cloud project id such as my-project-123').optional(),
      default_model: z.string().min(1).optional(),
      models: z.record(z.string().min(1), ModelSchema()).optional(),
    })
    .strict(),
);

export type ProviderDocument = z.infer<ReturnType<typeof ProviderSchema>>;
