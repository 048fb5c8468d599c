/**
 * Bringing the chosen attempt into the person's working tree, as a prompt
 * of its own in their folder's session: a checkpoint before it, and its
 * changes recorded by the journal as a command's are (the whole tree
 * watched), so `crow undo`, /undo and rewind put the files back. The
 * person chose the attempt (or said --apply-best): that choice is the
 * approval, as a person's own Undo needs none.
 *
 * The patch is the attempt's work, so model output: every path it touches
 * must lie inside the workspace, also once symlinks are followed, and
 * outside the protected paths (.git, .crow, .vscode, git's code paths),
 * or nothing is applied; git apply then checks every hunk before writing
 * any (all or nothing) and refuses to write beyond a symlink.
 */
import path from 'node:path';
import type { ProgrammaticCommand } from '../agents/programmatic-command';
import { answeringRun } from '../host/command-answer';
import { insideWorkspace } from '../host/apply-code';
import { protectedPathsFor } from '../tools/protected-paths';
import { errorText } from '../vocabulary/text';
import type { AttemptChanges, AttemptTrees } from './attempt-trees';

/** What the person's prompt line reads for applying attempt `n`. */
export function applyAttemptText(n: number): string {
  return `Apply attempt ${n}`;
}

export function applyAttemptProgram(trees: Pick<AttemptTrees, 'root' | 'apply'>, n: number, changes: AttemptChanges, env: NodeJS.ProcessEnv): ProgrammaticCommand {
  return {
    name: 'apply-attempt',
    description: 'Apply one of the parallel attempts to the working tree.',
    argumentHint: '',
    run: (input) =>
      answeringRun(
        input,
        async (emit) => {
          await checkPaths(trees.root, changes, env);
          const watch = input.undo ? await input.undo.beforeCommand(input.signal) : undefined;
          await trees.apply(changes.patch);
          const changed = watch ? await watch.changedFiles(input.signal) : changes.files.map((file) => file.path);
          if (changed.length > 0) emit({ type: 'files_changed', agent: input.agent.primary.name, files: changed });
          const count = changes.files.length === 1 ? '1 file' : `${changes.files.length} files`;
          return { status: 'completed', message: `Applied attempt ${n}: ${count} changed. Undo with crow undo.` };
        },
        (err) => ({ status: input.signal.aborted ? 'cancelled' : 'error', message: `Attempt ${n} was not applied: ${errorText(err)}` }),
      ),
  };
}

/** Every path the patch touches, inside the workspace and unprotected; else an error naming the first that is not. */
export async function checkPaths(root: string, changes: AttemptChanges, env: NodeJS.ProcessEnv): Promise<void> {
  const guard = protectedPathsFor(root, env);
  for (const file of changes.files) {
    const relative = await insideWorkspace(root, file.path);
    if (guard.isProtected(path.join(root, relative))) throw new Error(`it changes ${relative}, a protected path (.git, .crow, .vscode or what git runs), so nothing was applied.`);
  }
}
