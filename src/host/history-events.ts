/**
 * The events a session stored before it kept an event log would have shown,
 * rebuilt from its agents' histories (merged in time order), so that such a
 * session is shown through the same translators as any other. What a
 * history does not hold is left out (usage, retries, notices); reviews are
 * read from the handoffs between the primary and its reviewer.
 */
import type { AgentEvent } from '../engine/events';
import type { ACPSession, SessionRole } from '../session/acp-session';
import { argumentsForDisplay, type HistoryEntry, userText } from '../session/history';
import { builtinTools } from '../tools/registry';
import type { Tool } from '../tools/tool';
import { TASK_COMPLETE } from '../vocabulary/tool-names';

interface Step {
  role: SessionRole;
  agent: string;
  entry: HistoryEntry;
}

export function eventsFromHistory(session: ACPSession): { at: number; event: AgentEvent }[] {
  const internals = session.internalSessions();
  const steps = internals
    .flatMap(({ role, session: internal }) => internal.entries.map((entry): Step => ({ role, agent: internal.agentName, entry })))
    .sort((a, b) => a.entry.at - b.entry.at);
  const reviewer = internals.find(({ role }) => role === 'coagent')?.session.agentName;
  const rebuild = new Rebuild(session.agentName, reviewer);
  return steps.flatMap((step) => rebuild.step(step).map((event) => ({ at: step.entry.at, event })));
}

/** The state of one rebuild: the tools by name, the review round, the reviewer's closing call. */
class Rebuild {
  private readonly tools = new Map<string, Tool>(builtinTools().map((tool) => [tool.name, tool]));
  private round = 0;
  private approving: string | undefined;
  /** The primary agent of the prompt under way. */
  private primary = '';

  constructor(
    private readonly composition: string,
    private readonly reviewer: string | undefined,
  ) {}

  step({ role, agent, entry }: Step): AgentEvent[] {
    switch (entry.kind) {
      case 'user':
        return this.user(role, agent, entry);
      case 'assistant_text':
        return [{ type: 'text_delta', agent, delta: entry.text }];
      case 'thinking':
        return entry.text ? [{ type: 'thinking_delta', agent, delta: entry.text }] : [];
      case 'tool_call': {
        const tool = this.tools.get(entry.name);
        const args = argumentsForDisplay(entry.arguments);
        if (role === 'coagent' && entry.name === TASK_COMPLETE) this.approving = entry.id;
        return [
          {
            type: 'tool_call_start',
            agent,
            callId: entry.id,
            tool: entry.name,
            kind: tool?.kind ?? 'other',
            arguments: args,
            summary: tool ? tool.summarize(args) : '',
            locations: tool ? tool.locations(args) : [],
          },
        ];
      }
      case 'tool_result':
        return this.result(agent, entry);
      case 'system':
        return [{ type: 'notice', agent, level: entry.event === 'error' ? 'error' : 'info', message: `${agent}: ${entry.message}` }];
      case 'compaction':
        return [{ type: 'notice', agent, level: 'info', message: `${agent} compacted its history to fit the context window.` }];
      case 'rewind':
        return [{ type: 'notice', agent, level: 'info', message: `${agent}'s conversation was rewound to an earlier checkpoint.` }];
      case 'redacted_thinking':
      case 'trim_tool_outputs':
        return [];
    }
  }

  /** A person's prompt starts a prompt; a message from another agent is a handoff (a review round, or feedback). */
  private user(role: SessionRole, agent: string, entry: Extract<HistoryEntry, { kind: 'user' }>): AgentEvent[] {
    if (entry.from === undefined && role === 'primary') {
      this.round = 0;
      this.primary = agent;
      return [{ type: 'prompt_start', agent: this.composition, primary: agent, ...(this.reviewer ? { coagent: this.reviewer } : {}), content: entry.content }];
    }
    const from = entry.from ?? 'user';
    const text = userText(entry.content);
    if (role === 'coagent') {
      this.round += 1;
      return [
        { type: 'handoff', agent: from, to: agent, purpose: 'review', text },
        { type: 'coagent_start', agent, primary: from, round: this.round },
      ];
    }
    if (from === this.reviewer) {
      return [
        { type: 'coagent_end', agent: from, primary: agent, round: this.round, verdict: 'feedback', summary: '' },
        { type: 'handoff', agent: from, to: agent, purpose: 'feedback', text },
      ];
    }
    return [{ type: 'handoff', agent: from, to: agent, purpose: 'summary_request', text }];
  }

  private result(agent: string, entry: Extract<HistoryEntry, { kind: 'tool_result' }>): AgentEvent[] {
    const { status, output, metadata } = entry;
    const ended: AgentEvent = {
      type: 'tool_call_end',
      agent,
      callId: entry.callId,
      tool: entry.name,
      result: { status, output, ...(entry.error !== undefined ? { error: entry.error } : {}), metadata },
      durationMs: metadata.durationMs,
    };
    if (entry.callId !== this.approving || status !== 'success') return [ended];
    this.approving = undefined;
    const rounds = `${this.round} review round${this.round === 1 ? '' : 's'}`;
    return [
      ended,
      { type: 'coagent_end', agent, primary: this.primary, round: this.round, verdict: 'approved', summary: output },
      { type: 'run_complete', agent: this.composition, status: 'completed', message: `${agent} approved the work after ${rounds}.` },
    ];
  }
}
