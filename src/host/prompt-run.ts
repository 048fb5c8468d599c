/**
 * One prompt of a HostSession, from the moment it may start until it has
 * wound down: prepare (configuration, slash command, MCP tools, the
 * composition, subagents, span export, title, undo point), run, and hand
 * every event on with the cost counted; what it does with the journal is
 * in prompt-journal.ts. One AbortController per prompt: a
 * cancel during preparation ends it as cancelled too.
 */
import type { ACPAgent } from '../agents/acp-agent';
import type { RunResult } from '../agents/run-result';
import type { AgentEvent, NoticeAction, NoticeLevel } from '../engine/events';
import { EventStream } from '../engine/event-stream';
import { emptyUsage, type UserBlock } from '../llm/types';
import type { ACPSession } from '../session/acp-session';
import type { RecordedEvent } from '../session/event-log';
import type { Steering } from '../session/steering';
import type { SessionUndo } from '../journal/session-undo';
import type { AutoApproveCaps } from '../tools/permissions';
import { errorText } from '../vocabulary/text';
import type { WorkspaceCatalog } from './catalog';
import { compositionFor, offerMcpCommands, sessionTools, withMcpContext, type SharedPromptState, startExport, type ToolContext } from './prompt-shared';
import { commandOf, type Expansion, type ProgrammaticCommand } from './commands';
import { PromptBudget, RAISE_IN_CONFIG, unpricedNotice } from './budget';
import type { CostMeter, Meter } from './cost';
import { type HookRunner, promptHooks } from './hook-runner';
import { HostError } from './host-error';
import { beginUndoPoint, promptCheckpoints, withChanges } from './prompt-journal';
import { mcpToolContext } from './mcp-context';
import type { HostSessionOptions } from './session-options';
import { fitImages, promptBlocks, type PromptInput, promptText, titleOf } from './prompt-input';

/** How a prompt ended, with its tokens and cost and the session's so far. */
export interface PromptOutcome extends RunResult {
  meter: { prompt: Meter; session: Meter };
}

export type PromptStream = EventStream<AgentEvent, PromptOutcome>;

export interface PromptOptions {
  /** Cancels the prompt, as HostSession.cancel does. */
  signal?: AbortSignal;
  /** Told the composition once it is built, before any of its events: who is the primary, who reviews. */
  onStart?: (composition: ACPAgent) => void;
  /** Runs this program instead of the agents (an action of the person's, e.g. Apply); the prompt's text is what the transcript shows of it. */
  program?: ProgrammaticCommand;
}

interface Prepared {
  composition: ACPAgent;
  /** What the person sent, before a slash command expanded it. */
  original: UserBlock[];
  blocks: UserBlock[];
  program?: Extract<Expansion, { kind: 'program' }>;
  catalog: WorkspaceCatalog;
}

/** What a prompt uses of its HostSession besides the session itself. */
export interface PromptParts {
  caps: AutoApproveCaps;
  undo?: SessionUndo;
  /** Messages the person sends while this prompt runs. */
  steering?: Steering;
  /** Switches the session's agent (a slash command naming another one); the host is its one writer. */
  useAgent(name: string): void;
}

export class PromptRun {
  readonly stream: PromptStream = new EventStream();
  readonly finished: Promise<void>;
  private readonly controller = new AbortController();
  private settle!: () => void;
  /** Whether prompt_start was emitted; events before it wait in `early` to be recorded after it. */
  private started = false;
  private readonly early: RecordedEvent[] = [];

  constructor(
    private readonly session: ACPSession,
    private readonly options: HostSessionOptions,
    readonly shared: SharedPromptState,
    private readonly meter: CostMeter,
    private readonly parts: PromptParts,
  ) {
    this.finished = new Promise((resolve) => (this.settle = resolve));
  }

  get cancelled(): boolean {
    return this.controller.signal.aborted;
  }

  /** Whether the stream has told its end: what is left is winding down (the record flushed, the session saved). */
  ended = false;

  private end(outcome: PromptOutcome): void {
    this.ended = true;
    this.stream.end(outcome);
  }

