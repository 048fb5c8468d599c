/**
 * What the agents read of a change the person made to the workspace
 * outside the agents' turns: a code block applied, a prompt undone, the
 * files rewound to a checkpoint. Without it an agent's history still says
 * its change is there, and it would build on files that are not. Each note
 * is a user message in the agent's history, so it is stored with the
 * session and read before the person's next message.
 */
import type { ACPSession } from './acp-session';

/** The note for a code block the person applied to `path` (the file's whole new content). */
export function appliedNote(path: string): string {
  return `[The person applied a code block from an answer to ${path}: that file's whole content is now that block, written with their approval. Read the file before changing it again.]`;
}

/** The note for files put back as they were: `how` says by what, e.g. `undid the prompt "Fix add"`. */
export function restoredNote(how: string, paths: readonly string[]): string {
  const one = paths.length === 1;
  return `[The person ${how}: ${paths.join(', ')} ${one ? 'is' : 'are'} back as ${one ? 'it was' : 'they were'} before. Changes made to ${one ? 'it' : 'them'} since are gone; read ${one ? 'it' : 'them'} again before relying on ${one ? 'it' : 'them'}.]`;
}

/** Adds `note` to the history of every agent of the session. */
export function tellAgents(session: ACPSession, note: string): void {
  for (const { session: history } of session.internalSessions()) history.addUserMessage(note);
}
