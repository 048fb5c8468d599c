/**
 * Workspace trust for a project's own settings (`.crow/config.toml`). What a
 * cloned repository says may narrow what the agent may do, never widen it,
 * until the user has trusted the folder: anything that loosens a permission,
 * starts a process, or changes where requests, keys and traces go is a
 * widening. An untrusted project keeps only the parts that cannot widen.
 *
 * The rule is an allow-list: a top-level key this file does not know is a
 * widening, so a setting added later is safe until someone decides it is not.
 */
import { createHash } from 'node:crypto';
import { hookText } from './hook-settings';
import { DEFAULT_SANDBOX_PORTS, DEFAULT_SANDBOX_TMP_SIZE_MB, DEFAULT_UNDO_TRACK_TIMEOUT_MS, type SettingsDocument } from './settings-file';

/** One thing a project asks for that only a trusted folder gets. */
export interface Widening {
  /** The file that asks for it (absolute). */
  file: string;
  /** The dotted setting, e.g. "permissions.execute" or "mcp_servers.db". */
  setting: string;
  /** What it asks for, as a person reads it: all of it, never cut. */
  text: string;
  /**
   * The whole of what is asked for (a value, a table, a definition), which
   * the trust record fingerprints: any change to any field of it, down to one
   * variable name, asks again. Absent: the text says all of it.
   */
  value?: unknown;
}

type Table = Record<string, unknown>;

const RANK: Record<string, number> = { allow: 0, ask: 1, deny: 2 };
/** Rules every category has when no file sets one (DEFAULT_POLICY). */
const DEFAULT_RULES: Record<string, string> = { read: 'allow', write: 'ask', execute: 'ask', network: 'ask' };
const SANDBOX_RANK: Record<string, number> = { off: 0, auto: 1, required: 2 };

/** Keys a project may set freely: they change how the agent works, not what it may reach. */
export const HARMLESS_KEYS: ReadonlySet<string> = new Set([
  'model',
  'default_agent',
  'max_iterations',
  'doom_loop_threshold',
  'max_retries',
  'idle_timeout_ms',
  'max_output_tokens',
  'thinking_budget',
  'images',
  // Which composition implements tasks, and whether a git branch is made for a feature.
  'speckit',
  // Compacting less only costs the project's own sessions their context.
  'compaction',
  // How many subagents run at once.
  'subagents',
]);

/**
 * Provider fields that change where requests and keys go: the address, the
 * key, and for Claude on a cloud, the region (another endpoint) and the
 * Google Cloud project the credentials are used for.
 */
const PROVIDER_ROUTE_FIELDS = ['type', 'base_url', 'api_key_env', 'region', 'project_id'] as const;

/** MCP server fields that decide what runs, what it sees, or where requests go. */
const MCP_ROUTE_FIELDS = ['command', 'args', 'env', 'url', 'headers_env', 'oauth'] as const;

/**
 * The MCP servers of `merged` whose command, arguments, variables, URL or
 * headers are not the trusted `baseline`'s: what runs there is the
 * project's choice, so its tool annotations never loosen a permission.
 */
export function projectRoutedServers(merged: SettingsDocument, baseline: SettingsDocument): Set<string> {
  const known = (baseline.mcp_servers ?? {}) as Table;
  const routed = Object.entries((merged.mcp_servers ?? {}) as Table).filter(([name, table]) => {
    const mine = known[name] as Table | undefined;
    return mine === undefined || MCP_ROUTE_FIELDS.some((field) => !same((table as Table)[field], mine[field]));
  });
  return new Set(routed.map(([name]) => name));
}

/**
 * What the project document asks for beyond `baseline` (the merged trusted
 * layers: built-in defaults, the user's file, a front door's own settings),
 * and the project document an untrusted folder keeps.
 */
