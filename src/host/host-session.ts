/**
 * One session as every front door runs it: an ACPSession kept in the store,
 * its permission gate, undo recording, MCP servers, span export, cost, and
 * at most one running prompt. Front doors only translate their protocol to
 * and from AgentEvents and answer `ask()`: the CLI, the ACP server and the
 * VS Code chat all open their sessions here.
 */
import { Interruption } from '../vocabulary/interruption';
import { randomUUID } from 'node:crypto';
import type { CompositionRole, RoleModels } from '../agents/role-models';
import type { ACPAgentDefinition } from '../config/agent-definitions';
import { ACPSession, type ThoughtLevel } from '../session/acp-session';
import { type SteerOutcome, SteeringQueue } from '../session/steering';
import { UnknownSessionError } from '../session/session-store';
import { type SessionParts, sessionParts } from './session-parts';
import type { PermissionPolicy } from '../vocabulary/permission-types';
import type { Workspace } from '../tools/workspace';
import type { CatalogEntry, ModelChoice, WorkspaceCatalog } from './catalog';
import { CostMeter, meterOfSpans, sumMeters } from './cost';
import { HostError } from './host-error';
import { type PromptOptions, PromptRun, type PromptOutcome, type PromptStream } from './prompt-run';
import { levelOfBudget, promptBlocks, type PromptInput, THINKING_BUDGETS, THOUGHT_LEVELS } from './prompt-input';
import type { HostSessionOptions } from './session-options';
import { errorText } from '../vocabulary/text';
import { applyProgram, applyPromptText, insideWorkspace } from './apply-code';
import { SessionRestores } from './session-restores';
import { composerSuggestions } from './composer-offers';
import type { SuggestTrigger, Suggestion } from '../vocabulary/suggestion';

export type { HostObserver, HostSessionOptions, HostStore } from './session-options';

/** How long a picker waits for a server's list of models the first time; past it, the configured models are offered. */
const MODEL_LIST_WAIT_MS = 1_500;

/** After a cancel, how long a prompt may take to wind down before a new prompt, or closing, stops waiting for it. */
export const CANCEL_GRACE_MS = 2_000;

export class HostSession {
  readonly meter: CostMeter;
  private keeper: { save(): void; close(): void } | undefined;
  private current: PromptRun | undefined;
  private readonly prompts: PromptRun['shared'];
  /** Messages sent while a prompt runs, for its agents' next step boundary. */
  private readonly steering = new SteeringQueue();
  /** Set once close() began: the session runs nothing more and stores nothing more. */
  private closing: Promise<void> | undefined;
  /** The journal's views and restores a person's clicks ask for (the chat's Undo, Restore, per-file and per-hunk buttons). */
  readonly restores: SessionRestores;

  private constructor(
    readonly session: ACPSession,
    private readonly options: HostSessionOptions,
    private readonly parts: SessionParts,
    meter: CostMeter,
  ) {
    this.meter = meter;
    this.prompts = { composition: undefined, mcp: undefined, exporter: undefined, told: new Set<string>() };
    this.restores = new SessionRestores({ session, options, undo: parts.undo, busy: () => this.busy, save: () => this.keeper?.save() });
    if (!options.storeFromFirstPrompt) this.keep();
  }

  /** A new session, on `agent` or the folder's default agent, with `id` or a fresh one. */
  static async create(options: HostSessionOptions, choices: { agent?: string; id?: string } = {}): Promise<HostSession> {
    const catalog = await options.catalog();
    const parts = sessionParts(options, catalog);
    const session = new ACPSession({
      id: choices.id ?? randomUUID(),
      cwd: options.workspace.root,
      agentName: choices.agent !== undefined ? (catalog.agentNamed?.(choices.agent) ?? choices.agent) : catalog.defaultAgent(),
      ...parts.dependencies,
    });
    return new HostSession(session, options, parts, new CostMeter());
  }

