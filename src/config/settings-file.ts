/**
 * The settings file, `config.toml` (global in ~/.config/crow-agent/, per
 * project in .crow/): its schema in the file's own spelling (snake_case), and
 * reading, merging and editing documents. Keys are never stored here, only
 * the names of the environment variables that hold them.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { parse, stringify } from 'smol-toml';
import * as z from 'zod';
import { onFirstUse } from '../vocabulary/first-use';
import { PERMISSION_CATEGORIES } from '../vocabulary/permission-types';
import { type DefinitionError, problemsFromZod } from './config-problems';
import { HookEntrySchema } from './hook-config';
import { MCP_IMPORT_SOURCES } from './mcp-import-formats';
import { configHome, projectConfigDir } from './paths';
import { ApiKeyEnv, ProviderSchema } from './provider-schema';

export { ApiKeyEnv, PROVIDER_KINDS, type ProviderDocument, type ProviderKind, SERVER_FLAVORS, type ServerFlavor, speaksMessagesApi } from './provider-schema';

const CONFIG_FILE_NAME = 'config.toml';

/** The provider used when no file, variable or flag names one. */
export const DEFAULT_PROVIDER = 'anthropic';

/** A name for a provider, an agent or a command. */
export const NameSchema = onFirstUse(() =>
  z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, 'use letters, digits, ".", "_" and "-"'),
);

const Rule = onFirstUse(() =>
  z.enum(['allow', 'ask', 'deny']),
);

/** Whether commands run in the sandbox: where it can run (auto), always (required, else they do not run), or never (off). */
export const SANDBOX_MODES = ['auto', 'required', 'off'] as const;
export type SandboxMode = (typeof SANDBOX_MODES)[number];

/** The size of the sandbox's private /tmp when no file says (megabytes). */
export const DEFAULT_SANDBOX_TMP_SIZE_MB = 1024;

/** The ports commands reach through Crow's proxy when no file says: HTTPS and HTTP. */
export const DEFAULT_SANDBOX_PORTS: readonly number[] = [443, 80];

