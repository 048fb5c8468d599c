/**
 * What the chat view and the host say about questions put to the person:
 * the permission gate's approvals and an MCP server's questions (a form,
 * a page to open). Part of protocol.ts, which re-exports it; kept apart so
 * the message unions stay readable.
 */
import type { ElicitField, ElicitValue } from '../../src/mcp/elicitation-form';
import type { Actor, CardDiff } from './view-shapes';

export type { ElicitField, ElicitValue };

/** One approval the policy asks for; answered by an `approve` message. */
export interface ApprovalRequest {
  id: string;
  /** The tool call it gates: the view shows the question under that call's card. */
  callId: string;
  actor: Actor;
  /** e.g. "Edit src/app.ts" or "Run: npm test". */
  title: string;
  category: 'read' | 'write' | 'execute' | 'network';
  /** The command line for execute requests. */
  command?: string;
  /** The command's working folder, workspace-relative ("." for the root). */
  cwd?: string;
  paths: string[];
  /** What "always" would cover, e.g. "all file changes". */
  alwaysScope: string;
  /** The change a write would make, shown before anyone decides (capped like a card's diff). */
  diff?: CardDiff;
  /**
   * The call's arguments as pretty JSON, when the person may edit them
   * before allowing it (seed 002's Modify): the view offers Edit, and posts
   * `approve_edited` with the text; the host checks it against the tool's
   * parameters and answers `approval_done`, or `approval_invalid` with what
   * is wrong (the view keeps the text for another try).
   */
  arguments?: string;
  /**
   * The change (`diff`) may be edited in VS Code's diff editor: Edit…
   * posts `edit_change`, the host opens it with the proposed text editable
   * and answers `approval_change`; "Allow with my changes" posts
   * `approve_change` (the host takes the text from the editor).
   */
  editInEditor?: boolean;
  /** Set when an agent asks for approval itself (request_approval): `title` is its question; no "always". */
  question?: { details?: string };
}

export type ApprovalDecision = 'allow_once' | 'allow_always' | 'reject_once';

/**
 * A question an MCP server asks while a prompt runs (elicitation): a form
 * to fill in, or a page to open. Every text in it was made safe to show by
 * the host (src/mcp/elicitation-form.ts); the host checks the answer again.
 */
export interface ServerQuestion {
  id: string;
  /** The server's name as configured. */
  server: string;
  message: string;
  /** A form's questions, in the server's order. */
  fields?: ElicitField[];
  /** A page the server asks the person to open: `domain` (the URL's own host) is what they decide on. */
  page?: { url: string; domain: string };
}

/** The specification's three answers: send (or open the page), decline, or dismiss. */
export type QuestionAction = 'accept' | 'decline' | 'cancel';

/** How an approval ended, as the view states it: a decision, allowed with the person's edited arguments, or withdrawn. */
export type ApprovalOutcome = ApprovalDecision | 'allow_edited' | 'withdrawn';