export function judgeProjectSettings(
  project: SettingsDocument,
  baseline: SettingsDocument,
  file: string,
): { widenings: Widening[]; restricted: SettingsDocument } {
  const widenings: Widening[] = [];
  const restricted: Table = {};
  const widen = (setting: string, text: string, value?: unknown): void => void widenings.push({ file, setting, text, ...(value !== undefined ? { value } : {}) });
  for (const [key, value] of Object.entries(project as Table)) {
    if (value === undefined) continue;
    if (HARMLESS_KEYS.has(key)) {
      restricted[key] = value;
      continue;
    }
    switch (key) {
      case 'provider':
        if (value === baseline.provider) restricted[key] = value;
        else widen('provider', `provider = ${quote(value)}: sends every request to that provider`);
        break;
      case 'base_url':
        widen('base_url', `base_url = ${quote(value)}: sends requests, and the API key, to that address`);
        break;
      case 'api_key_env':
        widen('api_key_env', `api_key_env = ${quote(value)}: sends the value of that variable as the API key`);
        break;
      case 'permissions':
        restricted.permissions = judgePermissions(value as Table, (baseline.permissions ?? {}) as Table, widen);
        break;
      case 'providers':
        restricted.providers = judgeProviders(value as Table, (baseline.providers ?? {}) as Table, widen);
        break;
      case 'mcp_servers':
        restricted.mcp_servers = judgeMcpServers(value as Table, (baseline.mcp_servers ?? {}) as Table, widen);
        break;
      case 'sandbox': {
        const kept = judgeSandbox(value as Table, ((baseline as Table).sandbox ?? {}) as Table, widen);
        if (Object.keys(kept).length > 0) restricted[key] = kept;
        break;
      }
      case 'web_fetch': {
        const allows = (value as Table).allow_private_addresses === true;
        const userAllows = ((baseline as Table).web_fetch as Table | undefined)?.allow_private_addresses === true;
        if (!allows || userAllows) restricted[key] = value;
        else widen('web_fetch.allow_private_addresses', 'fetches loopback, private and cloud metadata addresses');
        break;
      }
      case 'undo': {
        // Waiting longer only makes more undoable; a shorter wait leaves commands without undo.
        const asked = (value as Table).track_timeout_ms;
        const base = ((baseline as Table).undo as Table | undefined)?.track_timeout_ms;
        if (typeof asked !== 'number' || asked >= (typeof base === 'number' ? base : DEFAULT_UNDO_TRACK_TIMEOUT_MS)) restricted[key] = value;
        else widen('undo.track_timeout_ms', `undo.track_timeout_ms = ${asked}: leaves what commands change without undo sooner`);
        break;
      }
      case 'limits': {
        const kept = judgeLimits(value as Table, ((baseline as Table).limits ?? {}) as Table, widen);
        if (Object.keys(kept).length > 0) restricted[key] = kept;
        break;
      }
      case 'mcp': {
        // Importing fewer tools' servers than the user narrows; importing more starts what those files name.
        const asked = (value as Table).import as string[] | undefined;
        if (asked === undefined) break;
        const mine = new Set((((baseline as Table).mcp as Table | undefined)?.import ?? []) as string[]);
        const extra = asked.filter((source) => !mine.has(source));
        restricted[key] = { ...(value as Table), import: asked.filter((source) => mine.has(source)) };
        if (extra.length > 0) widen('mcp.import', `starts the MCP servers of these tools' configuration files: ${extra.map(quote).join(', ')}`, extra);
        break;
      }
      case 'web_search':
        widen('web_search', `web_search = ${describe(value)}: sends searches, and any search key, to that service`, value);
        break;
      case 'hooks':
        // Every hook runs a command of the project's choosing.
        for (const hook of value as { event: string; command: string; matcher?: string }[]) widen('hooks', hookText(hook), hook);
        break;
      case 'claude_hooks':
        widen('claude_hooks', `runs the hooks of these Claude Code settings files: ${(value as string[]).map(quote).join(', ')}`, value);
        break;
      case 'telemetry':
        widen('telemetry', `telemetry = ${describe(value)}: sends traces (prompts, code, outputs) to that endpoint`, value);
        break;
      default:
        widen(key, `${key} = ${describe(value)}`, value);
    }
  }
  return { widenings, restricted: dropEmpty(restricted) as SettingsDocument };
}

type Widen = (setting: string, text: string, value?: unknown) => void;