/** A host name commands in the sandbox may reach through Crow's proxy: `registry.npmjs.org`, or `*.example.com` for its subdomains. */
const DomainSchema = onFirstUse(() =>
  z
    .string()
    .regex(
      /^(\*\.)?[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/i,
      'a host name such as registry.npmjs.org, or *.example.com for every subdomain (no scheme, port or path)',
    )
    .transform((name) => name.toLowerCase()),
);

/**
 * The sandbox: its mode, the domains commands may reach while the network
 * is otherwise off (through a filtering proxy), on which ports and whether
 * at loopback or private addresses, and the size of its private /tmp.
 * `sandbox = "auto"` is short for `[sandbox] mode = "auto"`.
 */
const SandboxSchema = onFirstUse(() =>
  z
    .union([
      z.enum(SANDBOX_MODES),
      z
        .object({
          mode: z.enum(SANDBOX_MODES).optional(),
          allow_domains: z.array(DomainSchema()).optional(),
          /** The ports the proxy reaches on those domains; default DEFAULT_SANDBOX_PORTS. */
          allow_ports: z.array(z.number().int().min(1).max(65535)).optional(),
          /** Whether an allowed name may lead to a loopback, private, link-local or metadata address; default false. */
          allow_private_addresses: z.boolean().optional(),
          tmp_size_mb: z.number().int().min(16).max(1_048_576).optional(),
        })
        .strict(),
    ])
    .transform((value) => (typeof value === 'string' ? { mode: value } : value)),
);

/** allow / ask / deny per category, and command prefixes that run without asking. Shared by settings and agent definitions. */
export const PermissionsSchema = onFirstUse(() =>
  z
    .object({
      read: Rule().optional(),
      write: Rule().optional(),
      execute: Rule().optional(),
      network: Rule().optional(),
      allow_commands: z.array(z.string().min(1)).optional(),
    })
    .strict(),
);

export const PermissionCategorySchema = onFirstUse(() =>
  z.enum(PERMISSION_CATEGORIES),
);

/** The web_search backend: a SearXNG instance, or Brave Search with its key in an environment variable. */
const WebSearchSchema = onFirstUse(() =>
  z.discriminatedUnion('backend', [
    z.object({ backend: z.literal('searxng'), url: z.url() }).strict(),
    z.object({ backend: z.literal('brave'), api_key_env: ApiKeyEnv().optional(), base_url: z.url().optional() }).strict(),
  ]),
);

/** web_fetch; by default it reaches public addresses only. */
const WebFetchSchema = onFirstUse(() =>
  z
    .object({
      /** Let web_fetch reach loopback, private, link-local and cloud-metadata addresses (a local docs server, say). */
      allow_private_addresses: z.boolean().optional(),
    })
    .strict(),
);

/** Telemetry export; off unless an endpoint is set (or OTEL_EXPORTER_OTLP_ENDPOINT). */
const TelemetrySchema = onFirstUse(() =>
  z.object({ otlp_endpoint: z.url().optional() }).strict(),
);

/**
 * An MCP server whose tools agents get: a command over stdio, or a streamable
 * HTTP url. Variables are named, never valued. Global and project tables merge
 * field by field, so a project can turn a global server off (enabled = false).
 */
/** A scope token as RFC 6749 §3.3 spells one: printable ASCII but space, `"` and `\\`. */
const SCOPE_TOKEN = /^[\x21\x23-\x5b\x5d-\x7e]+$/;

/** [mcp_servers.NAME] oauth: a client registered with the server's authorization server beforehand (no secret: Crow is a public client, RFC 8252 §8.4). */
const McpOAuthSchema = onFirstUse(() =>
  z
    .object({
      /** The client id the authorization server gave you; without it Crow registers itself (RFC 7591). */
      client_id: z.string().min(1).max(512).optional(),
      /** The scopes to ask for; default: what the server's metadata lists. */
      scopes: z.array(z.string().regex(SCOPE_TOKEN, 'a scope is printable ASCII without spaces, quotes or backslashes (RFC 6749 §3.3)')).max(64).optional(),
      /** The port of the loopback redirect (http://127.0.0.1:PORT/callback), when your client's registration names one; default: a free port. */
      callback_port: z.number().int().min(1024).max(65535).optional(),
    })
    .strict(),
);

const McpServerSchema = onFirstUse(() =>
  z
    .object({
      command: z.string().min(1).optional(),
      args: z.array(z.string()).optional(),
      /** Our environment variables the command also gets; otherwise it sees only PATH, HOME and the like. */
      env: z.array(ApiKeyEnv()).optional(),
      url: z.url({ protocol: /^https?$/, error: 'an http:// or https:// URL' }).optional(),
      /** HTTP header name → the environment variable holding its value. */
      headers_env: z.record(z.string().min(1), ApiKeyEnv()).optional(),
      enabled: z.boolean().optional(),
      /** What the permission policy must allow before one of its tools runs; default execute, which asks. */
      permission: PermissionCategorySchema().optional(),
      startup_timeout_sec: z.number().positive().optional(),
      tool_timeout_sec: z.number().positive().optional(),
      /** How to sign in to a remote server that asks (OAuth): a client you registered with its authorization server. Without it Crow registers itself. */
      oauth: McpOAuthSchema().optional(),
    })
    .strict()
    .superRefine((server, ctx) => {
      if (server.command !== undefined && server.url !== undefined) {
        ctx.addIssue({ code: 'custom', path: ['url'], message: 'command and url exclude each other: a server runs as a command (stdio) or is reached at a url.' });
      }
      if (server.oauth !== undefined && server.command !== undefined) {
        ctx.addIssue({ code: 'custom', path: ['oauth'], message: 'oauth is for a server reached at a url; a command (stdio) server gets its credentials from env.' });
      }
    }),
);

/** Spec-driven development (the /speckit.* commands). */
const SpeckitSchema = onFirstUse(() =>
  z
    .object({
      /** The reviewed composition /speckit.implement runs each task through; default task-pair. */
      implement_agent: NameSchema().optional(),
      /** Whether /speckit.specify starts a git branch for a new feature when it safely can; default false (Spec Kit 1.0: branches are its git extension's). */
      create_branch: z.boolean().optional(),
    })
    .strict(),
);

/** `[mcp]`: which other tools' MCP configuration files sessions take servers from. */
const McpSchema = onFirstUse(() =>
  z
    .object({
      /** "claude-code" (the project's .mcp.json), "claude-desktop", "vscode" (.vscode/mcp.json and the user profile's mcp.json). */
      import: z.array(z.enum(MCP_IMPORT_SOURCES)).optional(),
    })
    .strict(),
);

/** Subagents (the task tool, /speckit.implement's workers). */
const SubagentsSchema = onFirstUse(() =>
  z
    .object({
      /** Subagents of every provider running at once; the older spelling of [limits] concurrency, which wins where it names a provider. */
      concurrency: z.number().int().min(1).max(64).optional(),
    })
    .strict(),
);

/** How long a command waits for the undo snapshot when no file says. */
export const DEFAULT_UNDO_TRACK_TIMEOUT_MS = 5_000;

/** Undo: how long a command may wait for the snapshot that makes it undoable. */
const UndoSchema = onFirstUse(() =>
  z
    .object({
      /** Milliseconds; past it the command runs, and what it changes cannot be undone (the user is told). Default 5000. */
      track_timeout_ms: z.number().int().positive().optional(),
    })
    .strict(),
);

/** Spending limits: checked before each model call; at a limit the run stops cleanly (exit 3 from crow run). */
const LimitsSchema = onFirstUse(() =>
  z
    .object({
      /** US dollars one prompt may cost (models without prices count nothing). */
      max_cost_per_prompt: z.number().positive().optional(),
      /** US dollars a session may cost, its earlier prompts included. */
      max_cost_per_session: z.number().positive().optional(),
      /** Tokens one prompt may use: every input token (cached ones too) and every output token, subagents included. */
      max_tokens_per_prompt: z.number().int().positive().optional(),
      /**
       * Subagents running at once per provider, by provider name or by kind:
       * local (a server of your own), anthropic, openai. Defaults 1, 3 and 5.
       */
      concurrency: z.record(NameSchema(), z.number().int().min(1).max(64)).optional(),
    })
    .strict(),
);

export const COMPACTION_MODES = ['auto', 'off'] as const;

/** One config.toml. Every field is optional: a file says only what it changes. */
export const SettingsFileSchema = onFirstUse(() =>
  z
    .object({
      /** The default provider, by name: "anthropic", "openai" or a [providers.NAME] table. */
      provider: z.string().min(1).optional(),
      /** The default model. Default: the provider's default_model. */
      model: z.string().min(1).optional(),
      /** Shorthands for the default provider's base_url and api_key_env. */
      base_url: z.url().optional(),
      api_key_env: ApiKeyEnv().optional(),
      /** The ACP agent a front door picks when the user names none. */
      default_agent: NameSchema().optional(),
      max_iterations: z.number().int().positive().optional(),
      doom_loop_threshold: z.number().int().min(2).optional(),
      max_retries: z.number().int().min(0).max(10).optional(),
      idle_timeout_ms: z.number().int().positive().optional(),
      max_output_tokens: z.number().int().positive().optional(),
      thinking_budget: z.number().int().min(0).optional(),
      /** Whether the model can see images; default yes for Anthropic and OpenAI, no for other compatible servers. */
      images: z.boolean().optional(),
      permissions: PermissionsSchema().optional(),
      /** Commands in a sandbox (bubblewrap, Linux): mode auto (default), required or off; allow_domains, allow_ports, allow_private_addresses; tmp_size_mb. */
      sandbox: SandboxSchema().optional(),
      providers: z.record(NameSchema(), ProviderSchema()).optional(),
      web_search: WebSearchSchema().optional(),
      web_fetch: WebFetchSchema().optional(),
      telemetry: TelemetrySchema().optional(),
      mcp_servers: z.record(NameSchema(), McpServerSchema()).optional(),
      /** MCP servers of other tools' configuration files: `import` names the tools (see mcp-import.ts). */
      mcp: McpSchema().optional(),
      speckit: SpeckitSchema().optional(),
      subagents: SubagentsSchema().optional(),
      undo: UndoSchema().optional(),
      /** Compact the history as it nears the context window (auto, the default), or only on /compact (off). */
      compaction: z.enum(COMPACTION_MODES).optional(),
      limits: LimitsSchema().optional(),
      /** Commands run before and after tool calls, when a prompt is sent and when a run is about to end (see hook-config.ts). */
      hooks: z.array(HookEntrySchema()).optional(),
      /** Claude Code settings.json files whose hooks run too: `~/` is the home folder, a relative path the workspace's. */
      claude_hooks: z.array(z.string().min(1)).optional(),
    })
    .strict(),
);

export type SettingsDocument = z.output<ReturnType<typeof SettingsFileSchema>>;

/** The providers that exist without configuration; a [providers.anthropic] table changes fields of the built-in one. */
export const BUILTIN_DOCUMENT: SettingsDocument = {
  provider: DEFAULT_PROVIDER,
  providers: {
    anthropic: { type: 'anthropic', api_key_env: 'ANTHROPIC_API_KEY', default_model: 'claude-sonnet-4-6' },
    openai: { type: 'openai', api_key_env: 'OPENAI_API_KEY', default_model: 'gpt-5.4' },
  },
};

export function globalConfigPath(env: NodeJS.ProcessEnv = process.env): string {
  return join(configHome(env), CONFIG_FILE_NAME);
}

export function projectConfigPath(workspaceRoot: string): string {
  return join(projectConfigDir(workspaceRoot), CONFIG_FILE_NAME);
}

/** A file's document and what is wrong with it; a missing file is an empty document. */
export interface SettingsFileResult {
  document: SettingsDocument;
  problems: DefinitionError[];
}

export function readSettingsFile(path: string): SettingsFileResult {
  const raw = readRawDocument(path);
  if ('problem' in raw) return { document: {}, problems: [raw.problem] };
  return validateDocument(path, raw.data);
}

export function validateDocument(path: string, data: Record<string, unknown>): SettingsFileResult {
  // Every field is optional and none has a default: an empty table (a missing file) is valid as it is, with no schema to build.
  if (Object.keys(data).length === 0) return { document: {}, problems: [] };
  const parsed = SettingsFileSchema().safeParse(data);
  if (parsed.success) return { document: parsed.data, problems: [] };
  return { document: {}, problems: problemsFromZod(path, parsed.error, SettingsFileSchema(), data) };
}

/** The TOML table a file holds, unvalidated; `{}` when the file does not exist. */
export function readRawDocument(path: string): { data: Record<string, unknown> } | { problem: DefinitionError } {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { data: {} };
    return { problem: { file: path, message: `cannot read the file: ${(err as Error).message}` } };
  }
  try {
    return { data: tomlDocument(text) };
  } catch (err) {
    return { problem: { file: path, message: `not valid TOML: ${(err as Error).message}` } };
  }
}

