/** The table's rows about what Crow connects to: MCP servers, hooks, web search, telemetry, Spec Kit, subagents (see config-keys.ts). */
import * as z from 'zod';
import { HookEntrySchema } from '../hook-config';
import { hookText } from '../hook-settings';
import { MCP_IMPORT_SOURCES } from '../mcp-import-formats';
import type { ConfigKey } from './key-types';
import { canonical, quote } from './quote';
import { McpServerSchema, NameSchema, WebSearchSchema } from './value-schemas';

const ANY = { kind: 'any' } as const;

export const INTEGRATION_KEYS = [
  {
    key: 'mcp_servers.NAME',
    help: 'An MCP server whose tools agents get: command (stdio) or url, args, env and headers_env (variable names), enabled, permission, timeouts, oauth.',
    schema: McpServerSchema,
    trust: { kind: 'entries', judge: 'mcp_servers' },
    vscode: {
      name: 'mcpServers',
      type: 'object',
      default: {},
      extra: { additionalProperties: { type: 'object' } },
      description:
        'MCP servers whose tools Crow\'s agents may use, by name: `{"files": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "."]}}` or `{"docs": {"url": "http://127.0.0.1:8000/mcp"}}`. Keys: command, args, env (names of variables to pass), url, headers_env, enabled, permission, startup_timeout_sec, tool_timeout_sec, oauth (`{"client_id": "…", "scopes": ["…"], "callback_port": 33418}`: a client you registered with the server\'s authorization server; without it Crow registers itself when the server asks you to sign in with "Crow: Sign In to MCP Server…"). (In Crow\'s own config file: `[mcp_servers.NAME]`.)',
    },
  },
  { key: 'mcp', help: "Which other tools' MCP configuration files sessions take servers from.", trust: { kind: 'fields' } },
  {
    key: 'mcp.import',
    help: 'The tools whose MCP servers sessions use too.',
    schema: () => z.array(z.enum(MCP_IMPORT_SOURCES)),
    default: [],
    // Importing fewer tools' servers than the user narrows; importing more starts what those files name.
    trust: { kind: 'subset', fingerprintExtra: true, widens: (extra) => `starts the MCP servers of these tools' configuration files: ${extra.map(quote).join(', ')}` },
    values: {
      'claude-code': { help: "The project's .mcp.json (used in a trusted workspace only)" },
      'claude-desktop': { help: "Claude Desktop's claude_desktop_config.json" },
      vscode: { help: "VS Code's own MCP servers: .vscode/mcp.json (trusted workspace only) and your user mcp.json" },
    },
    vscode: {
      name: 'mcp.import',
      type: 'array',
      default: [],
      extra: { uniqueItems: true },
      description:
        'Also use the MCP servers you configured for these tools. A file inside the workspace is used only in a trusted workspace; `crow.mcpServers` wins a name; a server needing an `${input:…}` is reported, not started. (In Crow\'s own config file: `[mcp] import = ["claude-desktop"]`.) `crow mcp list` in a terminal shows what is found and used.',
    },
  },
  {
    key: 'hooks',
    help: 'Commands run before and after tool calls, when a prompt is sent and when a run is about to end: [[hooks]] event, command, matcher, timeout_sec.',
    schema: () => z.array(HookEntrySchema()),
    // Every hook runs a command of the project's choosing.
    trust: { kind: 'never', each: true, fingerprintValue: true, widens: (hook) => hookText(hook as { event: string; command: string; matcher?: string }) },
  },
  {
    key: 'claude_hooks',
    help: "Claude Code settings.json files whose hooks run too: ~/ is the home folder, a relative path the workspace's.",
    schema: () => z.array(z.string().min(1)),
    trust: { kind: 'never', fingerprintValue: true, widens: (value) => `runs the hooks of these Claude Code settings files: ${(value as string[]).map(quote).join(', ')}` },
  },
  {
    key: 'web_search',
    help: 'The web_search backend: backend = "searxng" with url, or "brave" (key in BRAVE_API_KEY, or api_key_env) with an optional base_url.',
    schema: WebSearchSchema,
    trust: { kind: 'never', fingerprintValue: true, widens: (value) => `web_search = ${canonical(value)}: sends searches, and any search key, to that service` },
  },
  {
    key: 'telemetry',
    help: 'Telemetry export; off unless an endpoint is set.',
    trust: { kind: 'never', fingerprintValue: true, widens: (value) => `telemetry = ${canonical(value)}: sends traces (prompts, code, outputs) to that endpoint` },
  },
  {
    key: 'telemetry.otlp_endpoint',
    help: 'Send spans over OTLP/HTTP to this traces URL (OTEL_EXPORTER_OTLP_ENDPOINT, a base URL, wins too).',
    schema: () => z.url(),
    env: 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT',
    trust: { kind: 'never', fingerprintValue: true, widens: (value) => `telemetry.otlp_endpoint = ${quote(value)}: sends traces (prompts, code, outputs) to that endpoint` },
    vscode: {
      name: 'telemetry.otlpEndpoint',
      type: 'string',
      default: '',
      description: 'Send spans over OTLP/HTTP to this endpoint (e.g. `http://127.0.0.1:4318/v1/traces`). Empty: off (traces stay local).',
    },
  },
  {
    key: 'attempts.check',
    file: false,
    help: "The check run in each attempt's worktree when the chat runs a prompt as parallel attempts (VS Code only; the CLI's crow run --check).",
    // It runs a command of the project's choosing: a workspace's value runs only in a trusted workspace (attempts-check.ts).
    trust: { kind: 'never', fingerprintValue: true, widens: (value) => `attempts.check = ${quote(value)}: runs that command in every attempt's worktree` },
    vscode: {
      name: 'attempts.check',
      type: 'string',
      default: '',
      description:
        "A command run in each attempt's worktree when the chat runs a prompt as parallel attempts (like `crow run --check`), e.g. `npm test`: an attempt whose check fails is ranked last. A workspace's value runs only in a trusted workspace.",
    },
  },
  // Which composition implements tasks, and whether a git branch is made for a feature.
  { key: 'speckit', help: 'Spec-driven development (the /speckit.* commands).', trust: ANY },
  {
    key: 'speckit.implement_agent',
    help: 'The reviewed composition /speckit.implement runs each task through.',
    schema: NameSchema,
    default: 'task-pair',
    trust: ANY,
  },
  {
    key: 'speckit.create_branch',
    help: 'Whether /speckit.specify starts a git branch for a new feature when it safely can (Spec Kit 1.0: branches are its git extension\'s).',
    schema: () => z.boolean(),
    default: false,
    trust: ANY,
  },
  // How many subagents run at once.
  { key: 'subagents', help: 'Subagents (the task tool, /speckit.implement\'s workers).', trust: ANY },
  {
    key: 'subagents.concurrency',
    help: 'Subagents of every provider running at once; the older spelling of limits.concurrency, which wins where it names a provider.',
    schema: () => z.number().int().min(1).max(64),
    trust: ANY,
  },
] as const satisfies readonly ConfigKey[];
