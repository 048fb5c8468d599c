/** Shapes both halves of the chat's protocol use (protocol.ts, asking-protocol.ts): who acts, and a change shown as a diff. */

/** Who is acting, for the badge on text, thinking and tool cards. */
export type ActorRole = 'primary' | 'reviewer' | 'subagent';

export interface Actor {
  /** The internal agent's name, e.g. "coder" or "code-reviewer". */
  agent: string;
  role: ActorRole;
}

/** A diff produced by an edit, shown on its tool card with an "open diff" action. */
export interface CardDiff {
  /** Workspace-relative path. */
  path: string;
  /** Unified diff text (capped by the host). */
  unified: string;
}
