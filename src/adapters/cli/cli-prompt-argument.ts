/**
 * `crow run` on a terminal asks for an argument an MCP prompt command left
 * out: the argument's name and description, the server's suggestions
 * (completion/complete) numbered, then one line: a number picks a
 * suggestion, anything else is the value, an empty line cancels.
 */
import type { PromptArgumentAsk } from '../../mcp/prompt-commands';
import type { ApprovalScreen } from './cli-approval';
import type { CliIO } from './cli-io';
import type { Style } from './terminal-style';

/** Suggestions listed at most; the person can type any other value. */
const LISTED = 10;

export function terminalPromptArgument(io: CliIO, style: Style, screen?: Pick<ApprovalScreen, 'pause' | 'resume'>): PromptArgumentAsk {
  return async (question, signal) => {
    screen?.pause();
    try {
      const { argument, completions } = question;
      const about = argument.description ? ` ${style.dim(`(${argument.description})`)}` : '';
      io.stderr.write(`${style.yellow('?')} ${style.bold(`/${question.command} needs ${argument.name}`)}${about}\n`);
      const listed = completions.values.slice(0, LISTED);
      if (listed.length > 0) {
        io.stderr.write(`  ${style.dim(`MCP server "${question.server}" suggests:`)}\n`);
        listed.forEach((value, i) => io.stderr.write(`    ${i + 1}) ${value}\n`));
        const more = (completions.total ?? completions.values.length) - listed.length;
        if (completions.hasMore || more > 0) io.stderr.write(`    ${style.dim(more > 0 ? `… ${more} more` : '… more')}\n`);
      }
      io.stderr.write(`  ${style.dim(listed.length > 0 ? `(a number, or type the ${argument.name}; empty to cancel)` : `(type the ${argument.name}; empty to cancel)`)} `);
      const line = await io.readLine(signal);
      const typed = (line ?? '').trim();
      if (line === undefined || signal.aborted || typed === '') return undefined;
      const picked = /^\d+$/.test(typed) ? listed[Number(typed) - 1] : undefined;
      return picked ?? typed;
    } finally {
      screen?.resume();
    }
  };
}
