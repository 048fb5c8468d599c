import { randomUUID } from 'node:crypto';
import { t } from '../l10n';
import type { AskFn, PermissionReply, PermissionRequest } from '../../../tools/permissions';
import { errorText } from '../../../vocabulary/text';
import type { Actor, ApprovalDecision, ApprovalOutcome, ApprovalRequest, HostMessage, WebviewMessage } from '../../../../webview/chat/protocol';
import { capText, diffPath } from './transcript-translator';
import type { ChangeEditor, ViewActions } from './chat-actions';
import { editedArguments, editsInEditor, notEditable } from './edited-change';
import { unifiedDiff } from '../../../tools/unified-diff';

/** An approval shown in the view, waiting for the person. */
interface PendingApproval {
  request: ApprovalRequest;
  answer(decision: ApprovalDecision): void;
  /** Denies it with the person's reason, which the agent reads as the denial. */
  deny(reason: string): void;
  /** Allows it with edited arguments (JSON text); a problem, shown in the view, when they do not fit. */
  edit(text: string): string | undefined;
  withdraw(): void;
  /** The call's tool, its change and its arguments as the model sent them, when the change may be edited in the diff editor. */
  file?: { tool: string; unified: string; arguments: Record<string, unknown> };
  /** The diff editor on that change, once Edit… opened it, with the file as it was then; `show` tells the card the change as `text` makes it. */
  editing?: { editor: ChangeEditor; current: string | undefined; proposed: string; show(text: string): void; shown?: HostMessage };
}

/** The view's messages about an approval. */
export type ApprovalMessage = Extract<WebviewMessage, { type: 'approve' | 'deny' | 'approve_edited' | 'edit_change' | 'approve_change' }>;

/** What VS Code does for an approval's change edited in the diff editor. */
export type ChangeEditing = Pick<ViewActions, 'proposedChange' | 'editChange'>;

/**
 * The chat view's approvals: each question the permission gate asks is
 * posted to the view inline, and waits for the person's click, for edited
 * arguments (seed 002's Modify, checked here against the tool's
 * parameters), for a file change as the person edited it in VS Code's diff
 * editor (turned back into the call's arguments by edited-change.ts, then
 * checked the same way), or for a cancel that withdraws it.
 */
export class ChatApprovals {
  private readonly waiting = new Map<string, PendingApproval>();
  /** Approvals whose diff editor is opening. */
  private readonly opening = new Set<string>();

  constructor(
    private readonly post: (message: HostMessage) => void,
    /** Who an agent is in the view (its role), once it has been seen. */
    private readonly actorOf: (agent: string) => Actor | undefined,
    private readonly editing: ChangeEditing,
  ) {}

  /**
   * Asks the person in the view, showing the change first when there is
   * one; a cancel withdraws the question and counts as a no. An editable
   * call's arguments go along as JSON for Edit.
   */
  readonly ask: AskFn = async (request: PermissionRequest, signal: AbortSignal) => {
    const unified = await request.diff?.();
    return new Promise<PermissionReply>((resolve) => {
      const id = randomUUID();
      const done = (reply: PermissionReply, shown: ApprovalOutcome): void => {
        // An answer, or a withdrawal, closes the change's editor: nothing typed there later is applied.
        void this.waiting.get(id)?.editing?.editor.close().catch(() => undefined);
        if (!this.waiting.delete(id)) return;
        signal.removeEventListener('abort', withdraw);
        this.post({ type: 'approval_done', id, decision: shown });
        resolve(reply);
      };
      const withdraw = (): void => done('reject_once', 'withdrawn');
      const { editable } = request;
      const file = editable && unified && editsInEditor(request.tool, editable.arguments) ? { tool: request.tool, unified, arguments: editable.arguments } : undefined;
      // One who is no agent of the session (an MCP server asking for the model) is named in the title: the badge shows only when several agents speak.
      const asked = request.outsider ? { ...request, title: `${request.agent}: ${request.title}` } : request;
      const shown = shownRequest(id, asked, this.actorOf(request.agent) ?? { agent: request.agent, role: 'primary' }, unified, file !== undefined);
      const edit = (text: string): string | undefined => {
        if (!editable) return 'this call cannot be edited';
        const parsed = parseObject(text);
        if ('problem' in parsed) return parsed.problem;
        const problem = editable.check(parsed.value);
        if (problem !== undefined) return problem;
        done({ modified: parsed.value }, 'allow_edited');
        return undefined;
      };
      // An agent's question has no "always": only its yes counts as one.
      const answer = (decision: ApprovalDecision): void =>
        request.question && decision === 'allow_always' ? done('reject_once', 'reject_once') : done(decision, decision);
      this.waiting.set(id, { request: shown, answer, deny: (reason) => done({ deniedBecause: reason }, 'reject_once'), edit, withdraw, ...(file ? { file } : {}) });
      signal.addEventListener('abort', withdraw, { once: true });
      this.post({ type: 'approval', request: shown });
      if (signal.aborted) withdraw();
    });
  };

  /** Does what the view asks of an approval. */
  async handle(message: ApprovalMessage): Promise<void> {
    switch (message.type) {
      case 'approve':
        return this.answer(message.id, message.decision);
      case 'deny':
        return this.deny(message.id, message.reason);
      case 'approve_edited':
        return this.edit(message.id, message.arguments);
      case 'edit_change':
        return this.editInEditor(message.id);
      case 'approve_change':
        return this.allowEdited(message.id);
    }
  }

