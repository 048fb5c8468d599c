/**
 * Workspace trust for a project's own settings (`.crow/config.toml`). What a
 * cloned repository says may narrow what the agent may do, never widen it,
 * until the user has trusted the folder: anything that loosens a permission,
 * starts a process, or changes where requests, keys and traces go is a
 * widening. An untrusted project keeps only the parts that cannot widen.
 *
 * Each key's rule is its trust class in the configuration table
 * (config-keys.ts); the check below applies the classes, and judges the
 * tables of named things (providers, MCP servers) field by field. It is an
 * allow-list: a key the table does not know is a widening.
 */
import { createHash } from 'node:crypto';
import { type ConfigKey, fieldName, rowsUnder, type SettingsDocument, type TrustRule } from './config-keys';
import { canonical, quote } from './keys/quote';

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

/** Keys a project may set freely (the table's trust class `any`): they change how the agent works, not what it may reach. */
export const HARMLESS_KEYS: ReadonlySet<string> = new Set(rowsUnder('').filter((row) => row.trust.kind === 'any').map(fieldName));

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
  const widen = (setting: string, text: string, value?: unknown): void => void widenings.push({ file, setting, text, ...(value !== undefined ? { value } : {}) });
  const kept = judgeTable('', project as Table, baseline as Table, widen);
  return { widenings, restricted: dropEmpty(kept) as SettingsDocument };
}

type Widen = (setting: string, text: string, value?: unknown) => void;

/**
 * What a project may keep of a table (the document itself for ''), each
 * value judged by its row's trust class against the user's value, else the
 * row's default; what it may not keep is a widening. A key the table does
 * not know is a widening.
 */
function judgeTable(table: string, project: Table, baseline: Table, widen: Widen): Table {
  const kept: Table = {};
  for (const [field, value] of Object.entries(project)) {
    if (value === undefined) continue;
    const setting = table === '' ? field : `${table}.${field}`;
    const row = rowsUnder(table).find((candidate) => fieldName(candidate) === field);
    if (!row) {
      widen(setting, `${table === '' ? '' : `${table} `}${field} = ${describe(value)}`, value);
      continue;
    }
    const judged = judgeValue(row, setting, field, value, baseline[field], widen);
    if (judged !== undefined) kept[field] = judged;
  }
  return kept;
}

/** The part of one value a project keeps under its row's trust rule; undefined: none of it. */
function judgeValue(row: ConfigKey, setting: string, field: string, value: unknown, mine: unknown, widen: Widen): unknown {
  const rule = row.trust;
  switch (rule.kind) {
    case 'any':
      return value;
    case 'fields':
      // An empty table is dropped once the whole document is judged.
      return judgeTable(row.key, value as Table, (mine ?? {}) as Table, widen);
    case 'same':
      if (same(value, mine)) return value;
      widen(setting, rule.widens(value));
      return undefined;
    case 'narrow': {
      const line = mine ?? row.default;
      if (narrows(rule, value, line)) return value;
      widen(setting, rule.widens(value, line, field));
      return undefined;
    }
    case 'subset': {
      const trusted = new Set(Array.isArray(mine) ? (mine as unknown[]) : ((row.default ?? []) as unknown[]));
      const asked = Array.isArray(value) ? (value as unknown[]) : [];
      const extra = asked.filter((entry) => !trusted.has(entry));
      // Arrays replace: keeping only what the user allowed too narrows the list, never widens it.
      if (extra.length > 0) widen(setting, rule.widens(extra), rule.fingerprintExtra ? extra : undefined);
      return asked.filter((entry) => trusted.has(entry));
    }
    case 'entries':
      return rule.judge === 'providers' ? judgeProviders(value as Table, (mine ?? {}) as Table, widen) : judgeMcpServers(value as Table, (mine ?? {}) as Table, widen);
    case 'never':
      for (const each of rule.each ? (value as unknown[]) : [value]) widen(setting, rule.widens(each), rule.fingerprintValue ? each : undefined);
      return undefined;
  }
}

/** Whether a value keeps to the user's line (`line`): no earlier in `order`, or not past it in `direction`. */
function narrows(rule: Extract<TrustRule, { kind: 'narrow' }>, value: unknown, line: unknown): boolean {
  if ('order' in rule) return rule.order.indexOf(value) >= 0 && rule.order.indexOf(value) >= rule.order.indexOf(line);
  if (typeof value !== 'number') return false;
  if (typeof line !== 'number') return true;
  return rule.direction === 'lower' ? value <= line : value >= line;
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

/** A value in full: what a person trusts is what they were shown, so nothing is cut. */
function describe(value: unknown): string {
  return canonical(value);
}

function dropEmpty(table: Table): Table {
  return Object.fromEntries(
    Object.entries(table).filter(([, value]) => !(value !== null && typeof value === 'object' && !Array.isArray(value) && Object.keys(value).length === 0)),
  );
}
