import type { AskFn, PermissionAnswer, PermissionRequest } from '../../tools/permissions';
import type { CliIO } from './cli-io';
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

/**
 * Asks on the terminal: the request on stderr, one answer line on stdin.
 * Anything unrecognised, end of input or a cancel counts as "no".
 */
export function terminalAsk(io: CliIO, style: Style): AskFn {
  return async (request: PermissionRequest, signal: AbortSignal) => {
    io.stderr.write(`\n${style.yellow('?')} ${style.bold(`${request.agent} wants to ${describe(request)}`)}\n`);
    io.stderr.write(
      `  ${style.dim(`[y] yes · [a] always (${request.alwaysScope}, this session) · [n] no · [never] no, and stop asking`)} `,
    );
    const line = await io.readLine(signal);
    const answer = ANSWERS[(line ?? '').trim().toLowerCase()] ?? 'reject_once';
    const allowed = answer === 'allow_once' || answer === 'allow_always';
    io.stderr.write(`  ${allowed ? style.green('allowed') : style.red('denied')}\n`);
    return answer;
  };
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
