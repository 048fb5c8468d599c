/**
 * Apply on a code block of an answer: the person proposes the block as the
 * whole new text of a workspace file. It runs as a prompt of its own, so it
 * is part of the session's record like anything else done in it: a
 * checkpoint before it, the prompt's undo point (Undo and the changes bar
 * work on it), its write shown as a write_file call, and a note the agents
 * read with their next message. The write goes through the write_file tool
 * and the session's own permission gate, so it is asked (with its diff) and
 * judged exactly as an agent's write would be: nothing is written without
 * the gate's yes. A path outside the workspace (absolute elsewhere, `..`,
 * or a symlink that leads out) is refused before anyone is asked.
 */
import { randomUUID } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { CommandInput, ProgrammaticCommand } from '../agents/programmatic-command';
import type { AgentEvent } from '../engine/events';
import { writeFileTool } from '../tools/builtin/write-file';
import type { ToolResult } from '../tools/tool';
import { errorText } from '../vocabulary/text';
import { appliedNote, tellAgents } from '../session/agent-notes';
import { containment } from '../tools/workspace-containment';
import { HOST_PATHS, type PathSemantics, resolveAs } from '../vocabulary/path-semantics';
import { answeringRun, type CommandOutcome } from './command-answer';

/** What the person's prompt line reads for an Apply. */
export function applyPromptText(relative: string): string {
  return `Apply the code block to ${relative}`;
}

/** The path of a prompt applyPromptText worded (an Apply, stored as a prompt), else undefined. */
export function appliedPath(text: string): string | undefined {
  return /^Apply the code block to (\S.*)$/.exec(text)?.[1];
}

/**
 * The program of one Apply of `content` to `relative` (a path already
 * checked by insideWorkspace): one write_file call, shown as a call of the
 * session's primary agent, and, once written, a note in the history of
 * each agent of the composition.
 */
export function applyProgram(relative: string, content: string): ProgrammaticCommand {
  return {
    name: 'apply',
    description: 'Apply a code block of an answer to a workspace file (asks first).',
    argumentHint: '',
    run: (input) =>
      answeringRun(
        input,
        (emit) => apply(input, relative, content, emit),
        (err) => ({ status: input.signal.aborted ? 'cancelled' : 'error', message: `Not applied to ${relative}: ${errorText(err)}` }),
      ),
  };
}

async function apply(input: CommandInput, relative: string, content: string, emit: (event: AgentEvent) => void): Promise<CommandOutcome> {
  const { session, agent, signal, workspace } = input;
  const args = { path: relative, content };
  const callId = `apply-${randomUUID()}`;
  const speaker = agent.primary.name;
  const tool = writeFileTool;
  emit({ type: 'tool_call_start', agent: speaker, callId, tool: tool.name, kind: tool.kind, arguments: args, summary: tool.summarize(args), locations: tool.locations(args) });
  const started = performance.now();
  const result = await tool.run(JSON.stringify(args), {
    sessionId: session.id,
    agentName: speaker,
    callId,
    workspace,
    signal,
    provider: 'person',
    model: 'apply',
    supportsImages: false,
    permissions: session.permissions,
    todos: session.todos,
    ...(input.undo ? { undo: input.undo } : {}),
    depth: session.depth,
    report: emit,
  });
  emit({ type: 'tool_call_end', agent: speaker, callId, tool: tool.name, result, durationMs: Math.round(performance.now() - started) });
  if (result.metadata.filesModified.length > 0) emit({ type: 'files_changed', agent: speaker, files: result.metadata.filesModified });
  if (result.status === 'success') tellComposition(input, appliedNote(relative));
  return outcomeOf(result, relative, signal);
}

/** The note goes to every agent of the session, the composition's among them (a history is made for one that has none yet). */
function tellComposition({ session, agent }: CommandInput, note: string): void {
  session.sessionFor('primary', agent.primary.name);
  if (agent.coagent) session.sessionFor('coagent', agent.coagent.name);
  tellAgents(session, note);
}

function outcomeOf(result: ToolResult, relative: string, signal: AbortSignal): CommandOutcome {
  if (result.status === 'success') return { status: 'completed', message: `Applied: ${result.output}` };
  if (signal.aborted || result.status === 'cancelled') return { status: 'cancelled', message: `Not applied to ${relative}: cancelled.` };
  const denied = result.metadata.extra['permission'] === 'denied';
  return { status: denied ? 'needs_input' : 'error', message: `Not applied to ${relative}: ${result.error ?? 'the write failed'}` };
}

/**
 * The path relative to the workspace root, or an error saying why it may not
 * be written: it must name a file inside the workspace, also once symlinks
 * on the way are followed.
 */
export async function insideWorkspace(root: string, target: string): Promise<string> {
  const relative = applyTarget(root, target);
  const realRoot = await fs.realpath(root);
  const real = await realpathOfNearest(path.resolve(root, target.trim()));
  if (!containment(realRoot, real).inside) {
    throw new Error(`Not applied: "${target.trim()}" leads outside the workspace through a symlink (to ${real}). Apply only writes files inside ${root}.`);
  }
  return relative;
}

/**
 * The path an Apply names, relative to the root ('/'-separated), judged as
 * written with the platform's path rules (another drive, a UNC path, `..`
 * past the root, a device name or stream on Windows are refused); throws
 * saying what to name instead.
 */
export function applyTarget(root: string, target: string, semantics: PathSemantics = HOST_PATHS): string {
  const trimmed = target.trim();
  if (trimmed === '') throw new Error('Apply needs a file: name one in the code fence (```ts src/app.ts) or pick one.');
  const inside = containment(resolveAs(semantics, undefined, root), resolveAs(semantics, root, trimmed), semantics);
  if (!inside.inside && !inside.outside) throw new Error(`Not applied: "${trimmed}" cannot be written (${inside.problem}). Name a plain file inside ${root}.`);
  if (!inside.inside || inside.names.length === 0) {
    throw new Error(`Not applied: "${trimmed}" is outside the workspace. Apply only writes files inside ${root}; name a path relative to it.`);
  }
  return inside.names.join('/');
}

/** The real path of `absolute`, or of its nearest existing ancestor joined with the missing rest. */
async function realpathOfNearest(absolute: string): Promise<string> {
  try {
    return await fs.realpath(absolute);
  } catch {
    // A dangling symlink: where it leads cannot be checked, so it is not followed.
    const link = await fs.lstat(absolute).catch(() => undefined);
    if (link?.isSymbolicLink()) throw new Error(`Not applied: ${absolute} is a symlink to a missing file; Apply does not follow it. Remove the link or name the real file.`);
    const parent = path.dirname(absolute);
    if (parent === absolute) return absolute;
    return path.join(await realpathOfNearest(parent), path.basename(absolute));
  }
}
