import type { AskFn, PermissionAnswer, PermissionReply, PermissionRequest } from '../../tools/permissions';
import type { CliIO } from './cli-io';
import { modifyArguments } from './cli-modify';
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
 * answer line on stdin. "m" edits the call's arguments before allowing it
 * (see modifyArguments), where the call can be edited. An agent's own
 * request for approval is asked as its question, with yes, modify and no.
 * Anything unrecognised, end of input or a cancel counts as "no".
 */
export function terminalAsk(io: CliIO, style: Style, screen?: ApprovalScreen): AskFn {
  return async (request: PermissionRequest, signal: AbortSignal) => {
    const diff = await Promise.all([
      screen ? waitAtMost(screen.whenShown(request.callId), SHOWN_WAIT_MS) : undefined,
      request.diff?.(),
    ]).then(([, text]) => text);
    screen?.pause();
    try {
      if (diff) {
        for (const line of diffLines(diff, style)) io.stderr.write(`${line}\n`);
        screen?.markPreviewed(request.callId);
      }
      return await ask(io, style, request, signal);
    } finally {
      screen?.resume();
    }
  };
}

async function ask(io: CliIO, style: Style, request: PermissionRequest, signal: AbortSignal): Promise<PermissionReply> {
  const modify = request.editable ? ' · [m] modify' : '';
  if (request.question) {
    io.stderr.write(`${style.yellow('?')} ${style.bold(`${request.agent} asks for your approval: ${request.title}`)}\n`);
    for (const line of (request.question.details ?? '').split('\n').filter((l) => l.trim() !== '')) io.stderr.write(`  ${line}\n`);
    io.stderr.write(`  ${style.dim(`[y] yes${modify} · [n] no`)} `);
  } else {
    io.stderr.write(`${style.yellow('?')} ${style.bold(`${request.agent} wants to ${describe(request)}`)}\n`);
    // What "always" covers on a line of its own: a scope with an exception in brackets would nest in the choices.
    io.stderr.write(`  ${style.dim(`"always" allows, for this session: ${request.alwaysScope}`)}\n`);
    io.stderr.write(`  ${style.dim(`[y] yes · [a] always${modify} · [n] no · [never] no, and stop asking`)} `);
  }
  const line = await io.readLine(signal);
  if (line === undefined) io.stderr.write('\n');
  const typed = (line ?? '').trim().toLowerCase();
  if (request.editable && (typed === 'm' || typed === 'modify')) {
    const modified = await modifyArguments(io, style, request.editable, signal);
    if (!modified) {
      io.stderr.write(`  ${style.red('denied')}\n`);
      return 'reject_once';
    }
    const unchanged = JSON.stringify(modified) === JSON.stringify(request.editable.arguments);
    io.stderr.write(`  ${style.green(unchanged ? 'allowed' : 'allowed with your changes')}\n`);
    return unchanged ? 'allow_once' : { modified };
  }
  const answer = ANSWERS[typed] ?? 'reject_once';
  // An agent's question has no "always": its yes is for this request only.
  const reply = request.question && answer !== 'allow_once' ? 'reject_once' : answer;
  const allowed = reply === 'allow_once' || reply === 'allow_always';
  io.stderr.write(`  ${allowed ? style.green('allowed') : style.red('denied')}\n`);
  return reply;
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
