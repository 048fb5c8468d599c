/**
 * What `@crow` makes of a request in VS Code's own chat: which agent runs
 * it and what text it gets. The slash list offers the few commands a person
 * uses (SLASH_COMMANDS, as package.json declares them); every other agent
 * is still reached by typing its name as a command (`/build-loop fix the
 * tests`), which VS Code passes on as plain text. A slash command that
 * names no agent is one of Crow's own (`/explain`, `/undo`) and goes to the
 * session as typed. Plain functions: no `vscode` here.
 */

/** The /commands package.json offers under @crow, in its order: the agents and commands people reach for. */
export const SLASH_COMMANDS = ['build', 'pair', 'plan', 'explain', 'review', 'test'] as const;

export interface ParticipantRequest {
  /** The agent to run; absent: the conversation's own (or the default). */
  agent?: string;
  /** What the session is given. */
  text: string;
}

/** `command` as VS Code parsed it (a declared /command), `prompt` the rest; `agents` the names a person may pick. */
export function participantRequest(command: string | undefined, prompt: string, agents: readonly string[]): ParticipantRequest {
  if (command !== undefined) return agents.includes(command) ? { agent: command, text: prompt } : { text: `/${command} ${prompt}` };
  const typed = /^\/([\w.-]+)(?:\s+([\s\S]*))?$/.exec(prompt.trim());
  if (typed && agents.includes(typed[1]!)) return { agent: typed[1]!, text: (typed[2] ?? '').trim() };
  return { text: prompt };
}
