/**
 * The steps every /speckit.* command is made of: say something (as the
 * agent "speckit"), run a prompt through the session's composition with its
 * events passed on, see which artifacts changed, record them on the session,
 * and end with one run_complete and one RunResult.
 */
import type { RunResult } from '../agents/run-result';
import { basePromptContext } from '../config/prompts';
import { EventStream } from '../engine/event-stream';
import type { AgentEvent, RunStatus } from '../engine/events';
import { addUsage, emptyUsage, type Usage } from '../llm/types';
import type { PermissionGate } from '../tools/permissions';
import type { CommandInput } from '../agents/programmatic-command';
import { composedPrompt } from './preset-commands';
import { filesUnder, readText } from './workspace-text';
import { errorText } from '../vocabulary/text';

/** The agent name on the events commands emit themselves. */
export const SPECKIT_AGENT = 'speckit';

export type CommandStream = EventStream<AgentEvent, RunResult>;

/** One running command: its input, its stream, and what it has added up so far. */
export class CommandRun {
  readonly stream: CommandStream = new EventStream();
  turns = 0;
  readonly usage: Usage = emptyUsage();
  readonly filesChanged = new Set<string>();

  constructor(
    readonly name: string,
    readonly input: CommandInput,
  ) {}

  emit(event: AgentEvent): void {
    this.stream.push(event);
  }

  /** Renders `prompts/speckit/NAME.hbs` with the prompt context, `command` and `extra` (and an installed preset's prepend, append or wrap of it). */
  render(name: string, extra: Record<string, unknown>): string {
    const { agent, workspace, prompts } = this.input;
    const rendered = prompts.render(`speckit/${name}`, { ...basePromptContext(agent.primary.name, workspace.root), command: `/${this.name}`, ...extra });
    return composedPrompt(this.input, name, rendered);
  }

  /** A message of the command's own, shown like an agent's words. */
  say(text: string): void {
    if (text.trim() === '') return;
    const body = text.endsWith('\n') ? text : `${text}\n`;
    this.emit({ type: 'text_delta', agent: SPECKIT_AGENT, delta: body });
    this.emit({ type: 'text_complete', agent: SPECKIT_AGENT, text: body });
  }

  /**
   * Runs `prompt` through the session's composition, passing its events on
   * (all but its run_complete: the command ends the run); adds up its turns,
   * usage and files.
   */
  async runPrompt(prompt: string, options: { permissions?: PermissionGate } = {}): Promise<RunResult> {
    const { agent, session, signal } = this.input;
    const stream = agent.run(session, prompt, { signal, ...(options.permissions ? { permissions: options.permissions } : {}) });
    for await (const event of stream) if (event.type !== 'run_complete') this.emit(event);
    const result = await stream.result;
    this.turns += result.turns;
    addUsage(this.usage, result.usage);
    for (const file of result.filesChanged) this.filesChanged.add(file);
    return result;
  }

  /** Records what the command wrote on the session (and makes `folder` the session's feature). */
  record(folder: string | undefined, files: readonly string[]): void {
    for (const file of files) this.filesChanged.add(file);
    const { artifacts } = this.input.session;
    if (files.length > 0) artifacts.add({ command: this.name, ...(folder !== undefined ? { folder } : {}), files: [...files].sort(), at: Date.now() });
    else if (folder !== undefined) artifacts.setFeature(folder);
  }

  /** Ends the command: one run_complete, one RunResult. */
  finish(status: RunStatus, message: string, summary?: string): RunResult {
    this.emit({ type: 'run_complete', agent: SPECKIT_AGENT, status, message });
    const result: RunResult = {
      status,
      message,
      ...(summary !== undefined ? { summary } : {}),
      turns: this.turns,
      usage: this.usage,
      filesChanged: [...this.filesChanged],
    };
    this.stream.end(result);
    return result;
  }
}

/**
 * Starts a command: `body` runs with a fresh CommandRun and must end it with
 * `finish`. A throw becomes an `error` result naming the command (or
 * `cancelled` when the signal was aborted), so the stream always ends.
 */
export function startCommand(name: string, input: CommandInput, body: (run: CommandRun) => Promise<void>): CommandStream {
  const run = new CommandRun(name, input);
  body(run).then(
    () => run.finish('error', `/${name} ended without a result (a bug).`),
    (err: unknown) => {
      if (input.signal.aborted) run.finish('cancelled', `/${name} was cancelled. What was written so far is kept.`);
      else run.finish('error', `/${name} failed: ${errorText(err)}`);
    },
  );
  return run.stream;
}

/** The text of every file under `paths`, to compare before and after a run. */
export async function snapshotTexts(input: CommandInput, paths: readonly string[]): Promise<Map<string, string>> {
  const texts = new Map<string, string>();
  for (const path of paths) {
    for (const file of await filesUnder(input.workspace, path)) {
      const text = await readText(input.workspace, file);
      if (text !== undefined) texts.set(file, text);
    }
  }
  return texts;
}

/** Files new or changed between two snapshots, in path order. */
export function changedFiles(before: Map<string, string>, after: Map<string, string>): string[] {
  return [...after].filter(([file, text]) => before.get(file) !== text).map(([file]) => file).sort();
}

/** "spec.md, checklists/requirements.md" for files in `folder`, full paths for the others. */
export function listFiles(files: readonly string[], folder?: string): string {
  if (files.length === 0) return 'nothing';
  return files.map((file) => (folder !== undefined && file.startsWith(`${folder}/`) ? file.slice(folder.length + 1) : file)).join(', ');
}
