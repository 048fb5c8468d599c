/**
 * A /speckit.* command the project's Spec Kit presets change
 * (preset-commands.ts). When a preset (or the project's override) replaces
 * the command, its text is the command: Crow runs it through the session's
 * agent, as Spec Kit's integration would run the file it registered, with
 * Spec Kit's placeholders filled (`$ARGUMENTS` and `{ARGS}`, `{SCRIPT}` from
 * the file's `scripts` for the project's script kind, `__AGENT__`, the
 * `__SPECKIT_COMMAND_…__` names), and the extension hooks around it as
 * around every command. A preset that prepends, appends or wraps composes
 * with Crow's own prompt instead. Either way the run says which it used.
 */
import type { RunResult } from '../agents/run-result';
import type { CommandInput, ProgrammaticCommand } from '../agents/programmatic-command';
import { EventStream } from '../engine/event-stream';
import type { AgentEvent } from '../engine/events';
import { changedFiles, type CommandRun, type CommandStream, listFiles, SPECKIT_AGENT, snapshotTexts, startCommand } from './command-run';
import { runHooks } from './extension-hooks';
import { fillPlaceholders, scriptKind } from './command-placeholders';
import { FEATURE_JSON, FEATURE_ROOTS } from './features';
import { type CommandLayer, commandLayers, composeFor, composeLayers } from './preset-commands';
import { errorText } from '../vocabulary/text';

/** The prompt of ours a composing preset applies to, by command; absent: the command has no model prompt to compose with. */
const MODEL_PROMPT: Record<string, string | undefined> = { 'speckit.implement': 'implement-task', 'speckit.taskstoissues': undefined };

function modelPrompt(command: string): string | undefined {
  return command in MODEL_PROMPT ? MODEL_PROMPT[command] : command.replace(/^speckit\./, '');
}

/** `command`, run as the project's presets make it. */
export function withPresetCommand(command: ProgrammaticCommand): ProgrammaticCommand {
  return {
    ...command,
    run(input: CommandInput): CommandStream {
      const out: CommandStream = new EventStream();
      relay(command, input, out).catch((err: unknown) => out.fail(err));
      return out;
    },
  };
}

async function relay(command: ProgrammaticCommand, input: CommandInput, out: CommandStream): Promise<void> {
  const found = await commandLayers(input.workspace, command.name).catch((err: unknown) => ({ error: `The presets in .specify/presets/ could not be read: ${errorText(err)}` }));
  let inner: CommandStream;
  if ('error' in found) {
    const message = found.error;
    inner = startCommand(command.name, input, async (run) => void run.finish('error', message));
  } else if (found.length === 0) {
    inner = command.run(input);
  } else if (found.at(-1)!.strategy === 'replace') {
    inner = runReplaced(command.name, input, found);
  } else {
    const project = await scriptKind(input);
    const bodyOf = (layer: CommandLayer): string => fillPlaceholders(layer.text, input.args, project);
    const template = modelPrompt(command.name);
    if (template !== undefined) composeFor(input, template, found, bodyOf);
    say(out, template !== undefined
      ? `/${command.name}: Crow's own prompt, with ${describe(found)} (${found.map((l) => l.path).join(', ')}).`
      : `/${command.name}: ${describe(found)} not applied: Crow's /${command.name} sends no prompt of its own to compose with. Replace the command in the preset to change it.`);
    inner = command.run(input);
  }
  out.end(await inner.forEach((event) => out.push(event)));
}

function describe(layers: readonly CommandLayer[]): string {
  return layers.map((layer) => `${layer.origin}'s ${layer.strategy}`).join(' and ');
}

function say(out: CommandStream, text: string): void {
  const body = `${text}\n`;
  out.push({ type: 'text_delta', agent: SPECKIT_AGENT, delta: body } satisfies AgentEvent);
  out.push({ type: 'text_complete', agent: SPECKIT_AGENT, text: body } satisfies AgentEvent);
}

/** The command replaced: the preset's text is the prompt, with the hooks around it. */
function runReplaced(name: string, input: CommandInput, layers: readonly CommandLayer[]): CommandStream {
  return startCommand(name, input, async (run) => {
    const kind = await scriptKind(input);
    const prompt = composeLayers(layers, '', (layer) => fillPlaceholders(layer.text, input.args, kind));
    const used = layers.at(-1)!;
    const also = layers.length > 1 ? `, with ${describe(layers.slice(0, -1))}` : '';
    run.say(`/${name}: running ${used.origin}'s version (${used.path}${also}), not Crow's own.`);
    const event = name.replace(/^speckit\./, '');
    const before = await runHooks(run, `before_${event}`, input.args, { featureBy: used.origin });
    if (before !== undefined) return void run.finish('error', before);
    const result = await runWatched(run, prompt);
    if (result.status === 'cancelled' || result.status === 'error') return void run.finish(result.status, result.message);
    const after = await runHooks(run, `after_${event}`, input.args);
    const message = `${used.origin}'s /${name} ${result.status === 'completed' ? 'finished' : `stopped (${result.status})`}: ${result.message}`;
    if (after !== undefined) return void run.finish('error', `${message} But: ${after}`);
    run.finish(result.status, message, result.summary);
  });
}

/** Runs the prompt and records what it wrote under the feature folders and .specify/. */
async function runWatched(run: CommandRun, prompt: string): Promise<RunResult> {
  const watch = [...FEATURE_ROOTS, FEATURE_JSON, '.specify/memory'];
  const before = await snapshotTexts(run.input, watch);
  const result = await run.runPrompt(prompt);
  const changed = changedFiles(before, await snapshotTexts(run.input, watch));
  run.record(undefined, changed);
  if (changed.length > 0) run.say(`Wrote ${listFiles(changed)}.`);
  return result;
}