  /** Ends the prompt as cancelled without running it (its session was closed while it waited); `message` says why. */
  skip(message: string): void {
    this.controller.abort();
    this.meter.startPrompt();
    this.end(this.outcome(cancelledResult(message)));
    this.settle();
  }

  /** Ends the prompt unrun, its stream failing with `err` (it could not start: the session could not be stored, or is busy). */
  refuse(err: unknown): void {
    this.ended = true;
    this.stream.fail(err);
    this.settle();
  }

  /** `reason`: an Interruption when Crow is going away rather than the person cancelling. */
  cancel(reason?: unknown): void {
    this.controller.abort(reason);
  }

  /**
   * Runs the prompt to its end; never rejects (failures end the stream).
   * `keeper.discard`, when given, is called instead of a last save if the
   * prompt never reached its agents (it failed or was cancelled while being prepared).
   */
  async execute(input: PromptInput, options: PromptOptions, keeper: { save(): void; discard?(): void }): Promise<void> {
    const external = options.signal;
    const signal = this.controller.signal;
    const stop = (): void => this.controller.abort();
    external?.addEventListener('abort', stop, { once: true });
    if (external?.aborted) stop();
    this.shared.noticeSink = (level, message, title, action) => this.notice(level, message, title, action);
    const observed = (event: AgentEvent): void => {
      this.meter.observe(event);
      this.emit(event);
    };
    this.shared.running = { signal, emit: observed };
    this.meter.startPrompt();
    let stopPlan: (() => void) | undefined;
    try {
      const prepared = await this.prepare(input, signal, options.program);
      if (prepared === 'cancelled') return this.end(this.outcome(cancelledResult('Cancelled before the agents started.')));
      options.onStart?.(prepared.composition);
      const { composition } = prepared;
      this.emit({
        type: 'prompt_start',
        agent: composition.name,
        primary: composition.primary.name,
        ...(composition.coagent ? { coagent: composition.coagent.name } : {}),
        content: prepared.original,
      });
      stopPlan = this.session.todos.onChange((items) => this.emit({ type: 'plan', agent: composition.name, items: [...items] }));
      this.session.budget = this.budget(prepared);
      this.session.steering = this.parts.steering;
      // Commands that only look after the session (/undo, /rewind, /compact) make no checkpoint and tell no changes.
      const journaled = !prepared.program?.command.skipUndoPoint;
      if (journaled) {
        const { recorder, event } = promptCheckpoints(this.session, this.parts.undo, composition.name, promptText(prepared.original));
        this.emit(event);
        this.session.checkpoints = recorder;
      }
      this.session.hooks = this.hooks(prepared);
      const run = prepared.program
        ? prepared.program.command.run({
            session: this.session,
            agent: composition,
            args: prepared.program.args,
            workspace: this.options.workspace,
            prompts: prepared.catalog.prompts(),
            env: this.options.env,
            signal,
            ...(prepared.catalog.settings ? { settings: prepared.catalog.settings() } : {}),
            ...(this.parts.undo ? { undo: this.parts.undo } : {}),
          })
        : composition.run(this.session, prepared.blocks, { signal, ...(this.session.hooks ? { hooks: this.session.hooks } : {}) });
      // The run's end waits for what the journal says the prompt changed, and carries it to every door.
      let ending: Extract<AgentEvent, { type: 'run_complete' }> | undefined;
      const result = await run.forEach((event) => {
        this.meter.observe(event);
        if (event.type === 'run_complete') ending = event;
        else this.emit(event);
      });
      if (ending) this.emit(journaled ? await withChanges(ending, this.parts.undo) : ending);
      this.end(this.outcome(result));
    } catch (err) {
      this.ended = true;
      this.stream.fail(err);
    } finally {
      this.session.budget = undefined;
      this.session.steering = undefined;
      this.session.checkpoints = undefined;
      this.session.hooks = undefined;
      stopPlan?.();
      this.session.events.flush();
      external?.removeEventListener('abort', stop);
      this.shared.noticeSink = undefined;
      this.shared.running = undefined;
      if (!this.started && keeper.discard) keeper.discard();
      else keeper.save();
      this.settle();
    }
  }

