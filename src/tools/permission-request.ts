import type { PermissionCategory } from '../vocabulary/permission-types';

/*
 * What the permission gate asks a person and what comes back: the request
 * a door shows, the answers it may give (Modify included), and the gate's
 * verdict. The gate itself is permissions.ts.
 */

/** What a tool call wants to do, in words a person can decide on. */
export interface PermissionRequest {
  tool: string;
  callId: string;
  agent: string;
  /** Set when `agent` is no agent of the session but who asks through it (an MCP server asking for the model): a door names it with the question. */
  outsider?: true;
  category: PermissionCategory;
  /** e.g. "Edit src/app.ts" or "Run: npm test". */
  title: string;
  /** The command line, for execute requests. */
  command?: string;
  /** The command's working folder, relative to the workspace root (default: the root). */
  cwd?: string;
  /** The command runs in the workspace's sandbox (see PermissionPolicy.executeBySandbox). */
  sandboxed?: boolean;
  /** Workspace-relative paths the call touches. */
  paths: string[];
  /** What "always" would cover, e.g. "all file changes" or `commands starting with "npm test"`. */
  alwaysScope: string;
  /** The change a write would make, as a unified diff, for whoever is asked (undefined when it cannot be worked out beforehand). */
  diff?: () => Promise<string | undefined>;
  /**
   * Set by the gate on the request it asks about when the call would change
   * protected paths (.crow/, .git/, .vscode/, the user's config folder):
   * such calls are asked every time, whatever the policy or earlier answers.
   */
  protectedPaths?: string[];
  /**
   * A pre_tool_use hook's word on the call: `allow` runs it without asking
   * unless the policy or a remembered answer denies it, `ask` asks a person
   * even where the policy would allow it. Protected paths are asked either way.
   */
  hook?: 'allow' | 'ask';
  /**
   * The tool says the call may destroy what cannot be restored (an MCP
   * tool's destructiveHint): no policy rule, --allow, remembered "always",
   * or hook allows it; a person is asked every time, and nobody to ask
   * means no. Denials still hold.
   */
  destructive?: true;
  /**
   * The call's arguments, which the person asked may change before allowing
   * it (seed 002's Modify); absent where they cannot be changed. A door
   * offers the change only when this is set, and checks an edit with
   * `check` before answering `{ modified }`.
   */
  editable?: EditableArguments;
  /**
   * Set when an agent itself asks for approval (request_approval) rather
   * than a tool call needing it: `title` is its question, `details` what it
   * added. Doors word it as a question and offer no "always" answer.
   */
  question?: { details?: string };
}

/** A call's arguments as a person may edit them before allowing it. */
export interface EditableArguments {
  /** As the model sent them, parsed. */
  arguments: Record<string, unknown>;
  /** The tool's parameters as JSON Schema, for a door that builds a form from them. */
  schema: Record<string, unknown>;
  /** Undefined when `edited` fits the tool's parameters; else what is wrong, in words a person can act on. */
  check(edited: unknown): string | undefined;
}

export type PermissionAnswer = 'allow_once' | 'allow_always' | 'reject_once' | 'reject_always';

/**
 * What a person answered: one of the four answers, seed 002's Modify,
 * "allow it once, with these arguments instead" (only for a request with
 * `editable`, and only arguments its `check` accepted), or a no with the
 * person's reason, which the agent reads as the denial.
 */
export type PermissionReply = PermissionAnswer | { modified: Record<string, unknown> } | { deniedBecause: string };

/** Asks a person. Resolves `reject_once` when the signal aborts or nobody can answer. */
export type AskFn = (request: PermissionRequest, signal: AbortSignal) => Promise<PermissionReply>;

/**
 * `answer` is a person's, when one was asked; `modified`, the arguments
 * they allowed the call with instead of the model's (its `answer` is
 * allow_once); `coveredByEntries`, set when nobody was asked because
 * allow-list entries or "always" answers cover the command line (which
 * then runs as covered-command.ts says).
 */
export type PermissionVerdict =
  | { allowed: true; how: 'policy' | 'remembered' | 'user' | 'hook'; answer?: PermissionAnswer; modified?: Record<string, unknown>; coveredByEntries?: true }
  | { allowed: false; reason: string; answer?: PermissionAnswer };

/** How an approval asked outside any policy ended (see PermissionGate.askOnce). */
export interface ApprovalOutcome {
  decision: 'allowed' | 'denied' | 'timeout' | 'unavailable';
  /** The person allowed it with these arguments instead (Modify). */
  modified?: Record<string, unknown>;
}
