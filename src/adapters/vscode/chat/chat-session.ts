/**
 * One conversation of the VS Code front door: a HostSession whose settings,
 * keys and agent definitions are read again at every prompt (a setting
 * changed or a key set a moment ago applies to the next prompt), and whose
 * events become the chat view's transcript. Plain Node: the chat view and
 * the `@crow` participant both drive it, and the Node tests drive it
 * against the fake LLM server.
 */
import type { CompositionRole, RoleModels } from '../../../agents/role-models';
import type { ProgrammaticCommand } from '../../../agents/programmatic-command';
import { t } from '../l10n';
import { errorText } from '../../../vocabulary/text';
import { LIMIT_KEYS } from '../../../host/budget';
import { listCheckpoints } from '../../../journal/checkpoint-list';
import type { SteerOutcome } from '../../../session/steering';
import type { WorkspaceCatalog } from '../../../host/catalog';
import { openFolder } from '../../../host/folder';
import { HostError } from '../../../host/host-error';
import { HostSession, type HostSessionOptions } from '../../../host/host-session';
import type { PromptStream } from '../../../host/prompt-run';
import type { PlannedRestore, RestoreRequest } from '../../../host/restore-commands';
import { THOUGHT_LEVELS } from '../../../host/prompt-input';
import { INTERRUPTED, storedPrompts } from '../../../host/stored-prompts';
import type { SessionStore } from '../../../session/session-store';
import type { AskFn } from '../../../tools/permissions';
import type { ElicitFn } from '../../../mcp/elicitation-form';
import type { SuggestTrigger, Suggestion } from '../../../vocabulary/suggestion';
import type { ElicitUrlFn } from '../../../mcp/elicitation-url';
import type { StandingRule } from '../../../tools/remembered-answers';
import type { Workspace } from '../../../tools/workspace';
import type { McpTokenStore } from '../../../mcp/oauth-store';
import { vscodeSignInHint } from '../mcp-sign-in-choices';
import type { Meter, PromptStatus, SessionSummary, TranscriptEvent } from '../../../../webview/chat/protocol';
import { frontDoorDocument, roleChoices, settingsFor, type CrowConfiguration } from '../configuration';
import { liveSessions } from './live-sessions';
import type { CheckSetting } from './attempts-check';
import { notice, TranscriptTranslator, welcomeText } from './transcript-translator';
import type { ChangedFile } from '../../../vocabulary/changed-file';
import type { PromptHunk } from '../../../journal/hunk-restore';

/** What a chat session needs from its host (the extension, or a test). */
export interface ChatHost {
  /** The workspace folder sessions work in (absolute). */
  root: string;
  /** Where sessions, traces and undo points are kept. */
  dataHome: string;
  store: SessionStore;
  /** The environment with API keys (SecretStorage over process.env); read at every prompt. */
  env(): Promise<NodeJS.ProcessEnv>;
  /** The `crow.*` settings; read at every prompt. */
  configuration(): CrowConfiguration;
  /** Calls `listener` when the models VS Code offers change (they are in `configuration()`); returns what stops it. */
  watchVscodeModels?(listener: () => void): () => void;
  /** The workspace the tools act on (VS Code's in the extension). */
  workspace(): Workspace;
  /** VS Code's Workspace Trust for the folder; absent: the user's remembered answers decide (crow trust). */
  trusted?(): boolean;
  /** The session the view showed last in this workspace (kept across window reloads). */
  lastSession?: { get(): string | undefined; set(id: string | undefined): void };
  /** Crow's output channel (never given keys): what happened out of sight, such as a session reopened after a reload. */
  log?(message: string): void;
  /** The setting crow.attempts.check where it was set (attempts-check.ts decides which runs); absent: none. */
  attemptsCheck?(): CheckSetting;
  /** Where sign-ins to remote MCP servers are kept (SecretStorage); absent: a server that asks is reported as unusable. */
  mcpTokens?: McpTokenStore;
}

/** How a VS Code user trusts a folder. */
const howToTrust = (): string => t('To use them, trust this workspace (command "Workspaces: Manage Workspace Trust").');

/** Who answers a session's questions: the permission gate's (`ask`), and an MCP server's form or page where the door can show one. */
export type ChatAsking = AskFn | { ask: AskFn; elicit?: ElicitFn; elicitUrl?: ElicitUrlFn };