/** TOML text as plain data (a leading byte-order mark allowed); throws smol-toml's error, which names the line. */
export function tomlDocument(text: string): Record<string, unknown> {
  return plain(parse(text.replace(/^\uFEFF/, ''))) as Record<string, unknown>;
}

/** A document as the TOML text writeDocument writes. Comments of an old file are not kept. */
export function documentText(data: Record<string, unknown>): string {
  return `${stringify(data)}\n`;
}

/** Writes a document as TOML, creating the folder (the user's own file: a project's is written confined, by the caller). */
export function writeDocument(path: string, data: Record<string, unknown>): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, documentText(data));
}

/** Later documents win field by field; tables merge, arrays and values replace. */
export function mergeDocuments(...documents: SettingsDocument[]): SettingsDocument {
  return documents.reduce<Record<string, unknown>>((merged, document) => mergeTables(merged, document), {}) as SettingsDocument;
}

function mergeTables(base: Record<string, unknown>, over: Record<string, unknown>): Record<string, unknown> {
  const merged: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(over)) {
    const current = merged[key];
    merged[key] = isTable(current) && isTable(value) ? mergeTables(current, value) : value;
  }
  return merged;
}

function isTable(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value) && !(value instanceof Date);
}

/** smol-toml builds null-prototype objects; plain copies print and compare like any other. */
function plain(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(plain);
  if (!isTable(value)) return value;
  return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, plain(inner)]));
}
