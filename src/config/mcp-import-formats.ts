/**
 * The MCP servers of other tools' configuration files, in their own formats:
 * Claude Code's project `.mcp.json` and Claude Desktop's
 * `claude_desktop_config.json` (`mcpServers`: name → command, args, env, or
 * type "http"/"sse" with url and headers), and VS Code's `mcp.json`
 * (`servers` with `type`, `envFile`, and `inputs`). Each server becomes a
 * transport Crow can start, or a problem in words that say what to change.
 * What a file says is someone else's text: names are checked, every value
 * must be of its type, and what a person is shown of it never includes the
 * values of its environment variables or headers.
 */
import { isAbsolute, resolve } from 'node:path';
import { clip, shownText } from '../vocabulary/text';
import { claudeCodeText, type Filled, vscodeText, type VscodeContext } from './mcp-import-variables';

/** The tools whose files Crow can take MCP servers from, as `[mcp] import` names them. */
export const MCP_IMPORT_SOURCES = ['claude-code', 'claude-desktop', 'vscode'] as const;
export type McpImportSource = (typeof MCP_IMPORT_SOURCES)[number];

/** Each tool's name as a person reads it. */
export const SOURCE_TITLES: Readonly<Record<McpImportSource, string>> = {
  'claude-code': 'Claude Code',
  'claude-desktop': 'Claude Desktop',
  vscode: 'VS Code',
};

/** How to reach an imported server (the shape of the MCP layer's McpTransportConfig). */
export type ImportedTransport =
  | { type: 'stdio'; command: string; args: string[]; env: Record<string, string> }
  | { type: 'http' | 'sse'; url: string; headers: Record<string, string> };

/** A server as a person may be shown it: what runs or is reached as written (variables unfilled), and only the names of its variables and headers. */
export interface ShownServer {
  transport: 'stdio' | 'http' | 'sse' | '?';
  /** The command and its arguments, or the URL, as the file writes them. */
  target: string;
  env: string[];
  headers: string[];
  envFile?: string;
}

/** One server of one file. */
export interface ImportedServer {
  name: string;
  source: McpImportSource;
  /** The file (absolute). */
  file: string;
  /** A project file lies inside the workspace (a widening); a user file is the person's own. */
  scope: 'user' | 'project';
  shown: ShownServer;
  /** Ready to start; absent when there is a problem. */
  transport?: ImportedTransport;
  /** Why it cannot start as written. */
  problem?: string;
  /** The entry as written, which the trust record fingerprints (never shown). */
  written: unknown;
}

/** Servers one file lists at most: a file naming thousands would start thousands of processes. */
export const MAX_IMPORTED_SERVERS = 50;

/** A server's name must be one Crow's tools can be named by (as [mcp_servers.NAME]). */
const SERVER_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

type Table = Record<string, unknown>;

/** How one file's values are filled in and read. */
export interface FormatContext {
  source: McpImportSource;
  file: string;
  scope: 'user' | 'project';
  env: NodeJS.ProcessEnv;
  root: string;
  home: string;
  /** Reads an envFile (VS Code), bounded like the file itself; a problem when it cannot. */
  readEnvFile: (path: string) => { variables: Record<string, string> } | { problem: string };
}

/** The servers of one parsed file; a problem when the file's shape is not its tool's. */
export function serversOfDocument(document: unknown, context: FormatContext): { servers: ImportedServer[]; problem?: string } {
  if (!isTable(document)) return { servers: [], problem: `holds ${kindOf(document)}, not a JSON object` };
  const key = context.source === 'vscode' ? 'servers' : 'mcpServers';
  const listed = document[key];
  if (listed === undefined) return { servers: [] };
  if (!isTable(listed)) return { servers: [], problem: `has "${key}" as ${kindOf(listed)}, not an object of servers by name` };
  const inputs = context.source === 'vscode' ? inputsOf(document.inputs) : new Map<string, string>();
  const entries = Object.entries(listed);
  const servers = entries.slice(0, MAX_IMPORTED_SERVERS).map(([name, entry]) => serverOf(name, entry, context, inputs));
  const problem = entries.length > MAX_IMPORTED_SERVERS ? `lists ${entries.length} servers; Crow takes the first ${MAX_IMPORTED_SERVERS}` : undefined;
  return problem !== undefined ? { servers, problem } : { servers };
}

function serverOf(name: string, entry: unknown, context: FormatContext, inputs: ReadonlyMap<string, string>): ImportedServer {
  const base = { name, source: context.source, file: context.file, scope: context.scope, written: entry };
  const shown = shownOf(entry);
  if (!SERVER_NAME.test(name)) {
    // Named as a person can read it: the file's name may hold terminal escapes.
    return { ...base, name: clip(shownText(name).replace(/\n/g, '\\n'), 80), shown, problem: 'its name is not one Crow can use (up to 64 letters, digits, ".", "_" and "-", starting with a letter or digit); rename it in the file' };
  }
  if (!isTable(entry)) return { ...base, shown, problem: `it is ${kindOf(entry)}, not an object` };
  try {
    return { ...base, shown, transport: transportOf(entry, context, inputs) };
  } catch (err) {
    if (!(err instanceof EntryProblem)) throw err;
    return { ...base, shown, problem: shownText(err.message) };
  }
}

class EntryProblem extends Error {}

