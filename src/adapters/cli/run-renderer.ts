import { oneLine } from '../../config/text';
import { count, duration } from '../../telemetry/readable';
import type { AgentEvent, ReviewVerdict } from '../../engine/events';
import { unreachable } from '../../engine/events';
import type { Usage } from '../../llm/types';
import type { ToolKind, ToolResult } from '../../tools/tool';
import { addUsage, emptyUsage } from '../../llm/types';
import type { Style } from './terminal-style';

/** Where the renderer writes: the answer to `out`, everything about the work to `err`. */
export interface RenderTarget {
  out: { write(text: string): unknown };
  err: { write(text: string): unknown };
  outStyle: Style;
  errStyle: Style;
}

type Channel = 'none' | 'text' | 'thinking' | 'status';

/**
 * Turns agent events into what a person wants to read in a terminal: the
 * answer streams to stdout as it arrives; thinking (dimmed), tool calls with
 * status and duration, retries and the closing usage line go to stderr, so
 * `crow run … > answer.md` captures only the answer.
 */
export class RunRenderer {
  private channel: Channel = 'none';
  private lineOpen = false;
  private readonly usage: Usage = emptyUsage();
  private readonly started = Date.now();
  private readonly kinds = new Map<string, ToolKind>();
  private speaker: string | undefined;
  private toolCalls = 0;

  constructor(private readonly target: RenderTarget) {}

  render(event: AgentEvent): void {
    const { errStyle: s } = this.target;
    this.noteSpeaker(event);
    switch (event.type) {
      case 'turn_start':
      case 'text_complete':
      case 'thinking_complete':
      case 'files_changed':
        return;
      case 'text_delta':
        return this.stream('text', event.delta);
      case 'thinking_delta':
        return this.stream('thinking', event.delta);
      case 'tool_call_start':
        this.kinds.set(event.callId, event.kind);
        return this.status(`${s.cyan('●')} ${s.bold(event.tool)} ${s.dim(event.summary)}`);
      case 'tool_call_end':
        this.toolCalls += 1;
        return this.status(this.toolOutcome(event));
      case 'usage':
      case 'subagent_usage':
        addUsage(this.usage, event.usage);
        return;
      case 'retry':
        return this.status(
          s.yellow(`↻ ${event.reason} — retrying in ${duration(event.delayMs)} (attempt ${event.attempt})`),
        );
      case 'task_complete':
        return this.status(s.green(`✔ Task complete: ${event.summary}`));
      case 'doom_loop':
        return this.status(s.yellow(`⚠ Stopped: ${event.tool} was called with the same arguments ${event.repeats} times in a row.`));
      case 'error':
        return this.status(s.red(`✖ ${event.message}`));
      case 'cancelled':
        return this.status(s.yellow('Cancelled. Work done so far is kept.'));
      case 'turn_complete':
        return;
      case 'coagent_start':
        return this.status(s.cyan(`⇄ ${event.agent} reviews ${event.primary}'s work (round ${event.round})`));
      case 'coagent_end':
        return this.status(REVIEW_LINES[event.verdict](event.agent, s));
      case 'handoff':
        return this.status(s.dim(`→ ${event.agent} → ${event.to} (${event.purpose.replace('_', ' ')}): ${oneLine(event.text, 160)}`));
      case 'compaction':
        return this.status(
          s.dim(`⤓ ${event.agent}'s history compacted to fit the context window (~${count(event.tokensBefore)} → ~${count(event.tokensAfter)} tokens: ${event.how})`),
        );
      case 'subagent_start':
        return this.status(s.cyan(`→ Running ${event.subagent}… ${s.dim(oneLine(event.task, 160))}`));
      case 'subagent_progress':
        return this.status(s.dim(`  ${event.subagent}: ${oneLine(event.text, 160)}`));
      case 'subagent_end':
        return this.status(
          (event.status === 'completed' ? s.green : s.yellow)(`← ${event.subagent} ${event.status}: ${oneLine(event.summary, 160)}`),
        );
      case 'notice': {
        const paint = event.level === 'error' ? s.red : event.level === 'warning' ? s.yellow : s.dim;
        return this.status(paint(event.level === 'info' ? event.message : `crow: ${event.level}: ${event.message}`));
      }
      case 'run_complete':
        if (event.status === 'completed' || event.status === 'needs_input') return;
        return this.status((event.status === 'error' ? s.red : s.yellow)(`⚠ ${event.message}`));
      default:
        unreachable(event);
    }
  }