  /**
   * A stored session, to continue it. Throws a HostError naming the id when
   * there is none (`unknown-session`), or when another process has it open (`busy`, from the first prompt on).
   */
  static async load(options: HostSessionOptions, id: string): Promise<HostSession> {
    const catalog = await options.catalog();
    const parts = sessionParts(options, catalog);
    let session: ACPSession;
    try {
      session = options.store.load(id, parts.dependencies);
    } catch (err) {
      if (err instanceof UnknownSessionError) throw new HostError('unknown-session', err.message);
      throw err;
    }
    const own = options.store.totals ? options.store.totals(id).meter : meterOfSpans(options.store.spans?.(id) ?? []);
    // Its attempts' sessions are stored apart: live, the door counted them in; resumed, they count again (the same total).
    const attempts = options.store.attemptsMeter?.(id);
    const before = attempts ? sumMeters(own, attempts) : own;
    return new HostSession(session, { ...options, storeFromFirstPrompt: false }, parts, new CostMeter({ ...before }));
  }

  /** The definition of the session's agent (its flow, its primary and reviewer), when the folder's catalog knows it. */
  async definition(): Promise<ACPAgentDefinition | undefined> {
    return (await this.options.catalog()).definition?.(this.session.agentName);
  }

  get id(): string {
    return this.session.id;
  }

  /** Where the session's tools act. */
  get workspace(): Workspace {
    return this.options.workspace;
  }

  /** Whether a prompt runs (or is still winding down after a cancel); one that told its end is done, whatever is left to save. */
  get busy(): boolean {
    return this.current !== undefined && (this.current.cancelled || !this.current.ended);
  }

  /** The agents a person can pick, and the models per role of the session's agent with the session's choices applied. */
  async choices(): Promise<{ agents: CatalogEntry[]; models: RoleModels[]; thinks: boolean; policy: PermissionPolicy; sandboxed: boolean }> {
    const catalog = await this.options.catalog();
    await catalog.refreshModels?.(this.session.agentName, MODEL_LIST_WAIT_MS);
    const models = currentModels(catalog, this.session.agentName, this.session.models);
    // The folder's sandbox as the next prompt will have it (a prompt applies it too), so the view can say what runs unasked.
    this.options.workspace.useSandbox?.(catalog.sandbox?.()?.options);
    return {
      agents: catalog.list(),
      models,
      thinks: catalog.thinks?.(this.session.agentName) ?? false,
      policy: catalog.permissionPolicy(),
      sandboxed: this.options.workspace.sandboxed ?? false,
    };
  }

  /** What the person may pick while typing: after `/` the commands (the folder's, the MCP servers' prompts), after `@` the servers' resources. */
  suggestions(trigger: SuggestTrigger, query: string): Promise<Suggestion[]> {
    return composerSuggestions({ shared: this.prompts, options: this.options, session: this.session, busy: this.busy }, trigger, query);
  }

  /**
   * The folder's notices not yet told in this session, now counted as told:
   * for a front door that shows them when the session opens rather than with
   * its first prompt.
   */
  async takeNotices(): Promise<string[]> {
    const fresh = ((await this.options.catalog()).notices?.() ?? []).filter((text) => !this.prompts.told.has(text));
    for (const text of fresh) this.prompts.told.add(text);
    return fresh;
  }

  /** The thinking level in force: the one picked, else what the settings' budget amounts to. */
  thoughtLevel(settingsBudget?: number): ThoughtLevel {
    return this.session.thoughtLevel ?? levelOfBudget(settingsBudget);
  }

  async setAgent(given: string): Promise<void> {
    const catalog = await this.options.catalog();
    const name = catalog.agentNamed?.(given) ?? given;
    const agents = catalog.list();
    if (!agents.some((agent) => agent.name === name)) {
      throw new HostError('usage', `Unknown agent "${name}". Agents: ${agents.map((agent) => agent.name).join(', ')}.`);
    }
    this.useAgent(name);
  }

  /** The one writer of the session's agent: a person's pick, or a slash command that names another agent. */
  private useAgent(name: string): void {
    if (this.session.agentName === name) return;
    this.session.agentName = name;
    this.keeper?.save();
  }