function transportOf(entry: Table, context: FormatContext, inputs: ReadonlyMap<string, string>): ImportedTransport {
  const fill = filler(context, inputs);
  const type = entry.type === undefined ? (entry.command !== undefined ? 'stdio' : entry.url !== undefined ? 'http' : undefined) : entry.type;
  if (type === undefined) throw new EntryProblem('it has neither command (a server over stdio) nor url (a remote server)');
  if (type !== 'stdio' && type !== 'http' && type !== 'sse') throw new EntryProblem(`its type ${JSON.stringify(type)} is none of "stdio", "http" and "sse"`);
  if (type === 'stdio') {
    const command = text(entry, 'command');
    if (command === undefined || command.trim() === '') throw new EntryProblem('its type is stdio but it has no command');
    const args = texts(entry, 'args');
    const fromFile = context.source === 'vscode' && entry.envFile !== undefined ? envFileOf(entry, fill, context) : {};
    const env = { ...fromFile, ...mapValues(textTable(entry, 'env'), fill, 'env') };
    return { type, command: filled(fill(command), 'command'), args: args.map((arg) => filled(fill(arg), 'args')), env };
  }
  const url = filled(fill(text(entry, 'url') ?? throwProblem(`its type is ${type} but it has no url`)), 'url');
  if (!/^https?:\/\//i.test(url) || !URL.canParse(url)) throw new EntryProblem('its url is not an http(s) URL');
  return { type, url, headers: mapValues(textTable(entry, 'headers'), fill, 'headers') };
}

/** How the file's tool fills in variables: Claude Code's ${VAR}, VS Code's ${env:VAR} and friends, none for Claude Desktop. */
function filler(context: FormatContext, inputs: ReadonlyMap<string, string>): (value: string) => Filled {
  switch (context.source) {
    case 'claude-code':
      return (value) => claudeCodeText(value, context.env);
    case 'vscode': {
      const vscode: VscodeContext = { env: context.env, root: context.root, home: context.home, inputs };
      return (value) => vscodeText(value, vscode);
    }
    case 'claude-desktop':
      return (value) => ({ text: value });
  }
}

function envFileOf(entry: Table, fill: (value: string) => Filled, context: FormatContext): Record<string, string> {
  const written = text(entry, 'envFile');
  if (written === undefined) return {};
  const path = filled(fill(written), 'envFile');
  const read = context.readEnvFile(isAbsolute(path) ? path : resolve(context.root, path));
  if ('problem' in read) throw new EntryProblem(`its envFile ${path} ${read.problem}`);
  return read.variables;
}

function filled(value: Filled, field: string): string {
  if ('problem' in value) throw new EntryProblem(`${field}: ${value.problem}`);
  return value.text;
}

function mapValues(table: Record<string, string>, fill: (value: string) => Filled, field: string): Record<string, string> {
  return Object.fromEntries(Object.entries(table).map(([key, value]) => [key, filled(fill(value), `${field}.${key}`)]));
}

function text(entry: Table, field: string): string | undefined {
  const value = entry[field];
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw new EntryProblem(`its ${field} is ${kindOf(value)}, not text`);
  return value;
}

function texts(entry: Table, field: string): string[] {
  const value = entry[field];
  if (value === undefined) return [];
  if (!Array.isArray(value) || value.some((item) => typeof item !== 'string')) throw new EntryProblem(`its ${field} is not a list of texts`);
  return value as string[];
}

function textTable(entry: Table, field: string): Record<string, string> {
  const value = entry[field];
  if (value === undefined || value === null) return {};
  if (!isTable(value)) throw new EntryProblem(`its ${field} is ${kindOf(value)}, not an object of names and texts`);
  const wrong = Object.entries(value).find(([, item]) => typeof item !== 'string');
  if (wrong) throw new EntryProblem(`its ${field} value for ${JSON.stringify(wrong[0])} is ${kindOf(wrong[1])}, not text`);
  return value as Record<string, string>;
}

function throwProblem(message: string): never {
  throw new EntryProblem(message);
}

/** What a person may be shown of an entry, whatever its shape: never a variable's or header's value. */
function shownOf(entry: unknown): ShownServer {
  if (!isTable(entry)) return { transport: '?', target: '', env: [], headers: [] };
  const command = typeof entry.command === 'string' ? entry.command : undefined;
  const url = typeof entry.url === 'string' ? entry.url : undefined;
  const args = Array.isArray(entry.args) ? entry.args.map((arg) => (typeof arg === 'string' ? arg : JSON.stringify(arg) ?? '')) : [];
  const type = entry.type === undefined ? (entry.command !== undefined ? 'stdio' : entry.url !== undefined ? 'http' : '?') : ['stdio', 'http', 'sse'].includes(entry.type as string) ? (entry.type as 'stdio' | 'http' | 'sse') : '?';
  const names = (value: unknown): string[] => (isTable(value) ? Object.keys(value) : []);
  return {
    transport: type,
    target: type === 'stdio' || (type === '?' && url === undefined) ? [command ?? '', ...args].join(' ').trim() : (url ?? ''),
    env: names(entry.env),
    headers: names(entry.headers),
    ...(typeof entry.envFile === 'string' ? { envFile: entry.envFile } : {}),
  };
}

/** VS Code's `inputs`: id → description, for saying what a server needs. */
function inputsOf(value: unknown): Map<string, string> {
  const inputs = new Map<string, string>();
  if (!Array.isArray(value)) return inputs;
  for (const input of value) {
    if (isTable(input) && typeof input.id === 'string') inputs.set(input.id, typeof input.description === 'string' ? input.description : 'no description');
  }
  return inputs;
}

function isTable(value: unknown): value is Table {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}