export interface PromptObserver {
  onEvent(event: TranscriptEvent): void;
  /** The prompt's tokens and cost so far, after every LLM call. */
  onMeter(meter: Meter): void;
}

export interface ChatOutcome {
  status: PromptStatus;
  meter: Meter;
}

/** A problem that stops a prompt before it starts (settings, keys, definitions), in words a person can act on. */
export class PromptSetupError extends Error {
  override name = 'PromptSetupError';
}

export class ChatSession {
  private constructor(private readonly host: HostSession) {}

  /** A new session on the agent the settings name (crow.defaultAgent, default_agent, else build); stored from its first prompt. */
  static async start(chat: ChatHost, ask: ChatAsking, agentName?: string): Promise<ChatSession> {
    return new ChatSession(await setup(() => HostSession.create(hostOptions(chat, ask), agentName !== undefined ? { agent: agentName } : {})));
  }

  /**
   * A new session nobody watches (a background run): the folder's rules
   * decide alone, and what they say to ask about is refused with how to
   * allow it, as in the CLI's `crow run --background`.
   */
  static async startUnattended(chat: ChatHost, agentName?: string): Promise<ChatSession> {
    const options: HostSessionOptions = {
      ...hostOptions(chat, () => Promise.resolve('reject_once' as const)),
      ask: undefined,
      howToAllow: (category) => `set "crow.permissions.${category}" to "allow" in the settings (a background run asks nobody)`,
      elicitUnavailable: "a background run cannot show an MCP server's question",
    };
    return new ChatSession(await setup(() => HostSession.create(options, agentName !== undefined ? { agent: agentName } : {})));
  }

  /** A stored session, to continue it. Throws when there is no such session. */
  static async resume(chat: ChatHost, id: string, ask: ChatAsking): Promise<ChatSession> {
    return new ChatSession(await setup(() => HostSession.load(hostOptions(chat, ask), id)));
  }

  /** The host's folder's sessions the view lists: the person's own, not the subagents' under them. */
  static listed(chat: ChatHost): SessionSummary[] {
    return chat.store
      .list({ cwd: chat.root })
      .filter((meta) => meta.parent === undefined)
      .map((meta) => ({ id: meta.id, title: meta.title || '(untitled)', agent: meta.agentName, updatedAt: new Date(meta.updatedAt).toISOString() }));
  }

  /**
   * The session `id` when its last prompt was interrupted (the window
   * reloaded, Crow stopped), to show it again with Resume; undefined when
   * it ended normally, no longer opens, or stays held by another process.
   * A reloaded window's old extension host may still be winding down (ending
   * the prompt, closing its terminals) as the new view opens: it is given
   * the time VS Code gives a deactivating extension to let go of the session.
   */
  static async reopenInterrupted(chat: ChatHost, id: string, ask: ChatAsking): Promise<ChatSession | undefined> {
    if (!(await released(() => chat.store.isRecording(id), HANDOVER_MS))) {
      chat.log?.(`Session ${id} is still held by another process (${Math.round(HANDOVER_MS / 1000)} s after the view opened): the view starts a new one.`);
      return undefined;
    }
    try {
      const reopened = await ChatSession.resume(chat, id, ask);
      if (reopened.interrupted) {
        chat.log?.(`Reopened session ${id}: its last prompt was interrupted (a window reload, or Crow stopped).`);
        return reopened;
      }
      await reopened.close();
    } catch (err) {
      // A session that no longer opens is not worth an error at start: the view starts a new one.
      chat.log?.(`Session ${id} could not be reopened: ${errorText(err)}`);
    }
    return undefined;
  }

  get id(): string {
    return this.host.id;
  }

  get session(): HostSession['session'] {
    return this.host.session;
  }

  get busy(): boolean {
    return this.host.busy;
  }

  /** The session's tokens and cost so far (a resumed session's from its stored spans). */
  get meter(): Meter {
    return this.host.meter.session;
  }

