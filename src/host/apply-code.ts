/**
 * Apply on a code block of an answer: the person proposes the block as the
 * whole new text of a workspace file. It goes through the write_file tool
 * and the session's own permission gate, so it is asked (with its diff) and
 * judged exactly as an agent's write would be: nothing is written without
 * the gate's yes. A path outside the workspace (absolute elsewhere, `..`,
 * or a symlink that leads out) is refused before anyone is asked.
 */
import { randomUUID } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { writeFileTool } from '../tools/builtin/write-file';
import type { PermissionGate } from '../tools/permissions';
import type { ToolResult } from '../tools/tool';
import { TodoStore } from '../tools/todos';
import type { Workspace } from '../tools/workspace';

export interface ApplyCodeInput {
  workspace: Workspace;
  permissions: PermissionGate;
  sessionId: string;
  agentName: string;
  /** The file the block is for, relative to the workspace root (or absolute inside it). */
  path: string;
  content: string;
  signal: AbortSignal;
}

/** Writes the block through write_file and the gate; the tool's result says what happened (denied, written, failed). */
export async function applyCode(input: ApplyCodeInput): Promise<ToolResult> {
  const relative = await insideWorkspace(input.workspace.root, input.path);
  return writeFileTool.run(JSON.stringify({ path: relative, content: input.content }), {
    sessionId: input.sessionId,
    agentName: input.agentName,
    callId: `apply-${randomUUID()}`,
    workspace: input.workspace,
    signal: input.signal,
    provider: 'person',
    model: 'apply',
    supportsImages: false,
    permissions: input.permissions,
    todos: new TodoStore(),
  });
}

/**
 * The path relative to the workspace root, or an error saying why it may not
 * be written: it must name a file inside the workspace, also once symlinks
 * on the way are followed.
 */
export async function insideWorkspace(root: string, target: string): Promise<string> {
  const trimmed = target.trim();
  if (trimmed === '') throw new Error('Apply needs a file: name one in the code fence (```ts src/app.ts) or pick one.');
  const realRoot = await fs.realpath(root);
  const absolute = path.resolve(root, trimmed);
  const lexical = path.relative(path.resolve(root), absolute);
  if (lexical === '' || lexical.startsWith('..') || path.isAbsolute(lexical)) {
    throw new Error(`Not applied: "${trimmed}" is outside the workspace. Apply only writes files inside ${root}; name a path relative to it.`);
  }
  const real = await realpathOfNearest(absolute);
  const inside = path.relative(realRoot, real);
  if (inside === '' || inside.startsWith('..') || path.isAbsolute(inside)) {
    throw new Error(`Not applied: "${trimmed}" leads outside the workspace through a symlink (to ${real}). Apply only writes files inside ${root}.`);
  }
  return lexical.split(path.sep).join('/');
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
