import * as z from 'zod';
import { onFirstUse } from '../vocabulary/first-use';
import type { BaseAgentDefinition } from '../config/agent-definitions';
import type { EditableArguments } from '../tools/permissions';
import type { ToolContext } from '../tools/tool';
import { firstLine } from '../vocabulary/text';

const DEFAULT_APPROVAL_TIMEOUT_SECONDS = 120;

const TASK_PARAMETERS = onFirstUse(() => z.object({ task: z.string().trim().min(1, 'the task cannot be empty') }));

/**
 * Asks before starting a subagent whose definition requires approval
 * (`requires_approval`, waiting `approval_timeout` seconds). The person may
 * edit the task first (seed 002's Modify): the subagent then gets theirs.
 * `approval` is `not needed`, or how the question ended.
 */
export async function approveSubagent(
  name: string,
  definition: BaseAgentDefinition,
  task: string,
  ctx: ToolContext,
): Promise<{ approval: string; task: string }> {
  const categories = definition.requiresApproval ?? [];
  if (categories.length === 0) return { approval: 'not needed', task };
  const seconds = definition.approvalTimeoutSeconds ?? DEFAULT_APPROVAL_TIMEOUT_SECONDS;
  const outcome = await ctx.permissions.askOnce(
    {
      tool: 'task',
      callId: ctx.callId,
      agent: ctx.agentName,
      category: categories[0]!,
      title: `Start subagent ${name} (it may ${categories.join(', ')}): ${firstLine(task, 200)}`,
      paths: [],
      alwaysScope: `subagent ${name}`,
      editable: editableTask(task),
    },
    ctx.signal,
    seconds * 1000,
  );
  const edited = typeof outcome.modified?.task === 'string' ? outcome.modified.task : undefined;
  ctx.span?.set({ 'crow.subagent.approval': edited !== undefined ? 'allowed with an edited task' : outcome.decision, 'crow.subagent.approval_timeout_s': seconds });
  return { approval: outcome.decision, task: edited ?? task };
}

/** A subagent's task as the person asked to approve it may rewrite it. */
function editableTask(task: string): EditableArguments {
  return {
    arguments: { task },
    schema: z.toJSONSchema(TASK_PARAMETERS(), { target: 'draft-7', io: 'input' }) as Record<string, unknown>,
    check(edited) {
      const parsed = TASK_PARAMETERS().safeParse(edited);
      return parsed.success ? undefined : parsed.error.issues.map((i) => `${i.path.join('.') || '(arguments)'}: ${i.message}`).join('; ');
    },
  };
}