  /** What a person can pick now: the agents, the models per role of the session's agent, and its thinking level when its model thinks. */
  async choices(): Promise<{
    agents: { name: string; description: string }[];
    models: RoleModels[];
    thinking?: { current: string; levels: string[] };
    welcome: string;
  }> {
    const { agents, models, thinks, policy, sandboxed } = await setup(() => this.host.choices());
    const welcome = welcomeText(policy, sandboxed);
    return { agents, models, ...(thinks ? { thinking: { current: this.host.thoughtLevel(), levels: [...THOUGHT_LEVELS] } } : {}), welcome };
  }

  setThinking(level: string): Promise<void> {
    return setup(async () => this.host.setThoughtLevel(level));
  }

  setAgent(name: string): Promise<void> {
    return setup(() => this.host.setAgent(name));
  }

  setModel(role: CompositionRole, model: string): Promise<void> {
    return setup(() => this.host.setModel(role, model));
  }

  /**
   * Runs one prompt to its end. Problems before the run (settings, a missing
   * key, a bad slash command) throw PromptSetupError; everything after is
   * told through `observer` and the outcome.
   */
  prompt(text: string, observer: PromptObserver, signal?: AbortSignal): Promise<ChatOutcome> {
    return this.follow(() => this.host.prompt(text, signal ? { signal } : {}), observer);
  }

  /** A code block the person applies to `path`: a prompt of its own, shown like one (its write asked like an agent's). */
  apply(path: string, content: string, observer: PromptObserver): Promise<ChatOutcome> {
    return this.follow(() => this.host.applyCode(path, content), observer);
  }

  /** The chosen one of parallel attempts brought into the folder: a prompt of its own (apply-attempt.ts), so Undo and the changes bar work on it. */
  applyAttempt(text: string, program: ProgrammaticCommand, observer: PromptObserver): Promise<ChatOutcome> {
    return this.follow(() => this.host.prompt(text, { program }), observer);
  }

  /** Shows a prompt's events as they come, and how it ended. */
  private async follow(start: () => PromptStream | Promise<PromptStream>, observer: PromptObserver): Promise<ChatOutcome> {
    const translator = new TranscriptTranslator();
    liveSessions.started(this.id, this.session.trace);
    let stream: PromptStream;
    try {
      stream = await start();
    } catch (err) {
      liveSessions.ended(this.id);
      if (err instanceof HostError) throw new PromptSetupError(err.message);
      throw err;
    }
    let status: PromptStatus = 'error';
    let ended = false;
    try {
      for await (const event of stream) {
        for (const item of translator.handle(event)) {
          if (item.type === 'prompt_end') ended = true;
          observer.onEvent(item);
        }
        if (event.type === 'usage' || event.type === 'subagent_usage') observer.onMeter(this.host.meter.prompt);
      }
      status = (await stream.result).status;
    } catch (err) {
      if (err instanceof HostError) throw new PromptSetupError(err.message);
      observer.onEvent(notice('error', `Crow failed: ${errorText(err)}. The session is kept; try again, or open the trace to see what happened.`));
    } finally {
      liveSessions.ended(this.id);
    }
    if (!ended) observer.onEvent({ type: 'prompt_end', status, message: status === 'cancelled' ? 'Cancelled.' : '' });
    return { status, meter: this.host.meter.prompt };
  }

  /** Whether the session's last prompt never ended: Crow stopped, or the window was reloaded, while it ran. */
  get interrupted(): boolean {
    const last = storedPrompts(this.session).at(-1);
    return last?.events.at(-1)?.type === 'run_complete' && (last.events.at(-1) as { message?: string }).message === INTERRUPTED;
  }

  /** The stored session's prompts as the view shows them: each through a translator, as it was shown live. */
  transcript(): TranscriptEvent[] {
    return storedPrompts(this.session).flatMap(({ start, events }) => {
      const translator = new TranscriptTranslator({ replaying: true });
      return [start, ...events].flatMap((event) => translator.handle(event));
    });
  }

  /** A message for the running prompt's next step; resolves delivered, or handed back to be sent as the next prompt. */
  steer(text: string): Promise<SteerOutcome> {
    return this.host.steer(text);
  }

  /** The number of the checkpoint `id` (as /rewind takes it), or undefined when the session has no such checkpoint. */
  checkpointNumber(id: string): number | undefined {
    return listCheckpoints(this.session).find((entry) => entry.checkpoint.id === id)?.number;
  }

