import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { didYouMean } from './did-you-mean';
import { configHome, projectConfigDir } from './paths';

export const PROVIDER_KINDS = ['anthropic', 'openai'] as const;
export type ProviderKind = (typeof PROVIDER_KINDS)[number];

const DEFAULT_MODELS: Record<ProviderKind, string> = {
  anthropic: 'claude-sonnet-4-5',
  openai: 'gpt-4.1',
};

const KEY_VARIABLES: Record<ProviderKind, string> = {
  anthropic: 'ANTHROPIC_API_KEY',
  openai: 'OPENAI_API_KEY',
};

const BASE_URL_VARIABLES: Record<ProviderKind, string> = {
  anthropic: 'ANTHROPIC_BASE_URL',
  openai: 'OPENAI_BASE_URL',
};

const RuleSchema = z.enum(['allow', 'ask', 'deny']);

/** allow / ask / deny per category, and command prefixes that run without asking. */
const PermissionsSchema = z
  .object({
    read: RuleSchema.optional(),
    write: RuleSchema.optional(),
    execute: RuleSchema.optional(),
    network: RuleSchema.optional(),
    allowCommands: z.array(z.string().min(1)).optional(),
  })
  .strict();

/** The settings file schema (`config.json`, global and per project). API keys are never stored here. */
const ConfigFileSchema = z
  .object({
    provider: z.enum(PROVIDER_KINDS).optional(),
    model: z.string().min(1).optional(),
    baseUrl: z.url().optional(),
    /** Name of the environment variable that holds the key, e.g. "MY_PROXY_KEY". */
    apiKeyEnv: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/).optional(),
    maxIterations: z.number().int().positive().optional(),
    doomLoopThreshold: z.number().int().min(2).optional(),
    maxRetries: z.number().int().min(0).max(10).optional(),
    idleTimeoutMs: z.number().int().positive().optional(),
    maxOutputTokens: z.number().int().positive().optional(),
    thinkingBudget: z.number().int().min(0).optional(),
    /** Whether the model can see images; default yes for Anthropic and OpenAI, no for other compatible servers. */
    images: z.boolean().optional(),
    permissions: PermissionsSchema.optional(),
  })
  .strict();

export type ConfigFile = z.infer<typeof ConfigFileSchema>;
const CONFIG_KEYS = Object.keys(ConfigFileSchema.shape);

/** Everything needed to build a provider and an agent's limits. */
export interface ResolvedConfig extends Omit<ConfigFile, 'provider' | 'model' | 'apiKeyEnv'> {
  provider: ProviderKind;
  model: string;
  /** Undefined only for a local OpenAI-compatible server that needs none. */
  apiKey: string | undefined;
  apiKeyEnv: string;
}

export interface ConfigOverrides {
  provider?: string;
  model?: string;
  baseUrl?: string;
}

export class ConfigError extends Error {
  override name = 'ConfigError';
}

/**
 * Resolves provider settings. Precedence, highest first: command-line
 * overrides, environment (CROW_PROVIDER, CROW_MODEL, *_BASE_URL), the
 * project's .crow/config.json, the user's config.json, defaults.
 */
export function resolveConfig(
  workspaceRoot: string,
  overrides: ConfigOverrides = {},
  env: NodeJS.ProcessEnv = process.env,
): ResolvedConfig {
  const global = readConfigFile(join(configHome(env), 'config.json'));
  const project = readConfigFile(join(projectConfigDir(workspaceRoot), 'config.json'));
  const files: ConfigFile = { ...global, ...project };
  // Permissions merge per field, so a project can tighten one category without restating the rest.
  if (global.permissions || project.permissions) files.permissions = { ...global.permissions, ...project.permissions };

  const provider = parseProvider(overrides.provider ?? env.CROW_PROVIDER ?? files.provider ?? 'anthropic');
  const apiKeyEnv = files.apiKeyEnv ?? KEY_VARIABLES[provider];
  const baseUrl = overrides.baseUrl ?? env[BASE_URL_VARIABLES[provider]] ?? files.baseUrl;
  const apiKey = env[apiKeyEnv] || undefined;
  if (apiKey === undefined && !(provider === 'openai' && baseUrl && isCompatibleServer(baseUrl))) {
    throw new ConfigError(
      `No API key for ${provider}: set the environment variable ${apiKeyEnv}` +
        (provider === 'openai' ? ' (or point OPENAI_BASE_URL at an OpenAI-compatible server such as Ollama).' : '.'),
    );
  }
  return {
    ...files,
    provider,
    model: overrides.model ?? env.CROW_MODEL ?? files.model ?? DEFAULT_MODELS[provider],
    ...(baseUrl !== undefined ? { baseUrl } : {}),
    apiKey,
    apiKeyEnv,
  };
}

function parseProvider(value: string): ProviderKind {
  if ((PROVIDER_KINDS as readonly string[]).includes(value)) return value as ProviderKind;
  const guess = didYouMean(value, PROVIDER_KINDS);
  throw new ConfigError(
    `Unknown provider "${value}". Use one of: ${PROVIDER_KINDS.join(', ')}.${guess ? ` Did you mean "${guess}"?` : ''}`,
  );
}

/** Reads and validates one config file; a missing file is an empty config. */
export function readConfigFile(path: string): ConfigFile {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw new ConfigError(`Cannot read ${path}: ${(err as Error).message}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new ConfigError(`${path} is not valid JSON: ${(err as Error).message}`);
  }
  const parsed = ConfigFileSchema.safeParse(json);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((issue) => {
    if (issue.code === 'unrecognized_keys') {
      return issue.keys
        .map((key) => {
          const guess = didYouMean(key, CONFIG_KEYS);
          return `unknown field "${key}"${guess ? ` (did you mean "${guess}"?)` : ''}`;
        })
        .join('; ');
    }
    return `field "${issue.path.join('.')}": ${issue.message}`;
  });
  throw new ConfigError(`Invalid ${path}: ${problems.join('; ')}.`);
}

/** Servers other than OpenAI's own (Ollama, LM Studio, vLLM) often need no key. */
function isCompatibleServer(url: string): boolean {
  try {
    return new URL(url).hostname !== 'api.openai.com';
  } catch {
    return false;
  }
}
