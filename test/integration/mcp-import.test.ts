/**
 * MCP servers the person configured for other tools (Claude Desktop, VS Code,
 * Claude Code's project .mcp.json), through the built binary: found and
 * told about once, used when [mcp] import names the tool (a project file
 * only in a trusted folder), their tools called by the model, listed by
 * `crow mcp list` with why one is not used, and bad files (malformed, wrong
 * types, huge, hostile names) reported without losing the rest.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { FakeLlmServer } from '../../testkit/fake-llm-server';
import { CROW, runCrow } from '../support/crow-binary';
import { isolatedEnv } from '../support/isolated-env';
import { call, say } from '../support/mcp-ask-harness';
import { TSX_FIXTURE } from '../support/mcp-fixture';

/** A value the files give a server, which must never be printed or stored. */
const SECRET = 'sk-import-secret-4711';

describe('MCP servers of other tools (crow mcp list, [mcp] import)', function () {
  this.timeout(90_000);
  let llm: FakeLlmServer;
  let home: string;
  let ws: string;
  let log: string;

  before(async () => (llm = await FakeLlmServer.start()));
  after(() => llm.close());
  beforeEach(() => {
    llm.reset();
    home = realpathSync(mkdtempSync(join(tmpdir(), 'crow-import-home-')));
    ws = realpathSync(mkdtempSync(join(tmpdir(), 'crow-import-ws-')));
    log = join(home, 'fixture.log');
  });
  afterEach(() => {
    rmSync(home, { recursive: true, force: true });
    rmSync(ws, { recursive: true, force: true });
  });

  const env = (extra: Record<string, string> = {}): NodeJS.ProcessEnv =>
    isolatedEnv(home, { ANTHROPIC_API_KEY: 'k', ANTHROPIC_BASE_URL: llm.anthropicBaseUrl, ...extra });
  const write = (path: string, content: unknown): void => {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content, null, 2));
  };
  const desktopFile = (): string => join(home, 'config/Claude/claude_desktop_config.json');
  const vscodeUserFile = (): string => join(home, 'config/Code/User/mcp.json');
  const importing = (...sources: string[]): void => write(join(home, 'config/crow-agent/config.toml'), `[mcp]\nimport = ${JSON.stringify(sources)}\n`);
  /** The fixture server as a file of the tools writes it, its log file and a secret in its environment. */
  const fixtureEntry = (extra: Record<string, unknown> = {}) => ({ command: process.execPath, args: TSX_FIXTURE, env: { MCP_FIXTURE_LOG: log, API_TOKEN: SECRET }, ...extra });
  const crow = (...args: string[]) => runCrow(args, env(), ws);
  const run = (prompt: string) => runCrow(['run', '--no-undo', '--allow', 'execute', prompt], env(), ws);
  /** Every file under the data folder (sessions, traces), as text. */
  const stored = (): string => {
    const texts: string[] = [];
    const walk = (dir: string): void => {
      if (!existsSync(dir)) return;
      for (const entry of readdirSync(dir, { withFileTypes: true })) {
        if (entry.isDirectory()) walk(join(dir, entry.name));
        else texts.push(readFileSync(join(dir, entry.name), 'utf8'));
      }
    };
    walk(join(home, 'data'));
    return texts.join('\n');
  };
  const toolResult = (request: number): string => JSON.stringify(llm.requestsFor('anthropic')[request]!.body.messages.at(-1));
  const listed = async (): Promise<{ trusted: boolean; servers: { name: string; source: string; used: boolean; why?: string; transport: string }[] }> => {
    const result = await crow('mcp', 'list', '--json');
    assert.equal(result.code, 0, result.stderr);
    return JSON.parse(result.stdout);
  };

  it("crow run calls a tool of Claude Desktop's server once [mcp] import names it, and never shows the file's secrets", async () => {
    write(desktopFile(), { mcpServers: { desk: fixtureEntry() }, otherPreferences: { theme: 'dark' } });
    importing('claude-desktop');
    // The server says its token back: the session's record keeps it out, as it does our own variables' values.
    llm.enqueue('anthropic', call('mcp__desk__echo', { text: `from desktop ${SECRET}` }), say('Echoed.'));
    const result = await run('Echo something');
    assert.equal(result.code, 0, result.stderr);
    assert.match(toolResult(1), /fixture echo: from desktop/);
    assert.match(readFileSync(log, 'utf8'), /started/, 'the env the file gives reached the server');
    for (const text of [result.stdout, result.stderr, stored()]) assert.ok(!text.includes(SECRET), 'a value of the file leaked');
    assert.match(stored(), /from desktop \[REDACTED\]/);
    const list = await crow('mcp', 'list');
    assert.match(list.stdout, /Claude Desktop: .*claude_desktop_config\.json\n {2}desk \(stdio: .*node.*\): used/);
    assert.ok(!list.stdout.includes(SECRET) && !list.stderr.includes(SECRET));
  });

  it("tells once what it found and how to use it, and starts nothing until told to", async () => {
    write(desktopFile(), { mcpServers: { desk: fixtureEntry() } });
    llm.enqueue('anthropic', say('One.'), say('Two.'));
    const first = await run('Hello');
    assert.equal(first.code, 0, first.stderr);
    assert.match(first.stderr, /Found MCP servers configured for other tools: Claude Desktop \(.*claude_desktop_config\.json: 1 server\)\. .*\[mcp\] import = \["claude-desktop"\]/);
    assert.ok(!existsSync(log), 'the server was not started');
    const second = await run('Hello again');
    assert.equal(second.code, 0, second.stderr);
    assert.doesNotMatch(second.stderr, /Found MCP servers/);
    const { servers } = await listed();
    assert.deepEqual(servers.map(({ name, used, why }) => ({ name, used, why })), [
      { name: 'desk', used: false, why: 'not imported: add "claude-desktop" to [mcp] import in config.toml (crow.mcp.import in VS Code)' },
    ]);
  });

  it("takes VS Code's user mcp.json (comments, ${env:}, ${workspaceFolder}, envFile), and reports a server needing an input instead of starting it", async () => {
    write(join(ws, 'fixture.env'), `# the log\nMCP_FIXTURE_LOG="${log}"\n`);
    const jsonc = `{
      // VS Code's format: "servers", a type, inputs; comments and trailing commas allowed.
      "inputs": [{ "type": "promptString", "id": "gh-token", "description": "GitHub token", "password": true }],
      "servers": {
        "code": { "type": "stdio", "command": ${JSON.stringify(process.execPath)}, "args": ${JSON.stringify(TSX_FIXTURE)},
                  "envFile": "\${workspaceFolder}/fixture.env", "env": { "WHO": "\${env:USER_NAME}" }, },
        "gh": { "type": "http", "url": "https://api.example.com/mcp/", "headers": { "Authorization": "Bearer \${input:gh-token}" } },
      },
    }`;
    write(vscodeUserFile(), jsonc);
    importing('vscode');
    llm.enqueue('anthropic', call('mcp__code__echo', { text: 'from vscode' }), say('Echoed.'));
    const result = await run('Echo something');
    assert.equal(result.code, 0, result.stderr);
    assert.match(toolResult(1), /fixture echo: from vscode/);
    assert.match(readFileSync(log, 'utf8'), /started/, "envFile's variables reached the server");
    assert.match(result.stderr, /MCP server "gh" could not start: as written in .*mcp\.json, headers\.Authorization: it needs the input "gh-token" \(GitHub token\), which VS Code asks you for when the server starts and Crow cannot ask/);
    const { servers } = await listed();
    assert.deepEqual(servers.map(({ name, used }) => ({ name, used })), [{ name: 'code', used: true }, { name: 'gh', used: false }]);
  });

  it("uses the project's .mcp.json only in a trusted folder, and crow trust shows what it runs", async () => {
    write(join(ws, '.mcp.json'), { mcpServers: { proj: { command: process.execPath, args: TSX_FIXTURE, env: { MCP_FIXTURE_LOG: '${FIXTURE_LOG:-' + log + '}' } } } });
    importing('claude-code');
    llm.enqueue('anthropic', say('Nothing to call.'));
    const untrusted = await run('Hello');
    assert.equal(untrusted.code, 0, untrusted.stderr);
    assert.match(untrusted.stderr, /This folder's own configuration is not trusted yet, so these parts are ignored: MCP server "proj" of Claude Code\./);
    assert.ok(!JSON.stringify(llm.requestsFor('anthropic')[0]!.body.tools ?? []).includes('mcp__proj__'), 'no tool of the project file was offered');
    assert.ok(!existsSync(log));
    assert.equal((await listed()).servers[0]!.why, 'the folder is not trusted: a project file is used only once you trust the folder (crow trust)');
    const trust = await crow('trust', '--yes');
    assert.equal(trust.code, 0, trust.stderr);
    assert.match(trust.stdout.replace(/\n\s+/g, ' '), /MCP server "proj" of Claude Code: runs ".*node.* --require .*mcp-server\.ts", with environment MCP_FIXTURE_LOG \(.*\.mcp\.json\)/);
    llm.reset();
    llm.enqueue('anthropic', call('mcp__proj__echo', { text: 'from the project' }), say('Echoed.'));
    const trusted = await run('Echo something');
    assert.equal(trusted.code, 0, trusted.stderr);
    assert.match(toolResult(1), /fixture echo: from the project/);
    // Any change to what the file runs asks again.
    write(join(ws, '.mcp.json'), { mcpServers: { proj: { command: process.execPath, args: [...TSX_FIXTURE, '--more'] } } });
    assert.equal((await listed()).trusted, false);
  });

  it("lets Crow's own [mcp_servers] win a name, and the more specific file win over the person's other files", async () => {
    write(join(home, 'config/crow-agent/config.toml'), `[mcp]\nimport = ["claude-desktop", "vscode"]\n\n[mcp_servers.fx]\ncommand = ${JSON.stringify(process.execPath)}\nargs = ${JSON.stringify(TSX_FIXTURE)}\n`);
    write(desktopFile(), { mcpServers: { fx: fixtureEntry(), both: fixtureEntry() } });
    write(vscodeUserFile(), { servers: { both: { command: 'node', args: ['vscode-one.js'] } } });
    const { servers } = await listed();
    assert.deepEqual(
      servers.map(({ name, used, why }) => `${name} ${used ? 'used' : `not used: ${why}`}`),
      [
        'fx used',
        'both used',
        "fx not used: Crow's own [mcp_servers.fx] has this name and wins",
        `both not used: ${vscodeUserFile()} has a server of this name and wins`,
      ],
    );
  });

  it('reports malformed, mistyped, huge and hostile files and entries clearly, and still uses the good ones', async () => {
    importing('claude-desktop', 'vscode', 'claude-code');
    write(join(ws, '.vscode/mcp.json'), '{ "servers": { "x": \u001b[2J');
    write(vscodeUserFile(), {
      servers: { ok: fixtureEntry(), wrong: { command: ['node'] }, typed: { type: 'websocket', url: 'ws://x' }, env: { command: 'node', env: { N: 5 } }, piped: { command: 'node', envFile: '${workspaceFolder}/pipe.env' } },
    });
    write(join(ws, '.mcp.json'), { mcpServers: 'not a table' });
    // A named pipe where the user file should be: reading it would wait for a writer for ever.
    mkdirSync(dirname(vscodeUserFile()), { recursive: true });
    execFileSync('mkfifo', [join(ws, 'pipe.env')]);
    const bad = '\u001b]0;pwned\u0007\u001b[31mred\u202e';
    const huge = desktopFile();
    mkdirSync(dirname(huge), { recursive: true });
    writeFileSync(huge, `{"mcpServers": {${JSON.stringify(bad)}: {"command": ${JSON.stringify(`evil${bad}`)}}, "pad": "${'x'.repeat(50 * 1024 * 1024)}"}}`);
    assert.ok(statSync(huge).size > 50 * 1024 * 1024);
    const started = Date.now();
    const list = await crow('mcp', 'list');
    assert.equal(list.code, 0, list.stderr);
    assert.ok(Date.now() - started < 10_000, 'a 50 MB file is not read');
    assert.ok(!/[\u001b\u0007\u202e]/.test(list.stdout + list.stderr), 'no terminal escape reaches the terminal');
    const out = list.stdout;
    assert.match(out, /claude_desktop_config\.json\n {2}\(unusable\) the file is 5\d\.\d MB, more than the 1 MB Crow reads of such a file; it is left unread/);
    assert.match(out, /\.vscode\/mcp\.json\n {2}\(unusable\) the file is not valid JSON \(with comments\): .*; fix it there/);
    assert.match(out, /\.mcp\.json\n {2}\(unusable\) the file has "mcpServers" as a string, not an object of servers by name/);
    assert.match(out, /ok \(stdio: .*\): used/);
    assert.match(out, /wrong \(stdio: \): not used: its command is a list, not text/);
    assert.match(out, /typed \(\?: ws:\/\/x\): not used: its type "websocket" is none of "stdio", "http" and "sse"/);
    assert.match(out, /env \(stdio: node\): not used: its env value for "N" is a number, not text/);
    assert.match(out, /piped \(stdio: node\): not used: its envFile .*pipe\.env is not a file/);
    // A hostile name in a file Crow can read is shown with its escapes as marks.
    write(huge, JSON.stringify({ mcpServers: { [bad]: { command: `evil${bad}` } } }));
    const again = await crow('mcp', 'list');
    assert.ok(!/[\u001b\u0007\u202e]/.test(again.stdout + again.stderr));
    assert.match(again.stdout, /\\u001b\]0;pwned\\u0007\\u001b\[31mred\\u202e \(stdio: evil\\u001b.*\): not used: its name is not one Crow can use/);
    // The good server still runs in a session.
    llm.enqueue('anthropic', call('mcp__ok__echo', { text: 'still here' }), say('Echoed.'));
    const result = await run('Echo something');
    assert.equal(result.code, 0, result.stderr);
    assert.match(toolResult(1), /fixture echo: still here/);
    assert.ok(!/[\u001b\u0007\u202e]/.test(result.stderr), 'reports keep escapes out of the terminal');
  });

  it('crow mcp --help and crow mcp list --help say what the command does', async () => {
    const help = await crow('mcp', '--help');
    assert.equal(help.code, 0);
    assert.match(help.stdout, /list \[--cwd DIR\] \[--json\]/);
    const listHelp = await crow('mcp', 'list', '--help');
    assert.match(listHelp.stdout, /Claude Code's \.mcp\.json/);
    const wrong = await crow('mcp', 'lst');
    assert.equal(wrong.code, 2);
    assert.match(wrong.stderr, /Unknown command "crow mcp lst"/);
    const top = await crow('--help');
    assert.match(top.stdout, /crow mcp list/);
  });

  it("acpx, a client we did not write: an imported server's tool runs in a crow acp session", async function () {
    const acpx = resolve(__dirname, '../../node_modules/.bin/acpx');
    if (!existsSync(acpx)) return this.skip();
    write(desktopFile(), { mcpServers: { desk: fixtureEntry() } });
    importing('claude-desktop');
    llm.enqueue('anthropic', call('mcp__desk__echo', { text: 'through acp' }), say('Echoed.'));
    const child = spawn(acpx, ['--agent', `${process.execPath} ${CROW} acp`, '--cwd', ws, '--approve-all', '--format', 'json', 'exec', 'Echo something'], { cwd: ws, env: env() });
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    const code = await new Promise<number | null>((done) => child.on('close', done));
    assert.equal(code, 0, stdout.slice(-2000));
    assert.match(toolResult(1), /fixture echo: through acp/);
    assert.ok(!stdout.includes(SECRET));
  });
});
