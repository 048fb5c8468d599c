/** The table's first rows: which provider and model, the agent, and how a turn runs (see config-keys.ts). */
import * as z from 'zod';
import { ApiKeyEnv, ProviderSchema } from '../provider-schema';
import { COMPACTION_MODES, NameSchema } from './value-schemas';
import { DEFAULT_AGENT, DEFAULT_DOOM_LOOP_THRESHOLD, DEFAULT_IDLE_TIMEOUT_MS, DEFAULT_MAX_ITERATIONS, DEFAULT_MAX_RETRIES, DEFAULT_PROVIDER } from './defaults';
import type { ConfigKey } from './key-types';
import { quote } from './quote';

const ANY = { kind: 'any' } as const;

/** A VS Code setting of a role's provider: it sends that role's requests elsewhere. */
const roleProvider = (role: string): ConfigKey['trust'] => ({ kind: 'never', fingerprintValue: false, widens: (value) => `${role} provider = ${quote(value)}: sends the ${role}'s requests to that provider` });

export const MODEL_KEYS = [
  {
    key: 'provider',
    help: 'The default provider, by name: anthropic, openai or a [providers.NAME] table.',
    schema: () => z.string().min(1),
    default: DEFAULT_PROVIDER,
    trust: { kind: 'same', widens: (value) => `provider = ${quote(value)}: sends every request to that provider` },
    env: 'CROW_PROVIDER',
    vscode: {
      name: 'provider',
      type: 'string',
      default: '',
      override: true,
      description:
        "Where Crow's models come from: `anthropic`, `openai` (also any OpenAI-compatible server, with its address in **Base Urls**), `vscode` (a model you already have in VS Code, such as Copilot's: set **Model** to `vendor/id`, e.g. `copilot/gpt-4o`), or a provider you defined for Crow. Empty: `anthropic`, unless Crow's own config file names another. The Crow chat view's set-up fills this in for you.",
    },
  },
  {
    key: 'model',
    help: "The default model; default: the provider's default_model.",
    schema: () => z.string().min(1),
    defaultText: "the provider's default_model",
    trust: ANY,
    env: 'CROW_MODEL',
    vscode: { name: 'model', type: 'string', default: '', override: true, description: "Default model. Empty: the provider's default model." },
  },
  {
    key: 'baseUrls',
    file: false,
    help: 'Base URL per provider (VS Code only; in config.toml: providers.NAME.base_url).',
    trust: { kind: 'never', fingerprintValue: true, widens: (value) => `baseUrls = ${quote(value)}: sends requests, and the API keys, to those addresses` },
    vscode: {
      name: 'baseUrls',
      type: 'object',
      default: {},
      extra: { additionalProperties: { type: 'string' } },
      description:
        'Base URL per provider, e.g. `{"openai": "http://127.0.0.1:11434/v1"}` for a local OpenAI-compatible server (Ollama, llama.cpp, vLLM). A loopback server needs no API key.',
    },
  },
  {
    key: 'default_agent',
    help: 'The ACP agent (autonomy level) a front door picks when you name none.',
    schema: NameSchema,
    default: DEFAULT_AGENT,
    trust: ANY,
    vscode: {
      name: 'defaultAgent',
      type: 'string',
      default: '',
      description:
        "The agent (autonomy level) new sessions start with, e.g. `build` or `pair`. Empty: `build`, unless Crow's own config file names another (`default_agent`). See **Crow: Pick Agent**.",
    },
  },
  {
    key: 'primary.provider',
    file: false,
    help: 'Provider of the primary agent (VS Code only).',
    trust: roleProvider('primary'),
    vscode: { name: 'primary.provider', type: 'string', default: '', description: 'Provider of the primary agent (the one doing the work). Empty: the agent definition or the default provider.' },
  },
  {
    key: 'primary.model',
    file: false,
    help: 'Model of the primary agent (VS Code only).',
    trust: ANY,
    vscode: { name: 'primary.model', type: 'string', default: '', description: 'Model of the primary agent. Empty: the agent definition or the default model.' },
  },
  {
    key: 'reviewer.provider',
    file: false,
    help: 'Provider of the reviewing coagent (VS Code only).',
    trust: roleProvider('reviewer'),
    vscode: { name: 'reviewer.provider', type: 'string', default: '', description: 'Provider of the reviewing coagent. Empty: the agent definition or the default provider.' },
  },
  {
    key: 'reviewer.model',
    file: false,
    help: 'Model of the reviewing coagent (VS Code only).',
    trust: ANY,
    vscode: { name: 'reviewer.model', type: 'string', default: '', description: 'Model of the reviewing coagent. Empty: the agent definition or the default model.' },
  },
  {
    key: 'base_url',
    help: "Short for the default provider's base_url.",
    schema: () => z.url(),
    trust: { kind: 'never', fingerprintValue: false, widens: (value) => `base_url = ${quote(value)}: sends requests, and the API key, to that address` },
  },
  {
    key: 'api_key_env',
    help: "Short for the default provider's api_key_env: the NAME of the variable holding its key.",
    schema: ApiKeyEnv,
    trust: { kind: 'never', fingerprintValue: false, widens: (value) => `api_key_env = ${quote(value)}: sends the value of that variable as the API key` },
  },
  {
    key: 'providers.NAME',
    help: 'A provider: type, base_url, api_key_env (a variable name, never a key), flavor, region, project_id, default_model and [providers.NAME.models.MODEL] facts and prices; anthropic and openai exist without one.',
    schema: ProviderSchema,
    trust: { kind: 'entries', judge: 'providers' },
    namedEnv: { field: 'base_url', variables: { anthropic: 'ANTHROPIC_BASE_URL', openai: 'OPENAI_BASE_URL' } },
  },
  {
    key: 'max_iterations',
    help: 'Model calls per agent turn.',
    schema: () => z.number().int().positive(),
    default: DEFAULT_MAX_ITERATIONS,
    trust: ANY,
    vscode: { name: 'maxIterations', type: 'number', default: 0, extra: { minimum: 0 }, description: "Most model calls per agent turn. 0: the agent's own limit." },
  },
  {
    key: 'doom_loop_threshold',
    help: 'The same tool call this many times in a row stops the turn.',
    schema: () => z.number().int().min(2),
    default: DEFAULT_DOOM_LOOP_THRESHOLD,
    trust: ANY,
  },
  {
    key: 'max_retries',
    help: 'Retries of a model call that failed for a reason worth retrying.',
    schema: () => z.number().int().min(0).max(10),
    default: DEFAULT_MAX_RETRIES,
    trust: ANY,
  },
  {
    key: 'idle_timeout_ms',
    help: 'Milliseconds a model stream may stay silent before the call is retried.',
    schema: () => z.number().int().positive(),
    default: DEFAULT_IDLE_TIMEOUT_MS,
    trust: ANY,
  },
  {
    key: 'max_output_tokens',
    help: "Output tokens asked for per model call; default: what fits the model's output cap.",
    schema: () => z.number().int().positive(),
    trust: ANY,
  },
  {
    key: 'thinking_budget',
    help: 'Tokens a model that thinks may spend thinking per call; 0: none.',
    schema: () => z.number().int().min(0),
    trust: ANY,
  },
  {
    key: 'images',
    help: 'Whether the model can see images; default yes for Anthropic and OpenAI, no for other compatible servers.',
    schema: () => z.boolean(),
    trust: ANY,
  },
  {
    key: 'compaction',
    help: 'Compact the history as it nears the context window (auto), or only on /compact (off).',
    schema: () => z.enum(COMPACTION_MODES),
    default: 'auto',
    trust: ANY,
    values: {
      auto: { help: "Compact the conversation as it nears the model's context window.", label: 'Auto' },
      off: { help: 'Never compact on its own: only when you send /compact.', label: 'Off' },
    },
    vscode: {
      name: 'compaction',
      type: 'string',
      default: 'auto',
      description:
        "Whether Crow compacts a long conversation by itself as it nears the model's context window. With `off`, send `/compact` when the context meter runs high. Unless set here, Crow's own config file decides (`compaction`).",
    },
  },
] as const satisfies readonly ConfigKey[];
