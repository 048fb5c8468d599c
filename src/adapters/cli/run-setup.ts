import { describeRequest, type ProjectRequest, trustCommandFor } from '../../config/folder-trust';
import { dataHome } from '../../config/paths';
import { parseCategories } from '../../config/permission-config';
import { resolveSettings } from '../../config/provider-config';
import type { ConfigOverrides, Limits } from '../../config/settings';
import type { TrustLookup } from '../../config/trust-store';
import { LIMIT_KEYS } from '../../host/budget';
import { openFolder, type RoleDefaults } from '../../host/folder';
import { HostSession } from '../../host/host-session';
import { FileTokenStore } from '../../mcp/oauth-file-store';
import { terminalSignInHint } from './mcp-sign-in-hint';
import type { KeeperLaunch } from '../../journal/keeper-client';
import { SessionStore } from '../../session/session-store';
import { NodeWorkspace } from '../../tools/node-workspace';
import type { PermissionCategory, PermissionRule } from '../../vocabulary/permission-types';
import { type ApprovalScreen, terminalAsk } from './cli-approval';
import { terminalQuestions } from './cli-elicit';
import { terminalPromptArgument } from './cli-prompt-argument';
import { type CliIO, UsageError } from './cli-io';
import { keeperLaunch } from './keeper-command';
import { styleFor, type Style } from './terminal-style';

export interface RunChoices {
  root: string;
  overrides: ConfigOverrides;
  agent?: string;
  /** Models and providers per role from the command line. */
  roles?: RoleDefaults;
  /** Continue this stored session; 'latest' for the newest one of the folder. */
  session?: string;
  /** The id of a new session (a background run's, named before it starts); default: a fresh one. */
  id?: string;
  allow?: string;
  maxIterations?: number;
  /** Spending limits from the flags, over config.toml's. */
  limits?: Limits;
  undo: boolean;
  interactive: boolean;
  /** Where approvals are asked: under their tool call's line, with its diff. */
  screen?: ApprovalScreen;
}

/** The flag of each limit. */
const LIMIT_FLAGS: Record<keyof Limits, string> = { maxCostPerPrompt: '--max-cost', maxCostPerSession: '--max-session-cost', maxTokensPerPrompt: '--max-tokens' };

/** How to trust a folder, for the line that says its project settings were left out. */
export const howToTrust = (root: string): string => `To use them, run crow interactively in that folder, or: ${trustCommandFor(root)}.`;

/**
 * The session a `crow run` works in, from flags to a HostSession: the
 * folder's trust (asked on a terminal when the project asks for more than
 * an untrusted folder gets), its settings and catalog, the session (new, or
 * loaded from the store) with its permission gate, undo and storage.
 */
export async function openRunSession(choices: RunChoices, io: CliIO): Promise<HostSession> {
  const { root } = choices;
  const style = styleFor(io.stderr, io.env);
  const data = dataHome(io.env);
  const forced = forcedRules(choices.allow);
  const catalog = await openFolder({
    root,
    env: io.env,
    dataHome: data,
    trust: { ...(choices.interactive ? { ask: askTrust(io, style) } : {}), howToTrust: howToTrust(root) },
    settings: (trusted) => {
      const settings = resolveSettings(root, choices.overrides, io.env, { trusted });
      if (choices.maxIterations !== undefined) settings.maxIterations = choices.maxIterations;
      return settings;
    },
    ...(choices.roles ? { roles: choices.roles } : {}),
    allowNetwork: forced.network === 'allow',
  });
  const store = new SessionStore({ dataHome: data, warn: (warning) => io.stderr.write(`crow: warning: ${warning}\n`) });
  const options = {
    catalog: () => catalog,
    store,
    workspace: new NodeWorkspace(root),
    ...(choices.interactive
      ? { ask: terminalAsk(io, style, choices.screen), ...terminalQuestions(io, style, choices.screen), askPromptArgument: terminalPromptArgument(io, style, choices.screen) }
      : { elicitUnavailable: 'crow run is not on a terminal (or writes --json), so nobody can answer; run it on a terminal to answer' }),
    howToAllow: (category: PermissionCategory) => `pass --allow ${category} (or set permissions.${category} = "allow" in .crow/config.toml)`,
    forced,
    ...(choices.limits ? { limits: choices.limits } : {}),
    howToRaise: (limit: keyof Limits) => `pass ${LIMIT_FLAGS[limit]} with a higher value (or raise ${LIMIT_KEYS[limit]} in config.toml)`,
    ...(choices.undo ? { undo: undoOptions(data, io.env) } : {}),
    mcpAuth: { store: new FileTokenStore(data), signInHint: terminalSignInHint },
    env: io.env,
  };
  // Stored from its first prompt on, and not at all when that prompt fails to start (see HostSession.prompt).
  if (choices.session === undefined) {
    return HostSession.create({ ...options, storeFromFirstPrompt: true }, { ...(choices.agent !== undefined ? { agent: choices.agent } : {}), ...(choices.id !== undefined ? { id: choices.id } : {}) });
  }
  const host = await HostSession.load(options, storedSessionId(store, choices.session, root));
  if (choices.agent !== undefined) await host.setAgent(choices.agent);
  return host;
}

/** Undo for one run: the folder's keeper asked first, and started when this run's own record is slow (keeper-command.ts). */
function undoOptions(data: string, env: NodeJS.ProcessEnv): { dataHome: string; env: NodeJS.ProcessEnv; keeper?: KeeperLaunch } {
  const keeper = keeperLaunch(env);
  return { dataHome: data, env, ...(keeper ? { keeper } : {}) };
}

function forcedRules(allow: string | undefined): Partial<Record<PermissionCategory, PermissionRule>> {
  const forced: Partial<Record<PermissionCategory, PermissionRule>> = {};
  if (allow !== undefined) for (const category of parseCategories(allow, '--allow')) forced[category] = 'allow';
  return forced;
}

function storedSessionId(store: SessionStore, choice: string, root: string): string {
  if (choice !== 'latest') return store.resolve(choice);
  // The newest one with a turn in it: a session whose prompt never reached an agent holds nothing to continue.
  const latest = store.list({ cwd: root }).find((meta) => meta.internal.length > 0);
  if (!latest) throw new UsageError(`No earlier session in ${root} to continue. Start one with: crow run "..."`);
  return latest.id;
}

/** Shows what the project asks for and asks once whether to trust the folder; the answer is remembered. */
function askTrust(io: CliIO, style: Style): (request: ProjectRequest, previously: TrustLookup) => Promise<boolean> {
  return async (request, previously) => {
    const opening =
      previously === 'changed'
        ? `${request.folder} asks for something other than what you trusted before:`
        : `${request.folder} has its own Crow configuration that asks for more than an untrusted folder gets:`;
    io.stderr.write(`\n${style.yellow('?')} ${style.bold(opening)}\n`);
    for (const line of describeRequest(request)) io.stderr.write(`  • ${line}\n`);
    io.stderr.write(`  ${style.dim('Trust this folder? [y] yes, use all of it · [n] no, ignore these parts (remembered; crow trust changes it)')} `);
    const answer = ((await io.readLine(new AbortController().signal)) ?? '').trim().toLowerCase();
    const trusted = answer === 'y' || answer === 'yes';
    io.stderr.write(`  ${trusted ? style.green('trusted') : style.yellow('not trusted: those parts are ignored')}\n`);
    return trusted;
  };
}
