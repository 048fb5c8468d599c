import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { readConfiguration, UNRESTRICTED_SETTINGS } from '../../../../src/adapters/vscode/configuration';
import { HARMLESS_KEYS } from '../../../../src/config/project-trust';
import { AgentRegistry } from '../../../../src/config/agent-registry';
import { SlashCommands } from '../../../../src/config/slash-commands';
import { participantRequest, SLASH_COMMANDS } from '../../../../src/adapters/vscode/participant-request';
import { isolatedEnv } from '../../../support/isolated-env';

const ROOT = join(__dirname, '..', '..', '..', '..');
const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  capabilities: { untrustedWorkspaces: { supported: string; restrictedConfigurations: string[] } };
  contributes: {
    configuration: { properties: Record<string, unknown> };
    chatParticipants: { commands: { name: string }[] }[];
    keybindings: { command: string; key: string; mac?: string }[];
    viewsWelcome: { view: string; contents: string; when?: string }[];
  };
};
const nls = JSON.parse(readFileSync(join(ROOT, 'package.nls.json'), 'utf8')) as Record<string, string>;
/** A text as VS Code shows it in English: a "%key%" is looked up in package.nls.json. */
const english = (text: string): string => nls[/^%([\w.-]+)%$/.exec(text)?.[1] ?? ''] ?? text;

/**
 * Keys the Linux desktops take before VS Code sees them, by their defaults:
 * GNOME (Ctrl+Alt+T terminal, Ctrl+Alt+L lock on Ubuntu, Ctrl+Alt+D
 * show desktop, Ctrl+Alt+arrows workspaces, Ctrl+Alt+Delete log out), KDE
 * Plasma (Ctrl+Alt+L lock, Ctrl+Alt+Esc kill a window), Xorg's
 * Ctrl+Alt+Backspace (zap), and the virtual terminals' Ctrl+Alt+F1..F12.
 */
const DESKTOP_KEYS = new Set([
  'ctrl+alt+t', 'ctrl+alt+l', 'ctrl+alt+d', 'ctrl+alt+delete', 'ctrl+alt+backspace', 'ctrl+alt+escape', 'ctrl+alt+tab',
  'ctrl+alt+up', 'ctrl+alt+down', 'ctrl+alt+left', 'ctrl+alt+right',
  ...Array.from({ length: 12 }, (_, i) => `ctrl+alt+f${i + 1}`),
]);

/** package.json is what VS Code reads; these keep it in step with the code. */
/** Settings read apart from readConfiguration, by the module named (for what only the chat uses, with where it was set). */
const READ_APART: Record<string, string> = { 'crow.attempts.check': 'src/adapters/vscode/attempts-check-setting.ts' };

/** Every setting the extension reads: readConfiguration's, and those read apart (each checked to be read where named). */
function settingsRead(): Set<string> {
  const read = new Set<string>();
  readConfiguration((key) => {
    read.add(`crow.${key}`);
    return undefined;
  });
  for (const [setting, file] of Object.entries(READ_APART)) {
    assert.ok(readFileSync(join(__dirname, '../../../..', file), 'utf8').includes(`'${setting.slice('crow.'.length)}'`), `${file} reads ${setting}`);
    read.add(setting);
  }
  return read;
}

