/**
 * The schemas of settings' values in the file's own spelling (snake_case),
 * where a value is more than a number or a word: names, host names, a web
 * search backend, an MCP server. The table (config-keys.ts) puts them
 * together; nothing else builds the settings' schema.
 */
import * as z from 'zod';
import { onFirstUse } from '../../vocabulary/first-use';
import { PERMISSION_CATEGORIES } from '../../vocabulary/permission-types';
import { ApiKeyEnv } from '../provider-schema';

/** A name for a provider, an agent or a command. */
export const NameSchema = onFirstUse(() =>
  z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, 'use letters, digits, ".", "_" and "-"'),
);

/** A permission rule: widest first, as project trust ranks them. */
export const RULES = ['allow', 'ask', 'deny'] as const;

export const RuleSchema = onFirstUse(() => z.enum(RULES));

export const PermissionCategorySchema = onFirstUse(() => z.enum(PERMISSION_CATEGORIES));

/** Whether commands run in the sandbox: where it can run (auto), always (required, else they do not run), or never (off). */
export const SANDBOX_MODES = ['auto', 'required', 'off'] as const;
export type SandboxMode = (typeof SANDBOX_MODES)[number];

export const COMPACTION_MODES = ['auto', 'off'] as const;

/** A host name commands in the sandbox may reach through Crow's proxy: `registry.npmjs.org`, or `*.example.com` for its subdomains. */
export const DomainSchema = onFirstUse(() =>
  z
    .string()
    .regex(
      // Without the i flag, which a JSON Schema pattern cannot carry: the JSON Schema of config.toml checks the same.
      /^(\*\.)?[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?)*$/,
      'a host name such as registry.npmjs.org, or *.example.com for every subdomain (no scheme, port or path)',
    )
    .transform((name) => name.toLowerCase()),
);

/** The web_search backend: a SearXNG instance, or Brave Search with its key in an environment variable. */
export const WebSearchSchema = onFirstUse(() =>
  z.discriminatedUnion('backend', [
    z.object({ backend: z.literal('searxng'), url: z.url() }).strict(),
    z.object({ backend: z.literal('brave'), api_key_env: ApiKeyEnv().optional(), base_url: z.url().optional() }).strict(),
  ]),
);

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

/**
 * An MCP server whose tools agents get: a command over stdio, or a streamable
 * HTTP url. Variables are named, never valued. Global and project tables merge
 * field by field, so a project can turn a global server off (enabled = false).
 */
export const McpServerSchema = onFirstUse(() =>
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
