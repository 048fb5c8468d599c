/** The table's rows about what agents may do: permissions, the sandbox, approvals, spending, private addresses, undo (see config-keys.ts). */
import * as z from 'zod';
import { DEFAULT_POLICY, type PermissionCategory } from '../../vocabulary/permission-types';
import { DEFAULT_SANDBOX_MODE, DEFAULT_SANDBOX_PORTS, DEFAULT_SANDBOX_TMP_SIZE_MB, DEFAULT_UNDO_TRACK_TIMEOUT_MS } from './defaults';
import type { ConfigKey, EnumValue, TrustRule } from './key-types';
import { quote } from './quote';
import { DomainSchema, NameSchema, RULES, RuleSchema, SANDBOX_MODES } from './value-schemas';

const FIELDS = { kind: 'fields' } as const;

const RULE_VALUES: Record<string, EnumValue> = {
  allow: { help: 'Without asking.' },
  ask: { help: 'Ask each time.' },
  deny: { help: 'Never.' },
};

/** A permission rule may only get stricter: allow, then ask, then deny. */
const RULE_TRUST: TrustRule = {
  kind: 'narrow',
  order: RULES,
  widens: (value, line, field) => `${field} = ${quote(value)}: ${field} without asking (you have ${quote(line)})`,
};

function rule<C extends PermissionCategory>(category: C, help: string, defaultText?: string): ConfigKey & { key: `permissions.${C}`; schema: typeof RuleSchema; vscode: { name: `permissions.${C}`; type: 'string' } } {
  return {
    key: `permissions.${category}` as const,
    help,
    schema: RuleSchema,
    default: DEFAULT_POLICY.rules[category],
    ...(defaultText !== undefined ? { defaultText } : {}),
    trust: RULE_TRUST,
    values: RULE_VALUES,
    vscode: { name: `permissions.${category}` as const, type: 'string' as const, default: DEFAULT_POLICY.rules[category], description: help },
  };
}

/** A spending limit may only be lower than the user's. */
const LIMIT_TRUST: TrustRule = {
  kind: 'narrow',
  direction: 'lower',
  widens: (value, line, field) => `limits ${field} = ${quote(value)}: lets a prompt spend more (you have ${quote(line)})`,
};

/** A VS Code cap on approvals a prompt gets without asking: more of them loosens it. */
const capTrust = (what: string): TrustRule => ({ kind: 'never', fingerprintValue: false, widens: (value) => `${what} = ${quote(value)}: approves more without asking` });

