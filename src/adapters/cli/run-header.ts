import { homedir } from 'node:os';
import type { ACPAgent } from '../../agents/acp-agent';
import { PERMISSION_CATEGORIES, type PermissionCategory, type PermissionRule } from '../../vocabulary/permission-types';
import type { Style } from './terminal-style';

/** What a run's first line says: who works, on which models, where, and what they may do unasked. */
export interface RunHeader {
  composition: Pick<ACPAgent, 'name' | 'primary' | 'coagent'>;
  workspace: string;
  rules: Record<PermissionCategory, PermissionRule>;
  sandboxed: boolean;
}

/**
 * One line, e.g.
 * `crow · pair: builder anthropic/claude-sonnet-4-5, reviewer openai/gpt-5.4 · ~/src/app · write ask, execute ask, network ask · commands sandboxed`.
 * Reads are left out when allowed (they always are unless a policy says otherwise).
 */
export function headerLine(header: RunHeader, style: Style, home = homedir()): string {
  const { composition } = header;
  const agents = [composition.primary, ...(composition.coagent ? [composition.coagent] : [])]
    .map((agent) => `${agent.name} ${style.dim(`${agent.provider.name}/${agent.provider.model}`)}`)
    .join(', ');
  const rules = PERMISSION_CATEGORIES.filter((category) => !(category === 'read' && header.rules.read === 'allow')).map(
    (category) => `${category} ${header.rules[category]}`,
  );
  const parts = [
    style.bold(`crow · ${composition.name}`) + `: ${agents}`,
    shortPath(header.workspace, home),
    rules.join(', '),
    ...(header.sandboxed ? ['commands sandboxed'] : []),
  ];
  return parts.join(style.dim(' · '));
}

function shortPath(path: string, home: string): string {
  return home !== '' && home !== '/' && (path === home || path.startsWith(`${home}/`)) ? `~${path.slice(home.length)}` : path;
}
