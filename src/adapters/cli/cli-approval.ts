import type { AskFn, PermissionAnswer, PermissionRequest } from '../../tools/permissions';
import type { CliIO } from './cli-io';
import { diffLines } from './diff-lines';
import type { Style } from './terminal-style';

const ANSWERS: Record<string, PermissionAnswer> = {
  y: 'allow_once',
  yes: 'allow_once',
  a: 'allow_always',
  always: 'allow_always',
  n: 'reject_once',
  no: 'reject_once',
  '': 'reject_once',
  never: 'reject_always',
};

/** What the question needs from the screen it is asked on (the run's renderer). */
export interface ApprovalScreen {
  /** Resolves once the tool call's line is shown. */
  whenShown(callId: string): Promise<void>;
  /** Ends any open line before the question is written (and keeps live lines away from it). */
  pause(): void;
  /** The question was answered: the screen may draw live lines again. */
  resume(): void;
  /** The call's change was shown with the question. */
  markPreviewed(callId: string): void;
}

/** How long a question waits for its tool line to be shown before it is asked anyway. */
const SHOWN_WAIT_MS = 300;

/**
 * Asks on the terminal: under the tool call's line, the change it would make
 * (for writes that can work it out), then the question on stderr and one
 * answer line on stdin. Anything unrecognised, end of input or a cancel
 * counts as "no".
 */
export function terminalAsk(io: CliIO, style: Style, screen?: ApprovalScreen): AskFn {
  return async (request: PermissionRequest, signal: AbortSignal) => {
    const diff = await Promise.all([
      screen ? waitAtMost(screen.whenShown(request.callId), SHOWN_WAIT_MS) : undefined,
      request.diff?.(),
    ]).then(([, text]) => text);
    screen?.pause();
    if (diff) {
      for (const line of diffLines(diff, style)) io.stderr.write(`${line}\n`);
      screen?.markPreviewed(request.callId);
    }
    io.stderr.write(`${style.yellow('?')} ${style.bold(`${request.agent} wants to ${describe(request)}`)}\n`);
    // What "always" covers on a line of its own: a scope with an exception in brackets would nest in the choices.
    io.stderr.write(`  ${style.dim(`"always" allows, for this session: ${request.alwaysScope}`)}\n`);
    io.stderr.write(`  ${style.dim('[y] yes · [a] always · [n] no · [never] no, and stop asking')} `);
    const line = await io.readLine(signal);
    const answer = ANSWERS[(line ?? '').trim().toLowerCase()] ?? 'reject_once';
    const allowed = answer === 'allow_once' || answer === 'allow_always';
    if (line === undefined) io.stderr.write('\n');
    io.stderr.write(`  ${allowed ? style.green('allowed') : style.red('denied')}\n`);
    screen?.resume();
    return answer;
  };
}

function waitAtMost(promise: Promise<void>, ms: number): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    void promise.then(() => {
      clearTimeout(timer);
      resolve();
    });
  });
}

function describe(request: PermissionRequest): string {
  switch (request.category) {
    case 'execute':
      return `run a command: ${request.command ?? request.title}`;
    case 'write':
      return `change files: ${request.title}`;
    case 'network':
      return `use the network: ${request.title}`;
    case 'read':
      return `read: ${request.title}`;
  }
}
