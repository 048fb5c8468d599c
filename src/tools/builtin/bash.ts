import * as z from 'zod';
import { defineTool } from '../define-tool';
import type { ExecResult } from '../workspace';
import { oneLine } from '../../vocabulary/text';

const DEFAULT_TIMEOUT_MS = 120_000;
const MAX_TIMEOUT_MS = 600_000;

export const bashTool = defineTool({
  name: 'bash',
  description:
    'Run a shell command with `bash -c` in the workspace. Returns stdout and stderr interleaved, then the ' +
    'exit code. There is no terminal and no stdin, so avoid interactive programs. Long output is cut in the ' +
    'middle; the whole output is then saved to a file the result names, which read_file reads in parts. ' +
    'Redirect the output of background processes, or the call waits for them. ' +
    'A command runs without asking only if every command in it (chained, piped or substituted) is allowed; ' +
    'writing into .crow/, .git/, .vscode/ or Crow\'s config folder (by redirection, tee, cp, mv, rm, git config, ...) ' +
    'is asked every time, and refused when nobody can be asked.',
  kind: 'execute',
  permission: 'execute',
  sandboxed: true,
  prepare: (workspace) => workspace.prepareCommand?.(),
  approval: ({ command, cwd }) => ({ title: `Run: ${oneLine(command)}`, command, ...(cwd !== undefined ? { cwd } : {}) }),
  parameters: () => z.object({
    command: z.string().min(1).describe('The command line to run.'),
    timeout_ms: z
      .number()
      .int()
      .min(1)
      .max(MAX_TIMEOUT_MS)
      .default(DEFAULT_TIMEOUT_MS)
      .describe(`Milliseconds before the command is killed (default ${DEFAULT_TIMEOUT_MS}, at most ${MAX_TIMEOUT_MS}).`),
    cwd: z.string().optional().describe('Working directory, relative to the workspace root (default: the root).'),
  }),
  summarize: ({ command }) => oneLine(command),
  async execute({ command, timeout_ms, cwd }, { workspace, signal, progress, coveredByEntries }) {
    // What the command prints is shown while it runs, and kept whole in case the result must be cut.
    const onOutput = progress && ((chunk: string) => progress.output(chunk));
    const result = await workspace.exec(command, { cwd, timeoutMs: timeout_ms, signal, ...(onOutput ? { onOutput } : {}), ...(coveredByEntries ? { coveredByEntries } : {}) });
    // Whether the command ran contained: the doors say so beside its result.
    const extra = { exitCode: result.exitCode, omittedBytes: result.omittedBytes, ...(workspace.sandboxed ? { sandboxed: true } : {}) };
    const facts = { ...(result.startupMs !== undefined ? { setupMs: result.startupMs } : {}), clipped: result.omittedBytes > 0 };
    if (result.timedOut) {
      const seconds = timeout_ms / 1000;
      return {
        ...facts,
        output: withTrailer(result.output, `[killed: timed out after ${seconds}s]`),
        error: `The command timed out after ${seconds}s and was killed; its output so far is below. Raise timeout_ms or run something quicker.`,
        extra: { ...extra, timedOut: true },
      };
    }
    const failed = failedWork(result);
    return {
      ...facts,
      output: withTrailer(result.output, trailer(result)),
      extra,
      ...(failed !== undefined ? { failedWork: failed } : {}),
    };
  },
});

/** How the command failed, when it did: a non-zero exit, or a signal it did not ask for (a cancel is the person's doing). */
function failedWork(result: ExecResult): string | undefined {
  if (result.aborted) return undefined;
  if (result.exitCode === null) return 'killed by a signal';
  return result.exitCode === 0 ? undefined : `exit code ${result.exitCode}`;
}

function trailer(result: ExecResult): string {
  if (result.aborted) return '[killed: cancelled]';
  if (result.exitCode === null) return '[killed by a signal]';
  return `[exit code ${result.exitCode}]`;
}

function withTrailer(output: string, last: string): string {
  if (output === '') return last;
  return output.endsWith('\n') ? output + last : `${output}\n${last}`;
}