  /**
   * Hands an event on, and into the session's visible record. What comes
   * before the prompt starts (notices while it is prepared) is recorded
   * after its prompt_start, so a replay shows it under the prompt it
   * belongs to; a prompt that never starts records nothing.
   */
  private emit(event: AgentEvent): void {
    const out = this.redacted(event);
    if (out.type === 'prompt_start') {
      this.session.events.record(out);
      for (const early of this.early.splice(0)) this.session.events.record(early.event, early.at);
      this.started = true;
    } else if (out.type === 'tool_progress') {
      // A running call's progress is news only while it runs: its tool_call_end says how it went, and a replay shows that.
    } else if (this.started) {
      this.session.events.record(out);
    } else {
      this.early.push({ at: Date.now(), event: out });
    }
    this.stream.push(out);
  }

  private async prepare(input: PromptInput, signal: AbortSignal, given?: ProgrammaticCommand): Promise<Prepared | 'cancelled'> {
    const catalog = await configurationOf(this.options);
    const redactor = catalog.redactor?.();
    if (redactor) this.session.useRedactor(redactor);
    for (const text of catalog.notices?.() ?? []) this.noticeOnce('warning', text);
    const original = promptBlocks(input);
    const { blocks, program } = given ? { blocks: original, program: { kind: 'program' as const, command: given, args: '' } } : this.expand(original, catalog);
    if (!this.session.title) {
      this.session.title = titleOf(original);
      this.options.observer?.titled?.(this.session.title);
    }
    const tools = await untilAborted(sessionTools(this.shared, catalog, this.toolContext()), signal);
    if (tools === 'cancelled') return 'cancelled';
    // Before the composition: its agents' policies depend on whether commands are contained.
    this.options.workspace.useSandbox?.(catalog.sandbox?.()?.options);
    const composition = compositionFor(this.shared, catalog, tools, this.session, this.options.workspace);
    this.session.subagents = catalog.subagents?.(this.options.workspace, tools);
    this.parts.caps.limits = this.options.caps?.() ?? {};
    this.parts.caps.reset();
    startExport(this.shared, catalog, this.session.trace, (message) => this.route('warning', message));
    if (this.parts.undo && !program?.command.skipUndoPoint) {
      beginUndoPoint(this.parts.undo, this.session.id, promptText(original), catalog, (level, message) => this.notice(level, message));
    }
    if (signal.aborted) return 'cancelled';
    const supportsImages = composition.primary.provider.supportsImages;
    void offerMcpCommands(this.shared, this.options.observer?.commandsOffered).catch(() => undefined);
    const attached = program ? blocks : await untilAborted(withMcpContext(this.shared, blocks, supportsImages, signal, this.options.askPromptArgument), signal);
    if (attached === 'cancelled') return 'cancelled';
    return { composition, original, blocks: fitImages(attached, supportsImages), catalog, ...(program ? { program } : {}) };
  }

  /** A prompt opening with a known `/command` becomes the command's prompt (maybe on another agent), or its program. */
  private expand(blocks: UserBlock[], catalog: WorkspaceCatalog): { blocks: UserBlock[]; program?: Extract<Expansion, { kind: 'program' }> } {
    const commands = catalog.commands?.();
    const name = commandOf(blocks, commands);
    if (name === undefined) return { blocks };
    const [first, ...rest] = blocks as [Extract<UserBlock, { type: 'text' }>, ...UserBlock[]];
    let expansion: Expansion;
    try {
      expansion = commands!.expand(first.text, { workspaceRoot: this.session.cwd, agentName: this.session.agentName });
    } catch (err) {
      throw new HostError('usage', `/${name}: ${errorText(err)}`);
    }
    if (expansion.kind === 'program') return { blocks, program: expansion };
    if (expansion.agent !== undefined && expansion.agent !== this.session.agentName) {
      this.parts.useAgent(expansion.agent);
      this.options.observer?.agentChanged?.(expansion.agent);
    }
    return { blocks: [{ type: 'text', text: expansion.prompt }, ...rest] };
  }

