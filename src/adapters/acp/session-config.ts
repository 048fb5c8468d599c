/**
 * A session's modes and config options in the protocol's terms: the agents
 * to pick (modes), each role's model and the thinking level (config
 * options), and picking them, with what the client gets wrong answered as
 * invalid params.
 */
import type { SessionConfigOption, SessionModeState } from '@agentclientprotocol/sdk';
import type { CompositionRole } from '../../agents/role-models';
import type { WorkspaceCatalog } from '../../host/catalog';
import { HostError } from '../../host/host-error';
import { currentModels, type HostSession } from '../../host/host-session';
import { THOUGHT_LEVELS } from '../../host/prompt-input';
import type { ThoughtLevel } from '../../session/acp-session';
import { requestErrors, shown } from './request-errors';

/** Config option ids of the thinking level and of each role's model select. */
const THOUGHT_OPTION = 'thought_level';
const MODEL_OPTION: Record<CompositionRole, { id: string; name: string }> = {
  primary: { id: 'model', name: 'Model' },
  coagent: { id: 'coagent_model', name: 'Reviewer model' },
};

export function modesOf(host: HostSession, catalog: WorkspaceCatalog): SessionModeState {
  return {
    currentModeId: host.session.agentName,
    availableModes: catalog.list().map(({ name, description }) => ({ id: name, name, description })),
  };
}

export function configOptionsOf(host: HostSession, catalog: WorkspaceCatalog): SessionConfigOption[] {
  const agent = host.session.agentName;
  const models: SessionConfigOption[] = currentModels(catalog, agent, host.session.models).map(({ role, current, options }) => ({
    type: 'select',
    ...MODEL_OPTION[role],
    ...(role === 'primary' ? { category: 'model' } : {}),
    currentValue: current,
    options: options.map((model) => ({ value: model, name: model })),
  }));
  if (!catalog.thinks?.(agent)) return models;
  const thought: SessionConfigOption = {
    type: 'select',
    id: THOUGHT_OPTION,
    name: 'Thinking',
    category: 'thought_level',
    currentValue: host.thoughtLevel(),
    options: THOUGHT_LEVELS.map((level) => ({ value: level, name: level })),
  };
  return [...models, thought];
}

export async function setMode(host: HostSession, catalog: WorkspaceCatalog, modeId: string): Promise<void> {
  const names = catalog.list().map((entry) => entry.name);
  if (!names.includes(catalog.agentNamed?.(modeId) ?? modeId)) throw requestErrors.invalidParams(`Unknown mode ${shown(modeId)}. Modes: ${names.join(', ')}.`);
  await host.setAgent(modeId);
}

/** Sets one option (`more`: ids the caller handles itself, named when an id is unknown); the options as they are now. */
export async function setConfigOption(host: HostSession, catalog: WorkspaceCatalog, configId: string, value: unknown, more: string[] = []): Promise<SessionConfigOption[]> {
  try {
    if (configId === THOUGHT_OPTION && catalog.thinks?.(host.session.agentName)) {
      if (!THOUGHT_LEVELS.includes(value as ThoughtLevel)) throw requestErrors.invalidParams(`${configId}: ${shown(value)} is not a thinking level: ${THOUGHT_LEVELS.join(', ')}.`);
      host.setThoughtLevel(value as ThoughtLevel);
      return configOptionsOf(host, catalog);
    }
    const role = (Object.keys(MODEL_OPTION) as CompositionRole[]).find((r) => MODEL_OPTION[r].id === configId);
    const options = configOptionsOf(host, catalog);
    if (!role || !options.some((option) => option.id === configId)) {
      const ids = [...options.map((option) => option.id), ...more];
      throw requestErrors.invalidParams(`Unknown config option ${shown(configId)} for ${host.session.agentName}. Options: ${ids.join(', ')}.`);
    }
    if (typeof value !== 'string') throw requestErrors.invalidParams(`The value of ${configId} must be a model name, not ${shown(value)}.`);
    // The option is a closed list: a value it does not offer is a client's mistake.
    const offered = (await host.choices()).models.find((offer) => offer.role === role)?.options ?? [];
    if (!offered.includes(value)) {
      throw requestErrors.invalidParams(`${configId}: ${shown(value)} is not a model offered for the ${role === 'coagent' ? 'reviewer' : 'primary'}: ${offered.join(', ')}.`);
    }
    await host.setModel(role, value);
    return configOptionsOf(host, catalog);
  } catch (err) {
    if (err instanceof HostError) throw requestErrors.invalidParams(`${configId}: ${err.message}`);
    throw err;
  }
}
