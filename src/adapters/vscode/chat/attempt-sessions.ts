/**
 * The sessions of a chat prompt run as parallel attempts: each attempt a
 * session of the chat's agent (its picked models and thinking too) in its
 * own worktree, the judge a session of the judging agent in the folder.
 * They read the settings, keys and trust the chat's own sessions read
 * (chat-session.ts), with three differences the CLI's attempts share
 * (src/adapters/cli/attempts-command.ts): writes inside the attempt's own
 * worktree need no asking (nothing reaches the person's files until they
 * click Apply); nobody is asked anything else (N sessions asking at once
 * would bury the chat), so a command the folder's rules say to ask about
 * is refused with how to allow it; and no undo is recorded (the worktree
 * goes away). Each session's share of the prompt limits keeps all of them
 * together within the limits of one prompt.
 */
import { providerConcurrency } from '../../../agents/provider-queue';
import { shareLimits } from '../../../attempts/share-limits';
import { attemptCallId, JUDGE_CALL_ID } from '../../../session/attempt-costs';
import { LIMIT_KEYS } from '../../../host/budget';
import { openFolder } from '../../../host/folder';
import { HostSession, type HostSessionOptions } from '../../../host/host-session';
import type { CompositionRole } from '../../../agents/role-models';
import { NodeWorkspace } from '../../../tools/node-workspace';
import { t } from '../l10n';
import { frontDoorDocument, roleChoices, settingsFor } from '../configuration';
import type { ChatHost, ChatSession } from './chat-session';

/** What the attempts of one prompt are opened from: the chat's host, and its session as it is now (agent, models, thinking). */
export interface AttemptSessionSource {
  host: ChatHost;
  chat: ChatSession;
  count: number;
}

export interface AttemptSessions {
  /** Attempts at once: as many as the provider takes subagents at once (`[limits] concurrency`), as in the CLI and ACP. */
  concurrency: number;
  openAttempt(root: string, n: number): Promise<HostSession>;
  openJudge(judge: string): Promise<HostSession>;
}

export async function attemptSessions(source: AttemptSessionSource): Promise<AttemptSessions> {
  const { host, chat, count } = source;
  const env = await host.env();
  const configuration = host.configuration();
  const trusted = host.trusted?.();
  const settings = settingsFor(host.root, configuration, env, trusted ?? false);
  const limits = shareLimits(settings.limits ?? {}, count);
  const options = (root: string, forced: HostSessionOptions['forced']): HostSessionOptions => ({
    catalog: async () =>
      openFolder({
        root,
        env: await host.env(),
        dataHome: host.dataHome,
        trust: { frontDoor: frontDoorDocument(configuration), ...(trusted !== undefined ? { frontDoorTrusted: trusted } : {}), howToTrust: t('To use them, trust this workspace (command "Workspaces: Manage Workspace Trust").') },
        settings: (isTrusted) => settingsFor(root, configuration, env, isTrusted),
        roles: roleChoices(configuration),
      }),
    store: host.store,
    workspace: new NodeWorkspace(root),
    ...(forced ? { forced } : {}),
    limits,
    howToAllow: (category) => `set "crow.permissions.${category}" to "allow" in the settings (attempts run side by side, so nobody is asked)`,
    howToRaise: (limit) => `raise "crow.limits.${limit}" in the settings (or ${LIMIT_KEYS[limit]} in config.toml); the attempts and the judge share one prompt's limits`,
    elicitUnavailable: 'attempts run side by side, so nobody can answer a server\'s question',
    storeFromFirstPrompt: true,
    env: process.env,
  });
  const agent = chat.session.agentName;
  const models = { ...chat.session.models };
  const thinking = chat.session.thoughtLevel;
  // Stored as the chat session's own sub-sessions: the Traces view lists them under it, the chat's session list does not.
  const under = (session: HostSession, callId: string): HostSession => {
    session.session.parent = { sessionId: chat.id, callId, agent };
    return session;
  };
  return {
    concurrency: providerConcurrency(settings, settings.provider),
    openAttempt: async (root, n) => {
      const session = under(await HostSession.create(options(root, { write: 'allow' }), { agent }), attemptCallId(n));
      for (const [role, model] of Object.entries(models)) if (model) await session.setModel(role as CompositionRole, model).catch(() => undefined);
      if (thinking !== undefined) session.setThoughtLevel(thinking);
      return session;
    },
    openJudge: async (judge) => under(await HostSession.create(options(host.root, undefined), { agent: judge }), JUDGE_CALL_ID),
  };
}
