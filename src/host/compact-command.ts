/**
 * `/compact [focus]` in every front door: each agent of the session's
 * composition with history summarises it now, the text after the command
 * telling the summary what to keep. The full history stays in the session
 * (and its trace); the agents read the summary from then on. This is how a
 * person keeps a long session going with `compaction = "off"`, or makes
 * room before a large task.
 */
import type { CommandInput, ProgrammaticCommand } from '../agents/programmatic-command';
import { answeringRun } from './command-answer';
import type { AgentEvent, RunStatus } from '../engine/events';
import type { SessionRole } from '../session/acp-session';
import { clip, errorText } from '../vocabulary/text';

export const compactCommand: ProgrammaticCommand = {
  name: 'compact',
  description: 'Summarise the conversation now to free context (the text after it says what the summary should keep).',
  argumentHint: '[what to focus the summary on]',
  // Compacting changes no file: nothing to undo.
  skipUndoPoint: true,
  run: (input) =>
    answeringRun(
      input,
      (emit) => compact(input, emit),
      (err) => ({ status: input.signal.aborted ? 'cancelled' : 'error', message: `Compaction failed; the conversation is as it was: ${errorText(err)}` }),
    ),
};

async function compact(input: CommandInput, emit: (event: AgentEvent) => void): Promise<{ status: RunStatus; message: string }> {
  const { agent: composition, session, signal, args } = input;
  const roles: [SessionRole, typeof composition.primary][] = [['primary', composition.primary]];
  if (composition.coagent) roles.push(['coagent', composition.coagent]);
  const span = session.trace.startTrace('prompt', 'compact', {
    agent: composition.name,
    attributes: { 'crow.session.id': session.id, 'crow.acp_agent': composition.name, 'crow.prompt': clip(`/compact ${args}`.trim(), 500) },
  });
  const compacted: string[] = [];
  const failed: string[] = [];
  let reading = 0;
  try {
    for (const [role, agent] of roles) {
      const history = session.internalSessions().find((entry) => entry.role === role && entry.session.agentName === agent.name)?.session;
      if (!history || history.length === 0) continue;
      reading += 1;
      const outcome = await agent.compact(history, { signal, emit, ...(args !== '' ? { focus: args } : {}), span, ...(session.budget ? { budget: session.budget } : {}) });
      if (signal.aborted) {
        span.end('cancelled');
        return { status: 'cancelled', message: 'Compaction cancelled: what was summarised before the cancel stays, the rest is as it was.' };
      }
      if (outcome.compacted) compacted.push(agent.name);
      if (outcome.error !== undefined) failed.push(`${agent.name}: ${outcome.error}`);
    }
    span.end(failed.length > 0 ? 'error' : 'ok', failed.length > 0 ? failed.join('; ') : undefined);
  } catch (err) {
    span.end('error', errorText(err));
    throw err;
  }
  if (failed.length > 0) {
    return { status: 'error', message: `The summary could not be written (${failed.join('; ')}); that conversation is as it was. Try /compact again.` };
  }
  if (reading === 0) return { status: 'completed', message: 'Nothing to compact yet: this session has no conversation.' };
  if (compacted.length === 0) return { status: 'completed', message: 'Nothing to compact: the conversation is already one summary.' };
  return { status: 'completed', message: `Compacted the conversation of ${compacted.join(' and ')}: the agents go on from a summary.` };
}
