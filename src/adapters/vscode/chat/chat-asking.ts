/**
 * Everything the chat view asks the person on a session's behalf, in one
 * place: the permission gate's approvals (chat-approvals.ts) and what MCP
 * servers ask (chat-questions.ts). The controller hands their messages
 * here, a reloaded view is shown what still waits, and a prompt that ends
 * or a session that closes withdraws it all.
 */
import type { Actor, HostMessage, WebviewMessage } from '../../../../webview/chat/protocol';
import { ChatApprovals, type ApprovalMessage, type ChangeEditing } from './chat-approvals';
import { ChatQuestions } from './chat-questions';
import type { ChatAsking as Askers } from './chat-session';

export type AskingMessage = ApprovalMessage | Extract<WebviewMessage, { type: 'answer_question' }>;

export class ChatAsking {
  private readonly approvals: ChatApprovals;
  private readonly questions: ChatQuestions;

  constructor(post: (message: HostMessage) => void, actorOf: (agent: string) => Actor | undefined, actions: ChangeEditing & { openPage(url: string): Promise<boolean> }) {
    this.approvals = new ChatApprovals(post, actorOf, actions);
    this.questions = new ChatQuestions(post, (url) => actions.openPage(url));
  }

  /** Who answers a session's questions: the view's approval cards and its cards for servers' questions. */
  get askers(): Askers {
    return { ask: this.approvals.ask, elicit: this.questions.elicit, elicitUrl: this.questions.elicitUrl };
  }

  handle(message: AskingMessage): Promise<void> {
    return message.type === 'answer_question' ? this.questions.handle(message) : this.approvals.handle(message);
  }

  /** Answers the approval that has waited longest (the keyboard's allow and deny); false when none waits. */
  answerWaiting(decision: 'allow_once' | 'reject_once'): boolean {
    const [first] = this.approvals.pending();
    if (!first) return false;
    this.approvals.answer(first.id, decision);
    return true;
  }

  /** The change approval `id` asks about, while it waits. */
  approvalDiff(id: string): string | undefined {
    return this.approvals.shown(id)?.diff?.unified;
  }

  /** What a reloaded view must still offer: the approvals and questions a running prompt waits on. */
  replay(): HostMessage[] {
    return [...this.approvals.replay(), ...this.questions.replay()];
  }

  /** Nobody is left to answer: every approval and question still open is withdrawn. */
  withdrawAll(): void {
    this.approvals.withdrawAll();
    this.questions.withdrawAll();
  }
}