  /**
   * The prompt's spending limits: the folder's [limits] under the door's
   * own. A cost limit on a model without prices is told once: its calls
   * count as nothing.
   */
  private budget({ catalog, composition }: Prepared): PromptBudget | undefined {
    const limits = PromptBudget.of({ ...catalog.settings?.().limits, ...this.options.limits });
    if (!limits) return undefined;
    const unpriced = (model: string): void => this.noticeOnce('warning', unpricedNotice(model));
    const budget = new PromptBudget(limits, this.meter.session.costUsd ?? 0, this.options.howToRaise ?? RAISE_IN_CONFIG, unpriced);
    if (budget.checksCost) {
      for (const agent of [composition.primary, composition.coagent]) if (agent && !agent.provider.pricing) unpriced(agent.provider.model);
    }
    return budget;
  }

  /** The folder's hooks for this prompt, run in the workspace root; none when no hook is configured. */
  private hooks({ catalog }: Prepared): HookRunner | undefined {
    return promptHooks(catalog.settings?.(), {
      root: this.options.workspace.root,
      sessionId: this.session.id,
      env: this.options.env,
      notify: (level, message) => this.notice(level, message, 'Hook'),
      redact: (value) => this.session.redactor.value(value),
      ...(this.parts.undo ? { undo: this.parts.undo } : {}),
    });
  }

  /** What the session's MCP servers are started with and report to. */
  private toolContext(): ToolContext {
    return mcpToolContext(this.shared, this.options, this.session, {
      route: (level, message, title, action) => this.route(level, message, title, action),
      slow: (names) => this.notice('info', `Starting MCP servers: ${names}…`),
    });
  }

  /**
   * The event as it may leave the process: every text passes the session's
   * redactor, but for streamed deltas (a secret split across two deltas
   * would pass anyway; a model only sees secrets a person typed).
   */
  private redacted(event: AgentEvent): AgentEvent {
    if (event.type === 'text_delta' || event.type === 'thinking_delta' || event.type === 'usage') return event;
    return this.session.redactor.value(event);
  }

  private notice(level: NoticeLevel, message: string, title?: string, action?: NoticeAction): void {
    this.emit({ type: 'notice', agent: this.session.agentName, level, message, ...(title ? { title } : {}), ...(action ? { action } : {}) });
  }

  /** A notice told once in the session, however many prompts would tell it. */
  private noticeOnce(level: NoticeLevel, message: string): void {
    if (this.shared.told.has(message)) return;
    this.shared.told.add(message);
    this.notice(level, message);
  }

  /** A notice from something that outlives the prompt (an MCP server, the exporter): to the running prompt, else the observer. */
  private route(level: NoticeLevel, message: string, title?: string, action?: NoticeAction): void {
    const sink = this.shared.noticeSink;
    if (sink) sink(level, message, title, action);
    else this.options.observer?.notice?.(level, message, title, action);
  }

  /** What the door is told at the end: redacted like every event (a server's error may quote the key it was sent). */
  private outcome(result: RunResult): PromptOutcome {
    const told = this.session.redactor.value(result);
    return { ...told, meter: { prompt: this.meter.prompt, session: this.meter.session } };
  }
}

/** The folder's configuration; a failure to read it is a configuration problem the user can fix. */
async function configurationOf(options: HostSessionOptions): Promise<WorkspaceCatalog> {
  try {
    return await options.catalog();
  } catch (err) {
    throw new HostError('config', errorText(err));
  }
}

function cancelledResult(message: string): RunResult {
  return { status: 'cancelled', message, turns: 0, usage: emptyUsage(), filesChanged: [] };
}

/** Waits for `work` unless `signal` aborts first. */
async function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T | 'cancelled'> {
  if (signal.aborted) return 'cancelled';
  let onAbort: (() => void) | undefined;
  const aborted = new Promise<'cancelled'>((resolve) => {
    onAbort = () => resolve('cancelled');
    signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    return await Promise.race([work, aborted]);
  } finally {
    signal.removeEventListener('abort', onAbort!);
  }
}