export const SAFETY_KEYS = [
  { key: 'permissions', help: 'allow, ask or deny per category, and commands that run without asking.', trust: FIELDS },
  rule('read', 'Reading files.'),
  rule('write', 'Writing and editing files.'),
  rule('execute', 'Running commands (bash) and MCP tools.', `${DEFAULT_POLICY.rules.execute} (commands that run in the sandbox are allowed while permissions.execute is not set)`),
  rule('network', 'Fetching web pages and searching the web.'),
  {
    key: 'permissions.allow_commands',
    help: 'Commands that run without asking, as word prefixes (npm test, git status).',
    schema: () => z.array(z.string().min(1)),
    default: DEFAULT_POLICY.allowCommands,
    trust: { kind: 'subset', fingerprintExtra: false, widens: (extra) => `runs these commands without asking: ${extra.map(quote).join(', ')}` },
    vscode: {
      name: 'permissions.allowCommands',
      type: 'array',
      default: [],
      keepEmpty: true,
      extra: { items: { type: 'string' } },
      description:
        'Commands that run without asking, as word prefixes, e.g. `npm test`, `git status`. A command line runs unasked only if every command in it (chained, piped or inside `$(…)`) starts with one of them; `eval`, `sh -c`, `xargs`, `env CMD`, file redirections and the like always ask.',
    },
  },
  {
    key: 'sandbox',
    help: 'Commands in a sandbox (bubblewrap, Linux); sandbox = "auto" is short for [sandbox] mode = "auto".',
    shorthand: 'mode',
    trust: FIELDS,
  },
  {
    key: 'sandbox.mode',
    help: 'Whether commands run in the sandbox.',
    schema: () => z.enum(SANDBOX_MODES),
    default: DEFAULT_SANDBOX_MODE,
    env: 'CROW_SANDBOX',
    trust: { kind: 'narrow', order: ['off', 'auto', 'required'], widens: (value, line) => `sandbox mode = ${quote(value)}: runs commands with less isolation (you have ${quote(line)})` },
    values: {
      auto: { help: 'Run commands in the sandbox where bubblewrap can run (Linux), without it elsewhere (said once).' },
      required: { help: 'Run commands only in the sandbox: without bubblewrap, commands do not run.' },
      off: { help: 'Run commands without the sandbox.' },
    },
    vscode: {
      name: 'sandbox',
      type: 'string',
      default: DEFAULT_SANDBOX_MODE,
      description:
        "Commands in a sandbox (bubblewrap, Linux): they may write only inside the workspace (never its `.git`, `.crow` or `.vscode`), reach no network unless `#crow.permissions.network#` is `allow`, and see none of Crow's keys or processes. While it is active, commands run without asking unless `#crow.permissions.execute#` is set.",
    },
  },
  {
    key: 'sandbox.allow_domains',
    help: 'Host names commands may reach through Crow\'s proxy while the network is otherwise off ("*.example.com": its subdomains).',
    schema: () => z.array(DomainSchema()),
    default: [],
    trust: { kind: 'subset', fingerprintExtra: true, widens: (extra) => `lets commands reach ${extra.map(quote).join(', ')} through the sandbox's proxy` },
  },
  {
    key: 'sandbox.allow_ports',
    help: 'The ports the proxy reaches on those domains.',
    schema: () => z.array(z.number().int().min(1).max(65535)),
    default: DEFAULT_SANDBOX_PORTS,
    trust: { kind: 'subset', fingerprintExtra: true, widens: (extra) => `lets commands reach ports ${extra.join(', ')} through the sandbox's proxy` },
  },
  {
    key: 'sandbox.allow_private_addresses',
    help: 'Whether an allowed name may lead to a loopback, private, link-local or metadata address.',
    schema: () => z.boolean(),
    default: false,
    trust: { kind: 'narrow', order: [true, false], widens: () => "lets commands reach loopback, private and cloud metadata addresses through the sandbox's proxy" },
  },
  {
    key: 'sandbox.tmp_size_mb',
    help: "The size cap of the sandbox's private /tmp, in megabytes.",
    schema: () => z.number().int().min(16).max(1_048_576),
    default: DEFAULT_SANDBOX_TMP_SIZE_MB,
    trust: { kind: 'narrow', direction: 'lower', widens: (value, line) => `sandbox tmp_size_mb = ${quote(value)}: lets commands fill more memory with /tmp (you have ${String(line)})` },
  },
  {
    key: 'autoApprove.maxWrites',
    file: false,
    help: 'When writes are allowed without asking: ask again after this many in one prompt (VS Code only).',
    trust: capTrust('autoApprove.maxWrites'),
    vscode: { name: 'autoApprove.maxWrites', type: 'number', default: 0, extra: { minimum: 0 }, description: 'When writes are allowed without asking: ask again after this many file changes in one prompt. 0: no cap.' },
  },
  {
    key: 'autoApprove.maxCommands',
    file: false,
    help: 'When commands are allowed without asking: ask again after this many in one prompt (VS Code only).',
    trust: capTrust('autoApprove.maxCommands'),
    vscode: { name: 'autoApprove.maxCommands', type: 'number', default: 0, extra: { minimum: 0 }, description: 'When commands are allowed without asking: ask again after this many commands in one prompt. 0: no cap.' },
  },
  { key: 'limits', help: 'Spending limits, checked before each model call; at a limit the run stops (crow run exits 3).', trust: FIELDS },
  {
    key: 'limits.max_cost_per_prompt',
    help: 'US dollars one prompt may cost, its subagents included (models without prices count nothing).',
    schema: () => z.number().positive(),
    trust: LIMIT_TRUST,
    vscode: {
      name: 'limits.maxCostPerPrompt',
      type: 'number',
      default: 0,
      extra: { minimum: 0 },
      description:
        "Stop a prompt before the model call that would go past this many US dollars (its subagents included; only models with a known price count). 0: no limit, unless Crow's own config file sets one (`limits.max_cost_per_prompt`).",
    },
  },
  {
    key: 'limits.max_cost_per_session',
    help: 'US dollars a session may cost, its earlier prompts included.',
    schema: () => z.number().positive(),
    trust: LIMIT_TRUST,
    vscode: {
      name: 'limits.maxCostPerSession',
      type: 'number',
      default: 0,
      extra: { minimum: 0 },
      description: "Stop a prompt once the session has cost this many US dollars, earlier prompts included. 0: no limit, unless Crow's own config file sets one (`limits.max_cost_per_session`).",
    },
  },
  {
    key: 'limits.max_tokens_per_prompt',
    help: 'Tokens one prompt may use: every input token (cached ones too) and every output token, subagents included.',
    schema: () => z.number().int().positive(),
    trust: LIMIT_TRUST,
    vscode: {
      name: 'limits.maxTokensPerPrompt',
      type: 'number',
      default: 0,
      extra: { minimum: 0 },
      description:
        "Stop a prompt before the model call that would go past this many tokens (input, cached input and output of every call, subagents included). 0: no limit, unless Crow's own config file sets one (`limits.max_tokens_per_prompt`).",
    },
  },
  {
    key: 'limits.concurrency',
    help: 'Subagents running at once per provider, by provider name or by kind (local, anthropic, openai).',
    schema: () => z.record(NameSchema(), z.number().int().min(1).max(64)),
    defaultText: 'local 1, anthropic 3, openai 5',
    // How many subagents run at once changes when money is spent, not how much.
    trust: { kind: 'any' },
  },
  { key: 'web_fetch', help: 'web_fetch; by default it reaches public addresses only.', trust: FIELDS },
  {
    key: 'web_fetch.allow_private_addresses',
    help: 'Let web_fetch reach loopback, private, link-local and cloud-metadata addresses (a local docs server, say).',
    schema: () => z.boolean(),
    default: false,
    trust: { kind: 'narrow', order: [true, false], widens: () => 'fetches loopback, private and cloud metadata addresses' },
  },
  { key: 'undo', help: 'Undo: how long a command may wait for the snapshot that makes it undoable.', trust: FIELDS },
  {
    key: 'undo.track_timeout_ms',
    help: 'Milliseconds; past it the command runs, and what it changes cannot be undone (the user is told).',
    schema: () => z.number().int().positive(),
    default: DEFAULT_UNDO_TRACK_TIMEOUT_MS,
    // Waiting longer only makes more undoable; a shorter wait leaves commands without undo.
    trust: { kind: 'narrow', direction: 'higher', widens: (value) => `undo.track_timeout_ms = ${String(value)}: leaves what commands change without undo sooner` },
  },
] as const satisfies readonly ConfigKey[];
