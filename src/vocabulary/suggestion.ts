/** One thing a person may pick while typing a prompt: a `/command` or an `@server:uri` resource. */
export interface Suggestion {
  /** What the list shows, e.g. "/mcp__docs__review" or "Release notes". */
  label: string;
  /** What replaces the word being typed. */
  insert: string;
  /** A line under it: what it does, or where it comes from. */
  detail?: string;
}

/** What starts a word the composer completes: `/` a command at the start of the prompt, `@` a resource anywhere. */
export type SuggestTrigger = '/' | '@';
