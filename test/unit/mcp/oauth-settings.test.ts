import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resolveSettings } from '../../../src/config/provider-config';
import { validateDocument } from '../../../src/config/settings-file';
import { serversFromSettings } from '../../../src/mcp/server-config';

describe('[mcp_servers.NAME] oauth', () => {
  let root: string;
  beforeEach(() => (root = mkdtempSync(join(tmpdir(), 'crow-oauth-settings-'))));
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('takes a client id, scopes and a callback port for a server with a url, and refuses the rest with the field named', () => {
    const good = validateDocument('config.toml', { mcp_servers: { docs: { url: 'https://mcp.example.com/mcp', oauth: { client_id: 'crow', scopes: ['docs.read', 'offline_access'], callback_port: 33418 } } } });
    assert.deepEqual(good.problems, []);
    const bad = validateDocument('config.toml', {
      mcp_servers: {
        local: { command: 'x', oauth: { client_id: 'crow' } },
        spaced: { url: 'https://a.example/mcp', oauth: { scopes: ['docs read'] } },
        port: { url: 'https://a.example/mcp', oauth: { callback_port: 80 } },
        secret: { url: 'https://a.example/mcp', oauth: { client_secret: 'shh' } },
      },
    });
    assert.deepEqual(bad.problems.map((problem) => problem.field).sort(), ['mcp_servers.local.oauth', 'mcp_servers.port.oauth.callback_port', 'mcp_servers.secret.oauth.client_secret', 'mcp_servers.spaced.oauth.scopes[0]'].sort());
  });

  it('reaches the server\'s config; a project that adds or changes it needs the folder trusted (a widening, like its url)', () => {
    const env = { XDG_CONFIG_HOME: join(root, 'config') };
    mkdirSync(join(root, 'config/crow-agent'), { recursive: true });
    mkdirSync(join(root, '.crow'));
    writeFileSync(join(root, 'config/crow-agent/config.toml'), '[mcp_servers.docs]\nurl = "https://mcp.example.com/mcp"\n');
    writeFileSync(join(root, '.crow/config.toml'), '[mcp_servers.docs]\noauth = { client_id = "the-projects-own" }\n');
    assert.equal(resolveSettings(root, {}, env, { trusted: false }).mcpServers?.docs?.oauth, undefined);
    const trusted = resolveSettings(root, {}, env, { trusted: true });
    assert.deepEqual(trusted.mcpServers?.docs?.oauth, { clientId: 'the-projects-own' });
    assert.deepEqual(serversFromSettings(trusted.mcpServers, env)[0]?.oauth, { clientId: 'the-projects-own' });
  });
});