  /**
   * Picks a model for a role of the session's agent: one the catalog offers,
   * or any other name of the role's provider (a model the configuration does
   * not list yet); a front door with a closed list (ACP) checks it first.
   */
  async setModel(role: CompositionRole, model: string): Promise<void> {
    const offered = (await this.options.catalog()).models(this.session.agentName).find((offer) => offer.role === role);
    if (!offered) throw new HostError('usage', `${this.session.agentName} has no ${role === 'coagent' ? 'reviewer' : 'primary'} model to pick.`);
    const name = model.trim();
    if (name === '' || /\s/.test(name)) throw new HostError('usage', `"${model}" is not a model name: give one word, e.g. ${offered.current}.`);
    this.session.models = { ...this.session.models, [role]: name };
    this.keeper?.save();
  }

  setThoughtLevel(level: string): void {
    if (!THOUGHT_LEVELS.includes(level as ThoughtLevel)) {
      throw new HostError('usage', `"${level}" is not a thinking level: ${THOUGHT_LEVELS.join(', ')}.`);
    }
    this.session.thoughtLevel = level as ThoughtLevel;
    this.keeper?.save();
  }

  /**
   * Runs one prompt. The stream carries the run's events (and the host's
   * notices) and ends with the outcome; it fails with a HostError when the
   * prompt cannot start. A cancel (here or through `signal`) ends it with
   * status `cancelled`, during preparation too.
   */
  prompt(input: PromptInput, options: PromptOptions = {}): PromptStream {
    const run = new PromptRun(this.session, this.options, this.prompts, this.meter, {
      caps: this.parts.caps,
      ...(this.parts.undo ? { undo: this.parts.undo } : {}),
      steering: this.steering,
      useAgent: (name) => this.useAgent(name),
    });
    const stream = run.stream;
    // A closed session (a client closed or deleted it while this prompt waited) is not stored again, nor run.
    const skipClosed = (): void => run.skip(`Session ${this.id} was closed before this prompt could start.`);
    if (this.closing) {
      skipClosed();
      return stream;
    }
    void this.claim(run)
      .then(() => {
        if (this.closing) {
          if (this.current === run) this.current = undefined;
          return skipClosed();
        }
        const fresh = this.keeper === undefined;
        this.keep();
        const keeper = this.keeper!;
        // A session stored by this prompt whose start fails (an unknown agent, a missing key) is not kept: nothing happened in it.
        const discard = fresh ? () => this.forget() : undefined;
        const winding = run.execute(input, options, { save: () => keeper.save(), ...(discard ? { discard } : {}) });
        void winding.finally(() => {
          if (this.current === run) this.current = undefined;
          // After the run lets go of the session: a message handed back can be sent as the next prompt at once.
          if (this.current === undefined) this.steering.handBack();
        });
      })
      .catch((err: unknown) => {
        // Refused before it ran: nothing is left to wait for (a close, the next prompt).
        if (this.current === run) this.current = undefined;
        run.refuse(err);
      });
    return stream;
  }

  /**
   * A message sent while a prompt runs: queued, and given to the working
   * agent at its next step boundary (after the tool calls it is running
   * return). Resolves once delivered, or handed back when the prompt ended
   * before any boundary took it (at once when no prompt runs): the door then
   * sends it as the next prompt. To interrupt instead, cancel and prompt.
   */
  async steer(input: PromptInput): Promise<SteerOutcome> {
    const content = promptBlocks(input);
    if (this.closing || !this.busy || this.current?.cancelled) return { delivered: false, content };
    const note = (await this.options.catalog()).prompts().render('steering', {}).trim();
    if (this.closing || !this.busy || this.current?.cancelled) return { delivered: false, content };
    return this.steering.push({ content, forModel: [{ type: 'text', text: note }, ...content] });
  }

  /** How many messages wait for the running prompt's next step boundary. */
  get queued(): number {
    return this.steering.size;
  }

  /**
   * A code block the person applies to `path`, as a prompt of its own (see
   * apply-code.ts): asked like an agent's write, recorded for undo and
   * rewind, told to the agents. A path that may not be written is refused
   * (HostError) before anything starts.
   */
  async applyCode(path: string, content: string, options: PromptOptions = {}): Promise<PromptStream> {
    let relative: string;
    try {
      relative = await insideWorkspace(this.options.workspace.root, path);
    } catch (err) {
      throw new HostError('usage', errorText(err));
    }
    return this.prompt(applyPromptText(relative), { ...options, program: applyProgram(relative, content) });
  }

