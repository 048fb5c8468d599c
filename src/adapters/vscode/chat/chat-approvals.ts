import { randomUUID } from 'node:crypto';
import type { AskFn, PermissionReply, PermissionRequest } from '../../../tools/permissions';
import { errorText } from '../../../vocabulary/text';
import type { Actor, ApprovalDecision, ApprovalOutcome, ApprovalRequest, HostMessage } from '../../../../webview/chat/protocol';
import { capText, diffPath } from './transcript-translator';

/** An approval shown in the view, waiting for the person. */
interface PendingApproval {
  request: ApprovalRequest;
  answer(decision: ApprovalDecision): void;
  /** Denies it with the person's reason, which the agent reads as the denial. */
  deny(reason: string): void;
  /** Allows it with edited arguments (JSON text); a problem, shown in the view, when they do not fit. */
  edit(text: string): string | undefined;
  withdraw(): void;
}

/**
 * The chat view's approvals: each question the permission gate asks is
 * posted to the view inline, and waits for the person's click, for edited
 * arguments (seed 002's Modify, checked here against the tool's
 * parameters), or for a cancel that withdraws it.
 */
export class ChatApprovals {
  private readonly waiting = new Map<string, PendingApproval>();

  constructor(
    private readonly post: (message: HostMessage) => void,
    /** Who an agent is in the view (its role), once it has been seen. */
    private readonly actorOf: (agent: string) => Actor | undefined,
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
        if (!this.waiting.delete(id)) return;
        signal.removeEventListener('abort', withdraw);
        this.post({ type: 'approval_done', id, decision: shown });
        resolve(reply);
      };
      const withdraw = (): void => done('reject_once', 'withdrawn');
      const { editable } = request;
      const shown = shownRequest(id, request, this.actorOf(request.agent) ?? { agent: request.agent, role: 'primary' }, unified);
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
      this.waiting.set(id, { request: shown, answer, deny: (reason) => done({ deniedBecause: reason }, 'reject_once'), edit, withdraw });
      signal.addEventListener('abort', withdraw, { once: true });
      this.post({ type: 'approval', request: shown });
      if (signal.aborted) withdraw();
    });
  };

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

  /** The question as the view shows it, while it waits. */
  shown(id: string): ApprovalRequest | undefined {
    return this.waiting.get(id)?.request;
  }

  /** Every question still waiting, to ask a reloaded view again. */
  pending(): ApprovalRequest[] {
    return [...this.waiting.values()].map((pending) => pending.request);
  }

  withdrawAll(): void {
    for (const pending of [...this.waiting.values()]) pending.withdraw();
  }

  private pendingOne(id: string): PendingApproval {
    const pending = this.waiting.get(id);
    if (!pending) throw new Error('That approval is no longer pending (the prompt ended or was cancelled).');
    return pending;
  }
}

function shownRequest(id: string, request: PermissionRequest, actor: Actor, unified: string | undefined): ApprovalRequest {
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