  /** Plans a restore the person clicked for (Undo, Restore): nothing is asked through the agents' approvals; see SessionRestores.planRestore. */
  planRestore(request: RestoreRequest): Promise<PlannedRestore> {
    return setup(() => this.host.restores.planRestore(request, new AbortController().signal));
  }

  /** What the last prompt changed, from its journal; undefined when that cannot be told now. */
  promptChanges(): Promise<ChangedFile[] | undefined> {
    return this.host.restores.promptChanges(new AbortController().signal).catch(() => undefined);
  }

  /** The hunks of the last prompt's change to `path`, from its journal. */
  promptHunks(path: string): Promise<PromptHunk[]> {
    return this.host.restores.promptHunks(path, new AbortController().signal).catch(() => []);
  }

  /** Puts back one hunk of the last prompt's change to `path` on the person's click; says how it went. */
  undoHunk(path: string, id: string): Promise<{ restored: boolean; message: string }> {
    return this.host.restores.undoHunk(path, id, new AbortController().signal);
  }

  /** The session's standing "Always" and "Never" answers. */
  rules(): StandingRule[] {
    return this.session.permissions.standingRules();
  }

  /** What the person may pick while typing a prompt: commands after `/`, MCP resources after `@`. */
  suggestions(trigger: SuggestTrigger, query: string): Promise<Suggestion[]> {
    return this.host.suggestions(trigger, query);
  }

  /** Takes back a standing answer; false when it was already gone. */
  revokeRule(id: string): boolean {
    return this.session.permissions.revokeRule(id);
  }

  cancel(): void {
    this.host.cancel();
  }

  /** Stops one running call; false when it already ended. */
  stopCall(callId: string): boolean {
    return this.host.stopCall(callId);
  }

  /** Cancels a running prompt, lets it wind down briefly, then stops storing the session and closes its servers. */
  close(options: { interrupted?: boolean } = {}): Promise<void> {
    return this.host.close(options);
  }
}

/** How long a reloaded window waits for its old extension host to let go of the session: VS Code's deactivate allowance (5 s, microsoft/vscode#47881) and a margin. */
const HANDOVER_MS = 6_000;

/** Whether `held` turns false within `ms`, checked every 100 ms. */
async function released(held: () => boolean, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (held()) {
    if (Date.now() >= deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return true;
}

function hostOptions(chat: ChatHost, asking: ChatAsking): HostSessionOptions {
  const { ask, elicit, elicitUrl } = typeof asking === 'function' ? { ask: asking, elicit: undefined, elicitUrl: undefined } : asking;
  return {
    catalog: () => catalogOf(chat),
    store: chat.store,
    workspace: chat.workspace(),
    ask,
    ...(elicit ? { elicit } : { elicitUnavailable: "the @crow chat participant cannot show an MCP server's form (Crow's own chat view can)" }),
    ...(elicitUrl ? { elicitUrl } : {}),
    howToAllow: (category) => `set "crow.permissions.${category}" to "allow" in the settings`,
    howToRaise: (limit) => `raise "crow.limits.${limit}" in the settings (or ${LIMIT_KEYS[limit]} in config.toml)`,
    caps: () => chat.configuration().autoApprove,
    undo: { dataHome: chat.dataHome, env: process.env },
    ...(chat.mcpTokens ? { mcpAuth: { store: chat.mcpTokens, signInHint: vscodeSignInHint } } : {}),
    storeFromFirstPrompt: true,
    env: process.env,
  };
}

/** The folder's catalog as the settings, keys and trust are now. */
async function catalogOf(chat: ChatHost): Promise<WorkspaceCatalog> {
  const env = await chat.env();
  const configuration = chat.configuration();
  return openFolder({
    root: chat.root,
    env,
    dataHome: chat.dataHome,
    trust: { frontDoor: frontDoorDocument(configuration), ...(chat.trusted ? { frontDoorTrusted: chat.trusted() } : {}), howToTrust: howToTrust() },
    settings: (trusted) => settingsFor(chat.root, configuration, env, trusted),
    roles: roleChoices(configuration),
  });
}

/** Runs a step of setting up; any failure is a PromptSetupError the view shows as is. */
async function setup<T>(step: () => Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (err) {
    if (err instanceof PromptSetupError) throw err;
    throw new PromptSetupError(errorText(err));
  }
}