  answer(id: string, decision: ApprovalDecision): void {
    this.pendingOne(id).answer(decision);
  }

  deny(id: string, reason: string): void {
    this.pendingOne(id).deny(reason);
  }

  /** Allows approval `id` with the edited arguments, or tells the view what is wrong with them (it stays pending). */
  edit(id: string, text: string): void {
    const problem = this.pendingOne(id).edit(text);
    if (problem !== undefined) this.post({ type: 'approval_invalid', id, problem });
  }

  /**
   * Opens approval `id`'s change in the diff editor, its proposed side
   * editable (or brings it back to the front). The card follows: each
   * pause in the typing posts the change as it now stands. A binary or huge
   * file is refused, saying so in the card.
   */
  async editInEditor(id: string): Promise<void> {
    const pending = this.pendingOne(id);
    if (pending.editing) {
      // A reloaded view's card learns again that the change is in the editor.
      pending.editing.show(pending.editing.editor.text());
      return pending.editing.editor.reveal();
    }
    if (!pending.file) throw new Error(t('This approval has no file change to edit in the editor.'));
    // A second click while the editor opens opens no second one.
    if (this.opening.has(id)) return;
    this.opening.add(id);
    try {
      await this.openEditor(id, pending, pending.file.unified);
    } finally {
      this.opening.delete(id);
    }
  }

  private async openEditor(id: string, pending: PendingApproval, unified: string): Promise<void> {
    const change = await this.editing.proposedChange(unified);
    const problem = notEditable(change.path, change.current, change.proposed);
    if (problem !== undefined) return this.post({ type: 'approval_invalid', id, problem });
    const show = (text: string): void => {
      if (this.waiting.get(id) !== pending || !pending.editing) return;
      const unified = unifiedDiff(change.path, change.current, text).diff;
      pending.editing.shown = { type: 'approval_change', id, diff: { path: change.path, unified: capText(unified) } };
      this.post(pending.editing.shown);
    };
    const editor = await this.editing.editChange(id, change, { changed: show });
    // Answered or withdrawn while the editor opened: it closes at once.
    if (this.waiting.get(id) !== pending) return editor.close();
    pending.editing = { editor, current: change.current, proposed: change.proposed, show };
    show(change.proposed);
  }

  /**
   * Allows approval `id` with the text its diff editor holds, or tells the
   * view what is wrong. The text left as proposed is a plain Allow once.
   */
  allowEdited(id: string): void {
    const pending = this.pendingOne(id);
    if (!pending.file || !pending.editing) throw new Error(t('Open the change in the editor first (Edit…), then allow it with your changes.'));
    const { current, proposed, editor } = pending.editing;
    const text = editor.text();
    if (text === proposed) return pending.answer('allow_once');
    const edited = editedArguments(pending.file.tool, pending.file.arguments, current, text);
    const problem = 'problem' in edited ? edited.problem : pending.edit(JSON.stringify(edited.value));
    if (problem !== undefined) this.post({ type: 'approval_invalid', id, problem });
  }

  /** The question as the view shows it, while it waits. */
  shown(id: string): ApprovalRequest | undefined {
    return this.waiting.get(id)?.request;
  }

  /** Every question still waiting, oldest first. */
  pending(): ApprovalRequest[] {
    return [...this.waiting.values()].map((pending) => pending.request);
  }

  /** What a reloaded view is told of the questions still waiting: each, and a change being edited as it now stands. */
  replay(): HostMessage[] {
    return [...this.waiting.values()].flatMap(({ request, editing }): HostMessage[] => [{ type: 'approval', request }, ...(editing?.shown ? [editing.shown] : [])]);
  }

  withdrawAll(): void {
    for (const pending of [...this.waiting.values()]) pending.withdraw();
  }

  private pendingOne(id: string): PendingApproval {
    const pending = this.waiting.get(id);
    if (!pending) throw new Error(t('That approval is no longer pending (the prompt ended or was cancelled).'));
    return pending;
  }
}

function shownRequest(id: string, request: PermissionRequest, actor: Actor, unified: string | undefined, editInEditor: boolean): ApprovalRequest {
  const { title, category, paths, alwaysScope, callId, editable, question } = request;
  return {
    id,
    callId,
    actor,
    title,
    category,
    paths,
    alwaysScope,
    ...(request.command !== undefined ? { command: request.command, cwd: request.cwd ?? '.' } : {}),
    ...(unified ? { diff: { path: diffPath(unified) ?? paths[0] ?? '', unified: capText(unified) } } : {}),
    ...(editable ? { arguments: JSON.stringify(editable.arguments, null, 2) } : {}),
    ...(editInEditor ? { editInEditor } : {}),
    ...(question ? { question: question.details !== undefined ? { details: capText(question.details) } : {} } : {}),
  };
}

/** Edited arguments as typed in the view: one JSON object, or what is wrong with the text. */
function parseObject(text: string): { value: Record<string, unknown> } | { problem: string } {
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) return { value: value as Record<string, unknown> };
    return { problem: 'the arguments must be one JSON object, {…}' };
  } catch (err) {
    return { problem: `not JSON: ${errorText(err)}` };
  }
}