/** The sandbox table: a weaker mode, more reachable domains or ports, private addresses or a bigger /tmp than the user's are widenings. */
function judgeSandbox(project: Table, baseline: Table, widen: Widen): Table {
  const kept: Table = {};
  for (const [field, value] of Object.entries(project)) {
    if (field === 'mode') {
      const base = typeof baseline.mode === 'string' ? baseline.mode : 'auto';
      if ((SANDBOX_RANK[String(value)] ?? -1) >= (SANDBOX_RANK[base] ?? 1)) kept.mode = value;
      else widen('sandbox.mode', `sandbox mode = ${quote(value)}: runs commands with less isolation (you have ${quote(base)})`);
    } else if (field === 'allow_domains') {
      const trusted = new Set(Array.isArray(baseline.allow_domains) ? (baseline.allow_domains as string[]) : []);
      const asked = Array.isArray(value) ? (value as string[]) : [];
      const extra = asked.filter((domain) => !trusted.has(domain));
      kept.allow_domains = asked.filter((domain) => trusted.has(domain));
      if (extra.length > 0) widen('sandbox.allow_domains', `lets commands reach ${extra.map(quote).join(', ')} through the sandbox's proxy`, extra);
    } else if (field === 'allow_ports') {
      const trusted = new Set(Array.isArray(baseline.allow_ports) ? (baseline.allow_ports as number[]) : DEFAULT_SANDBOX_PORTS);
      const asked = Array.isArray(value) ? (value as number[]) : [];
      const extra = asked.filter((port) => !trusted.has(port));
      kept.allow_ports = asked.filter((port) => trusted.has(port));
      if (extra.length > 0) widen('sandbox.allow_ports', `lets commands reach ports ${extra.join(', ')} through the sandbox's proxy`, extra);
    } else if (field === 'allow_private_addresses') {
      if (value !== true || baseline.allow_private_addresses === true) kept.allow_private_addresses = value;
      else widen('sandbox.allow_private_addresses', "lets commands reach loopback, private and cloud metadata addresses through the sandbox's proxy");
    } else if (field === 'tmp_size_mb') {
      const base = typeof baseline.tmp_size_mb === 'number' ? baseline.tmp_size_mb : DEFAULT_SANDBOX_TMP_SIZE_MB;
      if (typeof value === 'number' && value <= base) kept.tmp_size_mb = value;
      else widen('sandbox.tmp_size_mb', `sandbox tmp_size_mb = ${quote(value)}: lets commands fill more memory with /tmp (you have ${base})`);
    } else {
      widen(`sandbox.${field}`, `sandbox ${field} = ${describe(value)}`, value);
    }
  }
  return kept;
}

/** Spending limits: a lower limit than the user's (or one where the user set none) narrows; a higher one spends more of the user's money. */
function judgeLimits(project: Table, baseline: Table, widen: Widen): Table {
  const kept: Table = {};
  for (const [field, value] of Object.entries(project)) {
    const base = baseline[field];
    // How many subagents run at once changes when money is spent, not how much.
    if (field === 'concurrency') kept[field] = value;
    else if (typeof value === 'number' && (typeof base !== 'number' || value <= base)) kept[field] = value;
    else widen(`limits.${field}`, `limits ${field} = ${quote(value)}: lets a prompt spend more (you have ${quote(base)})`);
  }
  return kept;
}

function judgePermissions(project: Table, baseline: Table, widen: Widen): Table {
  const kept: Table = {};
  for (const [category, rule] of Object.entries(project)) {
    if (category === 'allow_commands') {
      const trusted = new Set(Array.isArray(baseline.allow_commands) ? (baseline.allow_commands as string[]) : []);
      const asked = Array.isArray(rule) ? (rule as string[]) : [];
      const extra = asked.filter((command) => !trusted.has(command));
      // Arrays replace: keeping only what the user allowed too narrows the list, never widens it.
      kept.allow_commands = asked.filter((command) => trusted.has(command));
      if (extra.length > 0) widen('permissions.allow_commands', `runs these commands without asking: ${extra.map(quote).join(', ')}`);
      continue;
    }
    const base = typeof baseline[category] === 'string' ? (baseline[category] as string) : DEFAULT_RULES[category];
    if ((RANK[String(rule)] ?? -1) >= (RANK[base ?? 'ask'] ?? 1)) kept[category] = rule;
    else widen(`permissions.${category}`, `${category} = ${quote(rule)}: ${category} without asking (you have ${quote(base)})`);
  }
  return kept;
}

