/**
 * `crow mcp list`: every MCP server a session in this folder would have
 * (Crow's own [mcp_servers], and those taken from other tools' files), and
 * every server found in other tools' files that it would not, with why.
 * Nothing is started. What a file says is shown on one line with its
 * control characters as marks; values of variables and headers never are.
 */
import { findMcpFiles, judgeImports, SOURCE_TITLES, type ImportedServer, type ImportVerdict, visible } from '../../config/mcp-import';
import { resolveSettings, settingsLayers } from '../../config/provider-config';
import type { McpServerSettings } from '../../config/settings';
import { commandArgs, noPositionals, workspaceFolder } from './cli-args';
import type { CliIO } from './cli-io';
import { trustedFolder } from './folder-trust-notice';

export const MCP_LIST_HELP = `Usage: crow mcp list [--cwd DIR] [--json]

Lists the MCP servers a session in the folder would start, and those found
in other tools' configuration files, each with where it is configured, how
it is reached (stdio, http, sse), and whether it is used and why not.
Starts nothing. Values of environment variables and headers are never shown.

Other tools' files: Claude Code's .mcp.json (the project's), VS Code's
.vscode/mcp.json and user mcp.json, Claude Desktop's
claude_desktop_config.json. Crow uses their servers once [mcp] import in
config.toml names the tool (import = ["claude-code", "claude-desktop",
"vscode"]); a file inside the folder only once you trust the folder
(crow trust). Crow's own [mcp_servers] win a name. Servers an ACP client
gives a session come with that session and are not listed here.

Options:
  --cwd DIR    the folder (default: the current folder)
  --json       one JSON object: { servers: [...] }
  -h, --help   show this help`;

/** One server as listed. */
interface Listed {
  name: string;
  /** config.toml, or the other tool's file. */
  source: string;
  tool?: string;
  transport: string;
  target: string;
  used: boolean;
  why?: string;
}

export async function mcpListCommand(argv: string[], io: CliIO): Promise<number> {
  const { values, positionals } = commandArgs('mcp list', argv, { cwd: { type: 'string' }, json: { type: 'boolean', default: false } });
  if (values.help) {
    io.stdout.write(`${MCP_LIST_HELP}\n`);
    return 0;
  }
  noPositionals('mcp list', positionals);
  const root = workspaceFolder(io.cwd, values.cwd);
  const trusted = await trustedFolder(root, io);
  const settings = resolveSettings(root, {}, io.env, { trusted });
  const own = settings.mcpServers ?? {};
  const listed: Listed[] = [...ownServers(own), ...untrustedProjectServers(root, io.env, own)];
  const found = findMcpFiles(root, io.env);
  const verdicts = judgeImports(found, settings.mcpImport ?? [], trusted, new Set(Object.keys(own)));
  for (const file of found) {
    if (file.problem !== undefined) listed.push({ name: '', source: file.file, tool: SOURCE_TITLES[file.source], transport: '', target: '', used: false, why: `the file ${file.problem}` });
    for (const server of file.servers) listed.push(importedServer(server, SOURCE_TITLES[file.source], verdicts.get(server)!));
  }
  if (values.json) {
    io.stdout.write(`${JSON.stringify({ folder: root, trusted, import: settings.mcpImport ?? [], servers: listed }, null, 2)}\n`);
    return 0;
  }
  io.stdout.write(listText(listed));
  return 0;
}

function ownServers(servers: Record<string, McpServerSettings>): Listed[] {
  return Object.entries(servers).map(([name, server]) => ({
    name,
    source: 'config.toml',
    transport: server.url !== undefined ? 'http' : 'stdio',
    target: server.url ?? [server.command ?? '', ...(server.args ?? [])].join(' '),
    used: server.enabled !== false,
    ...(server.enabled === false ? { why: 'enabled = false' } : {}),
  }));
}

/** The project's own [mcp_servers] a folder not trusted leaves out. */
function untrustedProjectServers(root: string, env: NodeJS.ProcessEnv, own: Record<string, McpServerSettings>): Listed[] {
  const { project, projectFile } = settingsLayers(root, env);
  return Object.entries(project.mcp_servers ?? {})
    .filter(([name]) => own[name] === undefined)
    .map(([name, server]) => ({
      name,
      source: projectFile,
      transport: server.url !== undefined ? 'http' : 'stdio',
      target: server.url ?? [server.command ?? '', ...(server.args ?? [])].join(' '),
      used: false,
      why: 'the folder is not trusted (crow trust)',
    }));
}

function importedServer(server: ImportedServer, tool: string, verdict: ImportVerdict): Listed {
  return {
    name: server.name,
    source: server.file,
    tool,
    transport: server.shown.transport,
    target: server.shown.target,
    used: verdict.used,
    ...(verdict.used ? {} : { why: verdict.why }),
  };
}

/** The list grouped by where each server is configured, one server a line. */
function listText(listed: readonly Listed[]): string {
  if (listed.length === 0) return 'No MCP servers: none in config.toml ([mcp_servers.NAME]), none found in other tools\' files.\n';
  const lines: string[] = [];
  let source: string | undefined;
  for (const server of listed) {
    if (server.source !== source) {
      source = server.source;
      lines.push(`${server.tool ? `${server.tool}: ` : ''}${visible(source)}`);
    }
    if (server.name === '') {
      lines.push(`  (unusable) ${visible(server.why ?? '')}`);
      continue;
    }
    const state = server.used ? 'used' : `not used: ${visible(server.why ?? '')}`;
    lines.push(`  ${visible(server.name)} (${server.transport}: ${visible(server.target)}): ${state}`);
  }
  return `${lines.join('\n')}\n`;
}
