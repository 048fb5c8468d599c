import * as z from 'zod';
import { defineTool } from '../define-tool';
import type { EditableArguments } from '../permissions';
import { onFirstUse } from '../../vocabulary/first-use';
import { oneLine } from '../../vocabulary/text';

/** How long the person has to answer before the request counts as refused, unless the agent's approval_timeout says otherwise (seed 002: five minutes, then abort). */
export const REQUEST_APPROVAL_TIMEOUT_MS = 300_000;

const parameters = onFirstUse(() =>
  z.object({
    question: z.string().trim().min(1).describe('What you want approval for, as one question the person can answer yes or no, e.g. "Drop the users table and recreate it?"'),
    details: z
      .string()
      .optional()
      .describe('What the person should know to decide: the impact, whether it can be undone, what you will do otherwise.'),
  }),
);

/**
 * Seed 002's runtime approval: the agent asks the person before an action
 * of its own choosing, whatever the permission policy says. The question
 * reaches the person as any other approval does in the door they use; the
 * model reads the decision, the person's edit of the question when they
 * approved a changed version (Modify), or why nobody answered.
 */
export const requestApprovalTool = defineTool({
  name: 'request_approval',
  description:
    'Ask the person to approve an action before you take it: something destructive, costly, irreversible or outside what they asked for. ' +
    'Ask before, not after, and wait for the answer; then act on it. The person may approve, refuse, or approve a changed version of your question ' +
    '(do what the changed version says). Where nobody can be asked (a non-interactive run) the answer says so: do not take the action then.',
  kind: 'other',
  permission: 'none',
  parameters,
  summarize: ({ question }) => oneLine(question),
  async execute({ question, details }, ctx) {
    const asked = { question, ...(details !== undefined ? { details } : {}) };
    const timeoutMs = ctx.approvalTimeoutMs ?? REQUEST_APPROVAL_TIMEOUT_MS;
    const outcome = await ctx.permissions.askOnce(
      {
        tool: 'request_approval',
        callId: ctx.callId,
        agent: ctx.agentName,
        // Asked outside any policy: the category only places the question among a door's approvals.
        category: 'execute',
        title: question,
        paths: [],
        alwaysScope: 'this request only',
        question: details !== undefined ? { details } : {},
        editable: editableQuestion(asked),
      },
      ctx.signal,
      timeoutMs,
    );
    ctx.span?.set({ 'crow.approval.decision': outcome.decision, ...(outcome.modified ? { 'crow.approval.modified': JSON.stringify(outcome.modified) } : {}) });
    switch (outcome.decision) {
      case 'allowed':
        if (outcome.modified) {
          return {
            output: `Approved with changes: the person approved this instead of what you asked. Do exactly this:\n${JSON.stringify(outcome.modified, null, 2)}`,
            extra: { decision: 'approved_with_changes', modified: outcome.modified },
          };
        }
        return { output: 'Approved: the person said yes. Go ahead.', extra: { decision: 'approved' } };
      case 'denied':
        return { output: 'Denied: the person said no. Do not take the action; ask what they want instead, or do without it.', extra: { decision: 'denied' } };
      case 'timeout':
        return {
          output: '',
          error: `No answer within ${Math.round(timeoutMs / 1000)} s: treat it as refused. Do not take the action.`,
          extra: { decision: 'timeout' },
        };
      case 'unavailable':
        return {
          output: '',
          error:
            'Nobody can be asked for approval in this run (it is not interactive). Do not take the action: finish what you can without it, ' +
            'and say in your answer what needs approval and why.',
          extra: { decision: 'unavailable' },
        };
    }
  },
});

/** The question as the person may edit it before approving: their version is what the agent is told to do. */
function editableQuestion(asked: { question: string; details?: string }): EditableArguments {
  return {
    arguments: asked,
    schema: z.toJSONSchema(parameters(), { target: 'draft-7', io: 'input' }) as Record<string, unknown>,
    check(edited) {
      const parsed = parameters().safeParse(edited);
      return parsed.success ? undefined : parsed.error.issues.map((i) => `${i.path.join('.') || '(arguments)'}: ${i.message}`).join('; ');
    },
  };
}