function judgeProviders(project: Table, baseline: Table, widen: Widen): Table {
  const kept: Table = {};
  for (const [name, table] of Object.entries(project)) {
    const fields = (table ?? {}) as Table;
    const known = baseline[name] as Table | undefined;
    if (!known) {
      widen(`providers.${name}`, `a provider of its own, ${describe(fields)}`, fields);
      continue;
    }
    const safe: Table = {};
    for (const [field, value] of Object.entries(fields)) {
      if ((PROVIDER_ROUTE_FIELDS as readonly string[]).includes(field) && !same(value, known[field])) {
        widen(`providers.${name}.${field}`, `${field} = ${quote(value)}: changes where ${name} requests and its key go`);
      } else {
        safe[field] = value;
      }
    }
    kept[name] = safe;
  }
  return kept;
}

function judgeMcpServers(project: Table, baseline: Table, widen: Widen): Table {
  const kept: Table = {};
  for (const [name, table] of Object.entries(project)) {
    const fields = (table ?? {}) as Table;
    const known = baseline[name] as Table | undefined;
    const knownEnabled = known !== undefined && known.enabled !== false;
    const safe: Table = {};
    for (const [field, value] of Object.entries(fields)) {
      const routes = (MCP_ROUTE_FIELDS as readonly string[]).includes(field) && !same(value, known?.[field]);
      const enables = field === 'enabled' && value !== false && !knownEnabled;
      const loosens = field === 'permission' && (RANK[String(value)] ?? 0) < (RANK[String(known?.permission ?? 'ask')] ?? 1);
      if (routes || enables || loosens) continue;
      safe[field] = value;
    }
    const dropped = Object.keys(fields).filter((field) => !(field in safe));
    if (dropped.length > 0) widen(`mcp_servers.${name}`, `MCP server "${name}" ${known ? 'changed' : 'added'}: ${mcpServerText(fields)}`, fields);
    // A server the user does not have is dropped whole: what is left of it could not run.
    if (known && Object.keys(safe).length > 0) kept[name] = safe;
  }
  return kept;
}

/**
 * A stable digest of what a project asks for, every field of it: trust
 * given to one set of widenings is not trust for another, nor for the same
 * setting with one field more (an env name, a header, a permission).
 */
export function wideningFingerprint(widenings: readonly Widening[]): string {
  const lines = widenings.map((w) => `${w.setting}\u0000${w.text}\u0000${canonical(w.value)}`).sort();
  return createHash('sha256').update(lines.join('\n')).digest('hex');
}

/** JSON with every table's keys sorted, so equal values give equal text. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    return `{${Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonical((value as Table)[key])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** An MCP server table as a person reads it: what it runs or reaches first, then every other field. */
function mcpServerText(fields: Table): string {
  const { command, args, url, ...rest } = fields;
  const reach =
    command !== undefined ? `runs ${quote([command, ...((args as unknown[]) ?? [])].join(' '))}` : url !== undefined ? `reaches ${quote(url)}` : 'no command or url';
  const more = Object.keys(rest).sort().map((field) => `${field} = ${describe(rest[field])}`);
  return more.length > 0 ? `${reach}, with ${more.join(', ')}` : reach;
}

function same(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

function quote(value: unknown): string {
  return JSON.stringify(value) ?? String(value);
}

/** A value in full: what a person trusts is what they were shown, so nothing is cut. */
function describe(value: unknown): string {
  return canonical(value);
}

function dropEmpty(table: Table): Table {
  return Object.fromEntries(
    Object.entries(table).filter(([, value]) => !(value !== null && typeof value === 'object' && !Array.isArray(value) && Object.keys(value).length === 0)),
  );
}