describe('the extension manifest', () => {
  const env = isolatedEnv('/nonexistent-home');

  it('the Traces view reads "Loading" until Crow has listed its sessions, and "No sessions" only after', () => {
    const welcome = manifest.contributes.viewsWelcome.filter((entry) => entry.view === 'crow.traces');
    // VS Code shows welcome text while a view has no data provider, i.e. before the extension is active.
    assert.deepEqual(
      welcome.map((entry) => [entry.when, /^Loading/.test(english(entry.contents))]),
      // The key register-traces.ts sets (TRACES_READY; that module needs vscode, so it is named here).
      [['!crow.tracesReady', true], ['crow.tracesReady', false]],
    );
  });

  it('binds no key a Linux desktop takes first', () => {
    const clashes = manifest.contributes.keybindings.filter((binding) => DESKTOP_KEYS.has(binding.key.toLowerCase()));
    assert.deepEqual(clashes, []);
    assert.ok(manifest.contributes.keybindings.length >= 4, 'the commands keep their shortcuts');
  });

  it("offers @crow's few everyday /commands, each a built-in agent or slash command, and every other agent by typing its name", () => {
    const { registry } = AgentRegistry.load(ROOT, env);
    const agents = registry
      .acpAgents()
      .filter((agent) => registry.baseAgent(agent.primary)?.role !== 'subagent')
      .map((agent) => agent.name);
    const commands = SlashCommands.load(ROOT, env).commands.list().map((command) => command.name);
    const offered = manifest.contributes.chatParticipants[0]!.commands;
    assert.deepEqual(offered.map((command) => command.name), [...SLASH_COMMANDS]);
    for (const name of SLASH_COMMANDS) assert.ok(agents.includes(name) || commands.includes(name), `/${name} is an agent or a command`);
    // Words for a person: no "Agent:" prefixes, no internal names in the list.
    for (const command of offered) assert.doesNotMatch(english((command as { description?: string }).description ?? ''), /^Agent:/);
    assert.ok(offered.length < agents.length, 'fewer than every internal agent');
    for (const agent of agents) assert.deepEqual(participantRequest(undefined, `/${agent} fix the tests`, agents), { agent, text: 'fix the tests' }, `/${agent} typed still runs it`);
  });

  it('declares exactly the settings the extension reads', () => {
    const read = settingsRead();
    assert.deepEqual([...read].sort(), Object.keys(manifest.contributes.configuration.properties).sort());
  });

  it('keeps every setting that can widen what Crow does out of an untrusted folder (restrictedConfigurations)', () => {
    const read = settingsRead();
    const restricted = manifest.capabilities.untrustedWorkspaces.restrictedConfigurations;
    assert.equal(manifest.capabilities.untrustedWorkspaces.supported, 'limited');
    const open = [...read].filter((setting) => !restricted.includes(setting));
    assert.deepEqual(open.sort(), [...UNRESTRICTED_SETTINGS].sort(), 'a setting the code reads is neither restricted nor known to be harmless');
    assert.deepEqual(restricted.filter((setting) => !read.has(setting)), [], 'restrictedConfigurations names a setting nobody reads');
    // What stays open must be what a project's config.toml may set untrusted too.
    const configKey: Record<string, string> = { 'crow.model': 'model', 'crow.primary.model': 'model', 'crow.reviewer.model': 'model', 'crow.defaultAgent': 'default_agent', 'crow.maxIterations': 'max_iterations', 'crow.compaction': 'compaction' };
    for (const setting of UNRESTRICTED_SETTINGS) assert.ok(HARMLESS_KEYS.has(configKey[setting] ?? ''), `${setting} is not harmless in config.toml`);
    for (const widening of ['crow.limits.maxCostPerPrompt', 'crow.limits.maxTokensPerPrompt', 'crow.sandbox', 'crow.autoApprove.maxWrites', 'crow.autoApprove.maxCommands', 'crow.permissions.execute', 'crow.mcpServers', 'crow.baseUrls']) {
      assert.ok(restricted.includes(widening), widening);
    }
  });

  it('lists in the Marketplace with its own categories, at most 30 keywords, a 128×128 PNG icon, a banner, links and a changelog', () => {
    const listing = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
      categories: string[]; keywords: string[]; icon: string; galleryBanner: { color: string; theme: string };
      repository: { url: string }; homepage: string; bugs: { url: string }; license: string;
    };
    // The categories VS Code's extension manifest reference lists (code.visualstudio.com/api/references/extension-manifest).
    const categories = ['Azure', 'Data Science', 'Debuggers', 'Extension Packs', 'Education', 'Formatters', 'Keymaps', 'Language Packs', 'Linters', 'Machine Learning', 'Notebooks', 'Programming Languages', 'SCM Providers', 'Snippets', 'Testing', 'Themes', 'Visualization', 'AI', 'Chat', 'Other'];
    assert.deepEqual(listing.categories.filter((category) => !categories.includes(category)), []);
    // The Marketplace takes 30 tags, and vsce adds its own (chat-participant, language-models, keybindings): room is left for them.
    assert.ok(listing.keywords.length + 3 <= 30, `${listing.keywords.length} keywords`);
    assert.equal(new Set(listing.keywords.map((keyword) => keyword.toLowerCase())).size, listing.keywords.length, 'no keyword twice');
    const png = readFileSync(join(ROOT, listing.icon));
    assert.equal(png.toString('latin1', 1, 4), 'PNG');
    assert.deepEqual([png.readUInt32BE(16), png.readUInt32BE(20)], [128, 128]);
    assert.match(listing.galleryBanner.color, /^#[0-9a-f]{6}$/i);
    assert.ok(['dark', 'light'].includes(listing.galleryBanner.theme));
    for (const url of [listing.repository.url, listing.homepage, listing.bugs.url]) assert.match(url, /^https:\/\/\S+$/);
    assert.equal(listing.license, 'MIT');
    assert.match(readFileSync(join(ROOT, 'CHANGELOG.md'), 'utf8'), /^# Changelog\n[\s\S]*^## 0\.1\.0/m);
  });
});
