import type { CliIO } from './cli-io';
import type { Style } from './terminal-style';

/**
 * Asks on the terminal (or reads an answer piped in: echo y | crow undo)
 * whether to go ahead with a restore shown above; undefined when the
 * answer is yes, else the exit code to end with: 2 when no answer came
 * (nobody can be asked: run it again with --yes), 1 when declined.
 */
export async function askToRestore(io: CliIO, question: string, style: Style, signal: AbortSignal): Promise<number | undefined> {
  io.stderr.write(`${style.yellow('?')} ${style.bold(question)} [y/N] `);
  const answer = await io.readLine(signal);
  signal.throwIfAborted();
  if (answer === undefined) {
    io.stderr.write('\ncrow: nothing restored: no answer came on stdin, so crow cannot ask. Run it again with --yes.\n');
    return 2;
  }
  if (!/^y(es)?$/i.test(answer.trim())) {
    io.stderr.write('Nothing restored.\n');
    return 1;
  }
  return undefined;
}
