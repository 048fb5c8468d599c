import type { ExecutedToolCall, TurnResult } from '../engine/turn';
import type { HandoffPrompt, ReviewStyle } from '../config/control-flow';
import type { AgentMessage, FlowRun } from './flow-run';
import type { RunResult } from './run-result';
import { clip } from '../vocabulary/text';
import type { ReviewVerdict } from '../engine/events';
import { reviewVerdict } from '../engine/review-verdict';

export interface CoagentFlowOptions {
  style: ReviewStyle;
  maxRounds: number;
  /** Seed 000's Loop(n): all maxRounds rounds run, and the task is done after the last. */
  fixedRounds?: boolean;
  /** false: the coagent only reviews; the primary (or the rounds of a fixed loop) end the task. Default true. */
  canTerminate?: boolean;
  handoff: HandoffPrompt;
}

/**
 * Levels 3-5: after each primary turn the coagent reviews, and only it may
 * end the task (task_complete). Summaries cross, not histories: the primary
 * summarises its work (its task_complete summary, or a tool-less summary
 * turn), the coagent reads that as a user message (role flip), and its
 * feedback becomes the primary's next message. Tool calls of the primary
 * that the permission policy refused are listed in the reviewer's brief,
 * and an approval of such work says so in its summary: nobody approves
 * work that was never done without the refusals being on record.
 */
export async function runCoagent(run: FlowRun, first: AgentMessage, options: CoagentFlowOptions): Promise<RunResult> {
  const primary = run.agents.primary.name;
  const reviewer = run.coagent.name;
  const canTerminate = options.canTerminate !== false;
  let message = first;
  let lastFeedback = '';
  const refused: string[] = [];
  for (let round = 1; round <= options.maxRounds; round++) {
    const work = await run.primaryTurn(message, round > 1 ? { from: reviewer } : {});
    const stopped = run.stopped(work, 'primary');
    if (stopped) return stopped;
    if (!canTerminate && !options.fixedRounds && round > 1 && work.taskComplete !== undefined) {
      return run.finish('completed', `${primary} finished the task after ${round - 1} review round${round === 2 ? '' : 's'} by ${reviewer}.`, work.taskComplete);
    }

    const summary = work.taskComplete ?? (await requestSummary(run));
    if (typeof summary !== 'string') return summary;

    const refusedNow = refusals(work.toolCalls);
    refused.push(...refusedNow);
    const brief = await writeBrief(run, options, { summary, round, filesChanged: work.filesChanged, refused: refusedNow, canTerminate });
    run.handoff(primary, reviewer, 'review', brief);
    run.emit({ type: 'coagent_start', agent: reviewer, primary, round });
    const review = await run.coagentTurn(brief);
    const verdict = verdictOf(review);
    run.emit({ type: 'coagent_end', agent: reviewer, primary, round, verdict, summary: review.taskComplete ?? review.text });
    const reviewStopped = run.stopped(review, 'coagent');
    if (reviewStopped) return reviewStopped;
    if (review.taskComplete !== undefined) {
      const note = refused.length > 0 ? ` ${refused.length} of ${primary}'s tool calls were refused: ${refused.join('; ')}.` : '';
      return run.finish('completed', `${reviewer} approved the work after ${round} review round${round === 1 ? '' : 's'}.${note}`, `${review.taskComplete}${note}`);
    }

    lastFeedback = review.text.trim();
    if (options.fixedRounds && round === options.maxRounds) break;
    message = run.render('review-feedback', { reviewer, feedback: lastFeedback, round, max_rounds: options.maxRounds });
    run.handoff(reviewer, primary, 'feedback', message);
  }
  if (options.fixedRounds) {
    const rounds = `${options.maxRounds} round${options.maxRounds === 1 ? '' : 's'}`;
    return run.finish('completed', `${rounds} of work by ${primary} and review by ${reviewer} done.`, `${reviewer}'s last review: ${lastFeedback || '(none)'}`);
  }
  return run.finish(
    'limit',
    `Stopped after ${options.maxRounds} review rounds without ${canTerminate ? `${reviewer}'s approval` : `${primary} calling task_complete`}. ` +
      `${reviewer}'s last feedback: "${clip(lastFeedback || '(none)', 300)}". Todo list: ${run.todoState().replace(/\n/g, '; ')} ` +
      'Send a prompt to continue.',
  );
}

/** Asks the primary, without tools, to summarise its work for the reviewer. */
async function requestSummary(run: FlowRun): Promise<string | RunResult> {
  const primary = run.agents.primary.name;
  const request = run.render('summary-request');
  run.handoff(run.agents.name, primary, 'summary_request', request);
  const turn = await run.primaryTurn(request, { from: run.agents.name, withoutTools: true });
  const stopped = run.stopped(turn, 'primary');
  if (stopped) return stopped;
  return turn.text.trim();
}

async function writeBrief(
  run: FlowRun,
  options: CoagentFlowOptions,
  facts: { summary: string; round: number; filesChanged: string[]; refused: string[]; canTerminate: boolean },
): Promise<string> {
  const context = {
    primary: run.agents.primary.name,
    summary: facts.summary,
    round: facts.round,
    max_rounds: options.maxRounds,
    fixed_rounds: options.fixedRounds === true,
    can_terminate: facts.canTerminate,
    files_changed: facts.filesChanged,
    refused: facts.refused,
    style: options.style,
  };
  switch (options.handoff.kind) {
    case 'static':
      return `${options.handoff.text}\n\n${run.render('review-handoff', { ...context, style: 'none' })}`;
    case 'template':
      return options.handoff.inline !== undefined ? run.renderInline(options.handoff.inline, context) : run.render(options.handoff.template ?? 'review-handoff', context);
    case 'generated':
      return generateBrief(run, options.handoff.generatorPrompt, run.render('review-handoff', context));
  }
}

/** A brief written for this task by one tool-less call to the reviewer's model, ahead of the template's. */
async function generateBrief(run: FlowRun, generatorPrompt: string, fallback: string): Promise<string> {
  const text = await run.generate('review brief generator', run.coagent.provider, generatorPrompt, fallback);
  return text ? `${text}\n\n${fallback}` : fallback;
}

/** "write_file: Permission needed for …" for each call the permission policy refused. */
function refusals(calls: readonly ExecutedToolCall[]): string[] {
  return calls.filter((call) => call.result.metadata.extra.permission === 'denied').map((call) => `${call.name}: ${clip(call.result.error ?? 'refused', 160)}`);
}

function verdictOf(review: TurnResult): ReviewVerdict {
  return reviewVerdict(review.taskComplete, review.stopReason);
}