  /** The closing lines: tokens, tool calls, time, and how to continue the session. */
  finish(sessionId: string): void {
    const s = this.target.errStyle;
    const u = this.usage;
    const tokens = [`${count(u.input + u.cacheRead + u.cacheWrite)} in`, `${count(u.output)} out`];
    if (u.cacheRead > 0) tokens.push(`${count(u.cacheRead)} cache read`);
    if (u.cacheWrite > 0) tokens.push(`${count(u.cacheWrite)} cache write`);
    if (u.reasoning > 0) tokens.push(`${count(u.reasoning)} reasoning`);
    const calls = `${this.toolCalls} tool call${this.toolCalls === 1 ? '' : 's'}`;
    this.status(s.dim(`${tokens.join(' · ')} · ${calls} · ${duration(Date.now() - this.started)}`));
    this.status(s.dim(`session ${sessionId} · continue it with: crow run --continue "..."`));
  }

  /** Names the agent whenever another one starts acting, so a person always knows who is at work. */
  private noteSpeaker(event: AgentEvent): void {
    if (!SPEAKING.has(event.type)) return;
    if (this.speaker !== undefined && this.speaker !== event.agent) {
      this.status(this.target.errStyle.bold(`[${event.agent}]`));
    }
    this.speaker = event.agent;
  }

  private toolOutcome(event: Extract<AgentEvent, { type: 'tool_call_end' }>): string {
    const s = this.target.errStyle;
    const { result } = event;
    const time = s.dim(duration(event.durationMs));
    const kind = this.kinds.get(event.callId);
    this.kinds.delete(event.callId);
    if (result.status === 'success') {
      const detail = successDetail(kind, result);
      return `  ${s.green('✓')} ${time}${detail ? ` ${s.dim(detail)}` : ''}`;
    }
    const mark = result.status === 'cancelled' ? s.yellow('⊘ cancelled') : s.red('✗');
    return `  ${mark} ${oneLine(result.error ?? '', 160)} ${time}`;
  }

  private stream(channel: 'text' | 'thinking', delta: string): void {
    if (this.channel !== channel) this.breakLine();
    this.channel = channel;
    if (channel === 'text') this.target.out.write(delta);
    else this.target.err.write(this.target.errStyle.dim(delta));
    this.lineOpen = !delta.endsWith('\n');
  }

  private status(line: string): void {
    this.breakLine();
    this.channel = 'status';
    this.target.err.write(`${line}\n`);
  }

  private breakLine(): void {
    if (!this.lineOpen) return;
    if (this.channel === 'text') this.target.out.write('\n');
    else this.target.err.write('\n');
    this.lineOpen = false;
  }
}

/** One line on what a successful call did: a command's exit code and last line, an edit's size. */
function successDetail(kind: ToolKind | undefined, result: ToolResult): string {
  if (kind === 'execute') {
    const exitCode = result.metadata.extra.exitCode;
    const lines = result.output.split('\n').filter((line) => line.trim() !== '' && !/^\[(exit code|killed)/.test(line));
    const last = lines.at(-1);
    return [typeof exitCode === 'number' ? `exit ${exitCode}` : '', last ? oneLine(last, 160) : ''].filter(Boolean).join(' · ');
  }
  if (kind === 'edit') return oneLine(result.output, 160);
  return '';
}

/** Events whose agent is the one visibly at work. */
const SPEAKING = new Set<AgentEvent['type']>(['text_delta', 'thinking_delta', 'tool_call_start']);

const REVIEW_LINES: Record<ReviewVerdict, (agent: string, s: Style) => string> = {
  approved: (agent, s) => s.green(`✓ ${agent} approved`),
  feedback: (agent, s) => s.yellow(`↩ ${agent} sent the work back with feedback`),
  cancelled: (agent, s) => s.yellow(`⊘ ${agent}'s review was cancelled`),
  error: (agent, s) => s.red(`✖ ${agent}'s review failed`),
};

