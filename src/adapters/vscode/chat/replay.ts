/**
 * A stored session as the chat view's transcript: the user's prompts, every
 * agent's words and thinking with its badge, handoffs, tool cards with their
 * results and diffs, and system notes, in time order across the internal
 * agents. What the view shows when a session is resumed.
 */
import type { Actor, TranscriptEvent } from '../../../../webview/chat/protocol';
import type { ACPSession, SessionRole } from '../../../session/acp-session';
import type { HistoryEntry } from '../../../session/history';
import { builtinTools } from '../../../tools/registry';
import { argumentsText, capText, notice, toolEnd } from './transcript-translator';
import { argumentsForDisplay, userText } from '../../../session/history';

interface Step {
  role: SessionRole;
  agent: string;
  entry: HistoryEntry;
}

export function replayTranscript(session: ACPSession): TranscriptEvent[] {
  return withReviews(storedEvents(session));
}

/** The events as stored, one or none per history entry. */
function storedEvents(session: ACPSession): TranscriptEvent[] {
  const tools = new Map(builtinTools().map((tool) => [tool.name, tool]));
  const steps = session
    .internalSessions()
    .flatMap(({ role, session: internal }) => internal.entries.map((entry): Step => ({ role, agent: internal.agentName, entry })))
    .sort((a, b) => a.entry.at - b.entry.at);
  const agentsByName = new Map(steps.map((step) => [step.agent, step.role]));
  const actorOf = (agent: string): Actor => {
    const role = agentsByName.get(agent);
    return { agent, role: role === 'coagent' ? 'reviewer' : role === 'primary' ? 'primary' : 'subagent' };
  };
  return steps.flatMap(({ agent, role, entry }): TranscriptEvent[] => {
    const actor = actorOf(agent);
    switch (entry.kind) {
      case 'user':
        if (entry.from === undefined && role === 'primary') return [{ type: 'user_message', text: userText(entry.content) }];
        return [{ type: 'handoff', from: actorOf(entry.from ?? 'user'), to: actor, purpose: 'handoff', text: capText(userText(entry.content)) }];
      case 'assistant_text':
        return [{ type: 'text_delta', actor, delta: entry.text }];
      case 'thinking':
        return [{ type: 'thinking_delta', actor, delta: entry.text }];
      case 'tool_call': {
        const tool = tools.get(entry.name);
        const args = argumentsForDisplay(entry.arguments);
        const summary = tool ? tool.summarize(args) : '';
        return [
          {
            type: 'tool_start',
            actor,
            callId: entry.id,
            tool: entry.name,
            kind: tool?.kind ?? 'other',
            title: summary.trim(),
            argumentsText: argumentsText(args),
          },
        ];
      }
      case 'tool_result':
        return [toolEnd(entry.callId, entry, entry.metadata.durationMs)];
      case 'system':
        return [notice('info', `${agent}: ${entry.message}`)];
      case 'compaction':
        return [notice('info', `${agent} compacted its history to fit the context window.`)];
      case 'redacted_thinking':
      case 'trim_tool_outputs':
        return [];
    }
  });
}

/** The round a review handoff names ("… (review round 2 of at most 5)"), with the default prompts' wording. */
const REVIEW_ROUND = /\(review round (\d+)\b/;
/** The round of feedback sent back ("… sent it back (round 2 of at most 5)"). */
const FEEDBACK_ROUND = /sent it back \(round (\d+)\b/;

/**
 * A reviewed session told as it was live: each handoff to the reviewer opens
 * a review round, feedback sent back is a verdict, the reviewer's
 * task_complete is its approval and ends the prompt; the primary's claim that
 * the task is done, which the review then judged, is not repeated as news.
 */
function withReviews(events: TranscriptEvent[]): TranscriptEvent[] {
  const reviewed = events.some((event) => event.type === 'handoff' && event.to.role === 'reviewer');
  if (!reviewed) return events;
  const out: TranscriptEvent[] = [];
  let round = 0;
  let approving: string | undefined;
  for (const event of events) {
    if (event.type === 'user_message') round = 0;
    if (event.type === 'handoff' && event.to.role === 'reviewer') {
      round = Number(REVIEW_ROUND.exec(event.text)?.[1] ?? round + 1);
      out.push({ ...event, purpose: 'review' });
      out.push({ type: 'review_start', reviewer: event.to, primary: event.from, round });
      continue;
    }
    if (event.type === 'handoff' && event.from.role === 'reviewer' && event.to.role === 'primary') {
      const sentBack = Number(FEEDBACK_ROUND.exec(event.text)?.[1] ?? round);
      out.push({ type: 'verdict', reviewer: event.from, round: sentBack, verdict: 'feedback', summary: '' });
      out.push({ ...event, purpose: 'feedback' });
      continue;
    }
    if (event.type === 'notice' && /: The task was completed\.$/.test(event.text)) continue;
    if (event.type === 'tool_start' && event.tool === 'task_complete' && event.actor.role === 'reviewer') approving = event.callId;
    out.push(event);
    if (event.type === 'tool_end' && event.callId === approving && event.status === 'completed') {
      approving = undefined;
      const reviewer = [...out].reverse().find((item): item is Extract<TranscriptEvent, { type: 'review_start' }> => item.type === 'review_start')?.reviewer;
      if (!reviewer) continue;
      out.push({ type: 'verdict', reviewer, round, verdict: 'approved', summary: '' });
      out.push({ type: 'prompt_end', status: 'completed', message: `${reviewer.agent} approved the work after ${round} review round${round === 1 ? '' : 's'}.` });
    }
  }
  return out;
}
