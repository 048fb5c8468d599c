import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { readConfiguration } from '../../../../src/adapters/vscode/configuration';
import { AgentRegistry } from '../../../../src/config/agent-registry';
import { SlashCommands } from '../../../../src/config/slash-commands';
import { isolatedEnv } from '../../../support/isolated-env';

const ROOT = join(__dirname, '..', '..', '..', '..');
const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  contributes: {
    configuration: { properties: Record<string, unknown> };
    chatParticipants: { commands: { name: string }[] }[];
  };
};

/** package.json is what VS Code reads; these keep it in step with the code. */
describe('the extension manifest', () => {
  const env = isolatedEnv('/nonexistent-home');

  it('offers every built-in agent and slash command as a /command of @crow', () => {
    const { registry } = AgentRegistry.load(ROOT, env);
    const agents = registry
      .acpAgents()
      .filter((agent) => registry.baseAgent(agent.primary)?.role !== 'subagent')
      .map((agent) => agent.name);
    const commands = SlashCommands.load(ROOT, env).commands.list().map((command) => command.name);
    const offered = manifest.contributes.chatParticipants[0]!.commands.map((command) => command.name);
    assert.deepEqual([...offered].sort(), [...agents, ...commands].sort());
  });

  it('declares exactly the settings the extension reads', () => {
    const read = new Set<string>();
    readConfiguration((key) => {
      read.add(`crow.${key}`);
      return undefined;
    });
    assert.deepEqual([...read].sort(), Object.keys(manifest.contributes.configuration.properties).sort());
  });
});
