/**
 * MCP servers the person already configured for other tools, offered to
 * Crow's sessions. The rule:
 *
 * - Crow looks for Claude Code's project `.mcp.json`, VS Code's `mcp.json`
 *   (the workspace's `.vscode/mcp.json` and the user profile's) and Claude
 *   Desktop's `claude_desktop_config.json`, but starts nothing from them
 *   until `[mcp] import` (VS Code: `crow.mcp.import`) names their tool; it
 *   tells the person once what it found and how to turn it on.
 * - A file inside the workspace is the project's: a widening, used only in a
 *   trusted folder, and shown (each server's command or URL) when the
 *   person is asked to trust it. A file of the person's own profile is used
 *   as their own configuration.
 * - Crow's own `[mcp_servers]` win a name (a disabled one too); among the
 *   files, the more specific wins: `.mcp.json`, `.vscode/mcp.json`, VS Code's
 *   user file, Claude Desktop's.
 * - Imported servers keep the default permission (execute: asked first).
 *   Only a user file's servers may have their read-only hints trusted.
 */
import { closeSync, constants, fstatSync, mkdirSync, openSync, readFileSync, readSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { posix, win32 } from 'node:path';
import { type ImportedServer, MCP_IMPORT_SOURCES, type McpImportSource, serversOfDocument, SOURCE_TITLES } from './mcp-import-formats';
import { envFileVariables } from './mcp-import-variables';
import { configHome, PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from './paths';
import type { Widening } from './project-trust';
import type { SettingsDocument } from './settings-file';
import { clip, shownText } from '../vocabulary/text';

export { MCP_IMPORT_SOURCES, SOURCE_TITLES, type ImportedServer, type McpImportSource };

/** Bytes of one configuration file (or envFile) Crow reads at most: these files are a few kilobytes. */
export const MAX_IMPORT_FILE_BYTES = 1024 * 1024;

/** One file found, and its servers. */
export interface FoundFile {
  source: McpImportSource;
  file: string;
  scope: 'user' | 'project';
  servers: ImportedServer[];
  /** Why (some of) the file could not be used: unreadable, too big, not JSON, not its tool's shape. */
  problem?: string;
}

/** Whether one found server is used, and if not, why. */
export type ImportVerdict = { used: true } | { used: false; why: string };

/**
 * Where each tool keeps its MCP configuration, most specific first.
 * Per OS, as each tool documents it: Claude Desktop in
 * `~/Library/Application Support/Claude/` (macOS), `%APPDATA%\Claude\`
 * (Windows), `~/.config/Claude/` (Linux, XDG_CONFIG_HOME honoured, as
 * Electron does); VS Code's user profile in `…/Code/User/` under the same
 * folders (https://code.visualstudio.com/docs/configure/settings#_settings-file-locations).
 */
export function importLocations(root: string, env: NodeJS.ProcessEnv, platform: NodeJS.Platform = process.platform): { source: McpImportSource; file: string; scope: 'user' | 'project' }[] {
  const path = platform === 'win32' ? win32 : posix;
  const home = homeOf(env);
  const appData =
    platform === 'win32' ? env.APPDATA || path.join(home, 'AppData', 'Roaming') : platform === 'darwin' ? path.join(home, 'Library', 'Application Support') : env.XDG_CONFIG_HOME || path.join(home, '.config');
  // A profile's file is the person's own even when the folder holds their home (crow run in ~): no repository puts it there.
  return [
    { source: 'claude-code', scope: 'project', file: path.join(root, '.mcp.json') },
    { source: 'vscode', scope: 'project', file: path.join(root, '.vscode', 'mcp.json') },
    { source: 'vscode', scope: 'user', file: path.join(appData, 'Code', 'User', 'mcp.json') },
    { source: 'claude-desktop', scope: 'user', file: path.join(appData, 'Claude', 'claude_desktop_config.json') },
  ];
}

/** Every file of `importLocations` that exists, read and judged; nothing is started. */
export function findMcpFiles(root: string, env: NodeJS.ProcessEnv, platform: NodeJS.Platform = process.platform): FoundFile[] {
  const home = homeOf(env);
  return importLocations(root, env, platform).flatMap(({ source, file, scope }) => {
    const read = readBounded(file);
    if ('missing' in read) return [];
    if ('problem' in read) return [{ source, file, scope, servers: [], problem: read.problem }];
    const parsed = parseJson(read.text, source === 'vscode');
    if ('problem' in parsed) return [{ source, file, scope, servers: [], problem: parsed.problem }];
    const readEnvFile = (path: string): { variables: Record<string, string> } | { problem: string } => {
      const envFile = readBounded(path);
      if ('missing' in envFile) return { problem: 'does not exist' };
      return 'problem' in envFile ? envFile : { variables: envFileVariables(envFile.text) };
    };
    const { servers, problem } = serversOfDocument(parsed.value, { source, file, scope, env, root, home, readEnvFile });
    return [{ source, file, scope, servers, ...(problem !== undefined ? { problem } : {}) }];
  });
}

/**
 * Each found server with whether a session gets it: only from the tools
 * `sources` names, a project file's only in a `trusted` folder, none whose
 * name Crow's own `[mcp_servers]` (`crowNames`) or a more specific file
 * took, none with a problem.
 */
export function judgeImports(found: readonly FoundFile[], sources: readonly McpImportSource[], trusted: boolean, crowNames: ReadonlySet<string>): Map<ImportedServer, ImportVerdict> {
  const verdicts = new Map<ImportedServer, ImportVerdict>();
  const taken = new Map<string, string>();
  for (const file of found) {
    for (const server of file.servers) {
      verdicts.set(server, verdictOf(server, file, sources, trusted, crowNames, taken));
      if (verdicts.get(server)!.used) taken.set(server.name, file.file);
    }
  }
  return verdicts;
}

function verdictOf(
  server: ImportedServer,
  file: FoundFile,
  sources: readonly McpImportSource[],
  trusted: boolean,
  crowNames: ReadonlySet<string>,
  taken: ReadonlyMap<string, string>,
): ImportVerdict {
  if (!sources.includes(file.source)) return { used: false, why: `not imported: add "${file.source}" to [mcp] import in config.toml (crow.mcp.import in VS Code)` };
  if (file.scope === 'project' && !trusted) return { used: false, why: 'the folder is not trusted: a project file is used only once you trust the folder (crow trust)' };
  if (server.problem !== undefined) return { used: false, why: server.problem };
  if (crowNames.has(server.name)) return { used: false, why: `Crow's own [mcp_servers.${server.name}] has this name and wins` };
  const before = taken.get(server.name);
  if (before !== undefined) return { used: false, why: `${before} has a server of this name and wins` };
  return { used: true };
}

/**
 * The servers a session starts from other tools' files, in order. A server
 * with a problem is kept when its tool is imported and its file allowed,
 * so that starting it reports the problem instead of failing silently.
 */
export function importedMcpServers(found: readonly FoundFile[], sources: readonly McpImportSource[], trusted: boolean, crowNames: ReadonlySet<string>): ImportedServer[] {
  const verdicts = judgeImports(found, sources, trusted, crowNames);
  const names = new Set<string>();
  return found.flatMap((file) =>
    file.servers.filter((server) => {
      const verdict = verdicts.get(server)!;
      const reported = server.problem !== undefined && sources.includes(file.source) && (file.scope === 'user' || trusted) && !crowNames.has(server.name) && !names.has(server.name);
      if (!verdict.used && !reported) return false;
      names.add(server.name);
      return true;
    }),
  );
}

/**
 * What the project's own files ask for once their tool is imported (by the
 * user, the front door or the project): every server of a project file,
 * with its command or URL, fingerprinted whole (any change asks again).
 */
export function mcpImportWidenings(root: string, env: NodeJS.ProcessEnv, layers: { baseline: SettingsDocument; project: SettingsDocument }): Widening[] {
  const sources = new Set([...(layers.baseline.mcp?.import ?? []), ...(layers.project.mcp?.import ?? [])]);
  if (sources.size === 0) return [];
  return findMcpFiles(root, env)
    .filter((file) => file.scope === 'project' && sources.has(file.source))
    .flatMap((file) =>
      file.servers.map((server) => ({
        file: file.file,
        setting: `MCP server "${server.name}" of ${SOURCE_TITLES[file.source]}`,
        text: shownServerText(server),
        value: { name: server.name, written: server.written },
      })),
    );
}

/** A server as a person reads it: what it runs or reaches as written, and the names of what it is given. */
export function shownServerText(server: ImportedServer): string {
  const shown = { ...server.shown, target: visible(server.shown.target), env: server.shown.env.map(visible), headers: server.shown.headers.map(visible) };
  const reach = shown.transport === 'stdio' ? `runs ${JSON.stringify(shown.target)}` : shown.transport === '?' ? 'an entry Crow cannot read' : `reaches ${JSON.stringify(shown.target)} (${shown.transport})`;
  const given = [
    ...(shown.env.length > 0 ? [`environment ${shown.env.join(', ')}`] : []),
    ...(shown.envFile !== undefined ? [`the variables of ${shown.envFile}`] : []),
    ...(shown.headers.length > 0 ? [`headers ${shown.headers.join(', ')}`] : []),
  ];
  return given.length > 0 ? `${reach}, with ${given.join(' and ')}` : reach;
}

/** Text from someone else's file on one line, its control characters (escapes, line breaks) shown as marks. */
export function visible(text: string): string {
  return shownText(text).replace(/\n/g, '\\n').replace(/\t/g, '\\t');
}

const TOLD_FILE = 'mcp-import-told.json';

/**
 * The line telling the person, once per file, which other tools' MCP
 * servers Crow found and left alone because `[mcp] import` does not name
 * their tool; undefined when there is nothing new to tell. What was told is
 * remembered in the config folder.
 */
export function foundNotice(found: readonly FoundFile[], sources: readonly McpImportSource[], env: NodeJS.ProcessEnv): string | undefined {
  const unused = found.filter((file) => !sources.includes(file.source) && file.servers.length > 0);
  if (unused.length === 0) return undefined;
  const path = posix.join(configHome(env), TOLD_FILE);
  let told: string[] = [];
  try {
    const parsed = JSON.parse(readFileSync(path, 'utf8')) as unknown;
    if (Array.isArray(parsed)) told = parsed.filter((entry): entry is string => typeof entry === 'string');
  } catch {
    // Nothing told yet, or a file we cannot read: tell again.
  }
  const fresh = unused.filter((file) => !told.includes(file.file));
  if (fresh.length === 0) return undefined;
  try {
    mkdirSync(configHome(env), { recursive: true, mode: PRIVATE_DIR_MODE });
    writeFileSync(path, JSON.stringify([...told, ...fresh.map((file) => file.file)]), { mode: PRIVATE_FILE_MODE });
  } catch {
    // Told again next time: better than not at all.
  }
  const what = fresh.map((file) => `${SOURCE_TITLES[file.source]} (${file.file}: ${file.servers.length} server${file.servers.length === 1 ? '' : 's'})`).join(', ');
  const names = [...new Set(fresh.map((file) => JSON.stringify(file.source)))].join(', ');
  return `Found MCP servers configured for other tools: ${what}. Crow starts none of them unless you say so: add [mcp] import = [${names}] to config.toml (crow.mcp.import in VS Code). See crow mcp list.`;
}

function homeOf(env: NodeJS.ProcessEnv): string {
  return env.HOME || env.USERPROFILE || homedir();
}

/** A file's text, read no further than MAX_IMPORT_FILE_BYTES; `missing` when it does not exist. */
function readBounded(file: string): { text: string } | { missing: true } | { problem: string } {
  let fd: number;
  try {
    // Not blocking: a named pipe planted as .mcp.json would otherwise hold crow at the open until someone writes to it.
    fd = openSync(file, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return { missing: true };
    return { problem: `cannot be read (${code ?? (err as Error).message})` };
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) return { problem: 'is not a file' };
    if (stat.size > MAX_IMPORT_FILE_BYTES) {
      return { problem: `is ${(stat.size / 1024 / 1024).toFixed(1)} MB, more than the ${MAX_IMPORT_FILE_BYTES / 1024 / 1024} MB Crow reads of such a file; it is left unread` };
    }
    const buffer = Buffer.alloc(stat.size);
    const length = stat.size === 0 ? 0 : readSync(fd, buffer, 0, stat.size, 0);
    return { text: buffer.subarray(0, length).toString('utf8') };
  } finally {
    closeSync(fd);
  }
}

/** JSON, or with `comments` JSON with comments and trailing commas (VS Code's JSONC); a problem saying where it is wrong. */
function parseJson(text: string, comments: boolean): { value: unknown } | { problem: string } {
  try {
    return { value: JSON.parse(comments ? withoutComments(text) : text) };
  } catch (err) {
    // The parser quotes the text near the mistake, which may hold anything.
    return { problem: `is not valid JSON${comments ? ' (with comments)' : ''}: ${clip(shownText((err as Error).message), 200)}; fix it there` };
  }
}

/** JSONC as plain JSON: `//` and `/* *\/` comments and commas before a closing bracket removed, strings left alone. */
export function withoutComments(text: string): string {
  const out: string[] = [];
  /** Where in `out` the last comma stands while only blanks followed it; -1 otherwise. */
  let comma = -1;
  for (let i = 0; i < text.length; i++) {
    const char = text[i]!;
    if (char === '"') {
      const start = i;
      for (i++; i < text.length && text[i] !== '"'; i++) if (text[i] === '\\') i++;
      out.push(text.slice(start, i + 1));
      comma = -1;
    } else if (char === '/' && text[i + 1] === '/') {
      while (i < text.length && text[i] !== '\n') i++;
      out.push('\n');
    } else if (char === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2);
      i = end < 0 ? text.length : end + 1;
      out.push(' ');
    } else {
      if ((char === '}' || char === ']') && comma >= 0) out[comma] = '';
      if (char === ',') comma = out.length;
      else if (!/\s/.test(char)) comma = -1;
      out.push(char);
    }
  }
  return out.join('');
}
