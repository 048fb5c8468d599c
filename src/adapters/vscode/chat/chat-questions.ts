/**
 * The chat view's side of what MCP servers ask while a prompt runs
 * (elicitation): a form becomes a card with its questions, a page to open
 * a card that names its domain first. The person's answer is checked
 * against the form here (the card keeps the answers and says what is
 * wrong when it does not fit), a page is opened only through VS Code's
 * own external-link handling, and a cancelled prompt or a server that gave
 * up withdraws the card. src/host/mcp-asking.ts decides when a server may
 * ask at all, and records each question in the trace.
 */
import { randomUUID } from 'node:crypto';
import { t } from '../l10n';
import { answerProblem, type ElicitAnswer, type ElicitFn, type ElicitForm } from '../../../mcp/elicitation-form';
import type { ElicitUrl, ElicitUrlFn, UrlAnswer } from '../../../mcp/elicitation-url';
import type { HostMessage, QuestionAction, ServerQuestion, WebviewMessage } from '../../../../webview/chat/protocol';

type AnswerMessage = Extract<WebviewMessage, { type: 'answer_question' }>;

interface PendingQuestion {
  question: ServerQuestion;
  /** Settles the question with the view's answer; a problem (shown on the card) when it does not fit. */
  answer(message: AnswerMessage): Promise<string | undefined>;
  withdraw(): void;
}

export class ChatQuestions {
  private readonly waiting = new Map<string, PendingQuestion>();

  constructor(
    private readonly post: (message: HostMessage) => void,
    /** Opens a page in the browser the way VS Code opens links (its own check of outside links included); true once it opened. */
    private readonly openPage: (url: string) => Promise<boolean>,
  ) {}

  /** A form: answered with its content once that fits, declined or dismissed as the person chose. */
  readonly elicit: ElicitFn = (form: ElicitForm, signal: AbortSignal) =>
    this.asked<ElicitAnswer>({ server: form.server, message: form.message, fields: form.fields }, signal, async ({ action, content }) => {
      if (action !== 'accept') return { answer: { action } };
      const problem = answerProblem(form, content ?? {});
      return problem !== undefined ? { problem } : { answer: { action, content: content ?? {} } };
    });

  /** A page: accepted once VS Code opened it; a person who stops at VS Code's own question about the link has dismissed it. */
  readonly elicitUrl: ElicitUrlFn = (request: ElicitUrl, signal: AbortSignal) =>
    this.asked<UrlAnswer>({ server: request.server, message: request.message, page: { url: request.url, domain: request.domain } }, signal, async ({ action }) => {
      if (action !== 'accept') return { answer: { action } };
      return { answer: { action: (await this.openPage(request.url)) ? 'accept' : 'cancel' } };
    });

  /** Does what the view answered; an answer to a question no longer open says so. */
  async handle(message: AnswerMessage): Promise<void> {
    const pending = this.waiting.get(message.id);
    if (!pending) throw new Error(t('That question is no longer open (the prompt ended, or the server stopped waiting).'));
    const problem = await pending.answer(message);
    if (problem !== undefined) this.post({ type: 'question_invalid', id: message.id, problem });
  }

  /** What a reloaded view is told of the questions still open. */
  replay(): HostMessage[] {
    return [...this.waiting.values()].map(({ question }) => ({ type: 'question', question }));
  }

  withdrawAll(): void {
    for (const pending of [...this.waiting.values()]) pending.withdraw();
  }

  /**
   * Shows `shown` and waits for an answer `settle` accepts; an abort (the
   * prompt cancelled, the server gone) withdraws the card and dismisses
   * the question, as the specification's cancel.
   */
  private asked<T extends { action: QuestionAction }>(
    shown: Omit<ServerQuestion, 'id'>,
    signal: AbortSignal,
    settle: (message: AnswerMessage) => Promise<{ answer: T } | { problem: string }>,
  ): Promise<T> {
    return new Promise<T>((resolve) => {
      const id = randomUUID();
      const question: ServerQuestion = { id, ...shown };
      const done = (answer: T, outcome: QuestionAction | 'withdrawn'): void => {
        if (!this.waiting.delete(id)) return;
        signal.removeEventListener('abort', withdraw);
        this.post({ type: 'question_done', id, outcome });
        resolve(answer);
      };
      const withdraw = (): void => done({ action: 'cancel' } as T, 'withdrawn');
      let answering = false;
      const answer = async (message: AnswerMessage): Promise<string | undefined> => {
        // A second click while a page opens answers nothing twice.
        if (answering) return undefined;
        answering = true;
        try {
          const settled = await settle(message);
          if ('problem' in settled) return settled.problem;
          done(settled.answer, settled.answer.action);
          return undefined;
        } finally {
          answering = false;
        }
      };
      this.waiting.set(id, { question, answer, withdraw });
      signal.addEventListener('abort', withdraw, { once: true });
      this.post({ type: 'question', question });
      if (signal.aborted) withdraw();
    });
  }
}
