import assert from 'node:assert/strict';
import { judgeProjectSettings } from '../../../src/config/project-trust';
import { importLocations, withoutComments } from '../../../src/config/mcp-import';
import { serversOfDocument, type FormatContext } from '../../../src/config/mcp-import-formats';
import { claudeCodeText, envFileVariables, vscodeText } from '../../../src/config/mcp-import-variables';
import { assertPromptly } from '../../support/promptly';

const context = (source: FormatContext['source'], env: NodeJS.ProcessEnv = {}): FormatContext => ({
  source,
  file: '/ws/file.json',
  scope: 'user',
  env,
  root: '/ws',
  home: '/home/ann',
  readEnvFile: () => ({ variables: { FROM_FILE: '1', SHARED: 'file' } }),
});

describe('MCP configuration of other tools', () => {
  it("fills Claude Code's ${VAR} and ${VAR:-default}, leaves $VAR, and makes an unset variable without default a problem", () => {
    assert.deepEqual(claudeCodeText('${A}/x ${B:-fallback} $A', { A: 'a' }), { text: 'a/x fallback $A' });
    assert.deepEqual(claudeCodeText('${B:-}', {}), { text: '' });
    assert.match((claudeCodeText('--token ${TOKEN}', {}) as { problem: string }).problem, /environment variable TOKEN is not set/);
  });

  it("fills VS Code's variables, and names an input Crow cannot ask for", () => {
    const vscode = { env: { KEY: 'k' }, root: '/ws/proj', home: '/home/ann', inputs: new Map([['tok', 'GitHub token']]) };
    assert.deepEqual(vscodeText('${workspaceFolder}/a ${workspaceFolderBasename} ${userHome} ${env:KEY}${env:UNSET}', vscode), { text: '/ws/proj/a proj /home/ann k' });
    assert.match((vscodeText('Bearer ${input:tok}', vscode) as { problem: string }).problem, /needs the input "tok" \(GitHub token\).*Crow cannot ask/);
    assert.match((vscodeText('${input:nope}', vscode) as { problem: string }).problem, /input "nope", which its inputs do not define/);
    assert.match((vscodeText('${config:editor.tabSize}', vscode) as { problem: string }).problem, /only VS Code can fill in/);
  });

  it('reads envFile lines as VS Code does', () => {
    assert.deepEqual(envFileVariables('# c\nA=1\nexport B = "two words"\nC=\'x\' \nD=v # note\n\nbad line'), { A: '1', B: 'two words', C: 'x', D: 'v' });
  });

  it('reads JSON with comments and trailing commas, leaving strings alone', () => {
    const text = '{ // one\n "a": "http://x//y", /* two */ "b": [1, 2, ], "c": "/* not */",\n}';
    assert.deepEqual(JSON.parse(withoutComments(text)), { a: 'http://x//y', b: [1, 2], c: '/* not */' });
    const many = `[${'[1,],'.repeat(200_000)}1]`;
    const started = Date.now();
    assert.equal((JSON.parse(withoutComments(many)) as unknown[]).length, 200_001);
    assertPromptly(started, 'read 200,000 nested arrays (linear in the text)');
  });

  it("knows where each tool keeps its file on Linux, macOS and Windows", () => {
    const files = (platform: NodeJS.Platform, env: NodeJS.ProcessEnv) => importLocations('/ws', env, platform).map((at) => `${at.source} ${at.scope} ${at.file}`);
    assert.deepEqual(files('linux', { HOME: '/home/ann' }), [
      'claude-code project /ws/.mcp.json',
      'vscode project /ws/.vscode/mcp.json',
      'vscode user /home/ann/.config/Code/User/mcp.json',
      'claude-desktop user /home/ann/.config/Claude/claude_desktop_config.json',
    ]);
    assert.match(files('darwin', { HOME: '/Users/ann' })[3]!, /\/Users\/ann\/Library\/Application Support\/Claude\/claude_desktop_config\.json$/);
    assert.match(files('win32', { APPDATA: 'C:\\Users\\ann\\AppData\\Roaming' })[2]!, /C:\\Users\\ann\\AppData\\Roaming\\Code\\User\\mcp\.json$/);
  });

  it('turns each format into transports, a wrong field into a problem for that server alone', () => {
    const desktop = serversOfDocument({ mcpServers: { a: { command: 'npx', args: ['-y', '${NOT_EXPANDED}'], env: { K: 'v' } }, b: { url: 'https://x/mcp', type: 'sse' }, c: 7 } }, context('claude-desktop'));
    assert.deepEqual(desktop.servers.map((server) => server.transport ?? server.problem), [
      { type: 'stdio', command: 'npx', args: ['-y', '${NOT_EXPANDED}'], env: { K: 'v' } },
      { type: 'sse', url: 'https://x/mcp', headers: {} },
      'it is a number, not an object',
    ]);
    const code = serversOfDocument({ mcpServers: { h: { type: 'http', url: '${BASE:-https://d}/mcp', headers: { Authorization: 'Bearer ${T}' } } } }, context('claude-code', { T: 't' }));
    assert.deepEqual(code.servers[0]!.transport, { type: 'http', url: 'https://d/mcp', headers: { Authorization: 'Bearer t' } });
    const vscode = serversOfDocument({ servers: { s: { type: 'stdio', command: 'node', envFile: '.env', env: { SHARED: 'env' } } } }, context('vscode'));
    assert.deepEqual(vscode.servers[0]!.transport, { type: 'stdio', command: 'node', args: [], env: { FROM_FILE: '1', SHARED: 'env' } });
    const many = Object.fromEntries(Array.from({ length: 60 }, (_, i) => [`s${i}`, { command: 'x' }]));
    const capped = serversOfDocument({ mcpServers: many }, context('claude-desktop'));
    assert.equal(capped.servers.length, 50);
    assert.match(capped.problem!, /lists 60 servers; Crow takes the first 50/);
  });

  it("counts a project's [mcp] import of more tools than the user's as a widening, fewer as a narrowing", () => {
    const wider = judgeProjectSettings({ mcp: { import: ['claude-code', 'vscode'] } }, { mcp: { import: ['vscode'] } }, '/ws/.crow/config.toml');
    assert.deepEqual(wider.widenings.map((w) => w.text), ['starts the MCP servers of these tools\' configuration files: "claude-code"']);
    assert.deepEqual(wider.restricted, { mcp: { import: ['vscode'] } });
    assert.deepEqual(judgeProjectSettings({ mcp: { import: [] } }, { mcp: { import: ['vscode'] } }, '/f').widenings, []);
  });
});