  /** Stops one running tool call (a long command) without cancelling the prompt; false when it is not running. */
  stopCall(callId: string): boolean {
    return this.session.calls.stop(callId);
  }

  /** Cancels the running prompt, if any; its stream ends with status `cancelled`. */
  cancel(): void {
    this.current?.cancel();
  }

  /** Settles when the running prompt (if any) has wound down. */
  get finished(): Promise<void> {
    return this.current?.finished ?? Promise.resolve();
  }

  /** Whether close() was called: the session takes no more prompts. */
  get closed(): boolean {
    return this.closing !== undefined;
  }

  /**
   * Stops the session: cancels a running prompt and waits (at most
   * CANCEL_GRACE_MS) for it to wind down, so its last entries and spans are
   * stored; then stops storing the session (a prompt still winding down
   * writes nothing more) and closes its MCP servers and span export.
   * Messages waiting for the running prompt's next step are handed back at
   * once, and a prompt sent from now on ends cancelled without running.
   * `interrupted`: Crow is going away (a window reload), so a running
   * prompt ends as interrupted, not cancelled. Calling it again waits for
   * the same close.
   */
  close(options: { interrupted?: boolean } = {}): Promise<void> {
    this.closing ??= this.shutDown(options);
    return this.closing;
  }

  private async shutDown(options: { interrupted?: boolean }): Promise<void> {
    if (options.interrupted) this.current?.cancel(new Interruption());
    else this.cancel();
    this.steering.handBack();
    await Promise.race([this.finished, delay(CANCEL_GRACE_MS)]);
    // A snapshot still running in the background stops (git removes its lock): the close waits for its git to go, within
    // the grace (git is sent SIGKILL a second after SIGTERM), so nothing of the session writes after it closed.
    await Promise.race([this.parts.undo?.close(), delay(CANCEL_GRACE_MS)]);
    this.keeper?.close();
    await this.prompts.mcp?.servers.close();
    await this.prompts.exporter?.shutdown();
  }

  /**
   * Makes way for `run`, which the session is busy with from now on (a
   * prompt sent meanwhile is queued for it or refused, never let in beside
   * it): refuses while another prompt runs, waits briefly for a cancelled
   * one (or one whose end was told: a prompt sent as soon as the last one
   * answered) to wind down.
   */
  private async claim(run: PromptRun): Promise<void> {
    const previous = this.current;
    if (previous && !previous.cancelled && !previous.ended) throw busy(this.id);
    this.current = run;
    if (!previous) return;
    const stopped = await Promise.race([previous.finished.then(() => true), delay(CANCEL_GRACE_MS).then(() => false)]);
    if (stopped) return;
    if (this.current === run) this.current = previous;
    throw new HostError('busy', `The last prompt in session ${this.id} is still stopping; try again in a moment.`);
  }

  /** Stops storing the session and removes what was stored of it. */
  private forget(): void {
    this.keeper?.close();
    this.keeper = undefined;
    try {
      this.options.store.delete?.(this.id);
    } catch {
      // Already gone: nothing is left to remove.
    }
  }

  /** Stores the session from now on (once). */
  private keep(): void {
    if (this.keeper) return;
    try {
      this.keeper = this.options.store.attach(this.session);
    } catch (err) {
      throw new HostError('busy', errorText(err));
    }
  }
}

/** The offers of `agent`'s roles with the session's own choices as current (offered from then on, if the catalog did not list them). */
export function currentModels(catalog: WorkspaceCatalog, agent: string, chosen: ModelChoice): RoleModels[] {
  return catalog.models(agent).map((offer) => {
    const model = chosen[offer.role];
    if (model === undefined) return offer;
    return { ...offer, current: model, options: offer.options.includes(model) ? offer.options : [...offer.options, model] };
  });
}

function busy(id: string): HostError {
  return new HostError('busy', `A prompt is already running in session ${id}: wait for it, or cancel it first.`);
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}

export type { PromptOptions, PromptOutcome, PromptStream };
export { THINKING_BUDGETS };
export type { ModelChoice };
