/**
 * The story view's wording: each span as who did what ("builder · read
 * greeting.txt", "reviewer · asked for changes: …", "builder · model (1.2k
 * in / 80 out, $0.003)"), for rows a person reads rather than OpenTelemetry
 * span names. Pure functions of a span record, no DOM: every string here may
 * hold model output or repository text, and the caller sets it as text only.
 */
import type { SpanRecord } from '../../src/telemetry/span';
import { compactCount, cost, num, text } from './format';
import { t } from './l10n';

export interface StoryLabel {
  /** Who acted: an agent, "you" for the prompt, or "" when nobody in particular. */
  actor: string;
  /** What happened, on one line. */
  text: string;
}

/** How much of a prompt, a command or a review a row keeps; its tooltip keeps up to WHOLE, the details all of it. */
const CLIP = 160;
export const WHOLE = 2_000;
const ECHOED_VERDICT: Record<string, RegExp> = {
  approved: /^(?:approved|lgtm|looks good(?: to me)?)\b[\s:.,!—–-]*/i,
  feedback: /^(?:changes? requested|requesting changes|request(?:ed)? changes|needs? (?:changes|work))\b[\s:.,!—–-]*/i,
};

export function storyLabel(span: SpanRecord, max = CLIP): StoryLabel {
  const clip = (value: string): string => clipTo(value, max);
  const actor = span.agent ?? '';
  switch (span.kind) {
    case 'prompt':
      return { actor: t('you'), text: t`asked: ${clip(oneLine(text(span.attributes['crow.prompt']))) || t('(no prompt text)')}` };
    case 'agent_turn':
      return { actor, text: turnText(span, clip) };
    case 'subagent':
      return { actor, text: t('ran as a subagent') };
    case 'llm_call':
      return { actor, text: modelText(span) };
    case 'tool':
      return { actor, text: toolText(span, clip) };
    case 'handoff':
      return { actor: text(span.attributes['handoff.from']) || actor, text: handoffText(span) };
    case 'hook':
      return { actor, text: hookText(span) };
    case 'mcp':
      return { actor: text(span.attributes['crow.mcp.server']) || t('MCP'), text: clip(span.name) };
  }
}

/** The label as one line, e.g. for a tooltip or a screen reader (with a larger `max`): "builder · read greeting.txt". */
export function storyLine(span: SpanRecord, max = CLIP): string {
  const label = storyLabel(span, max);
  return label.actor !== '' ? `${label.actor} · ${label.text}` : label.text;
}

/** A review's verdict, when the span is a reviewer's turn that reached one. */
export function reviewOf(span: SpanRecord): { verdict: string; feedback: string } | undefined {
  const verdict = span.attributes['crow.review.verdict'];
  if (span.kind !== 'agent_turn' || typeof verdict !== 'string') return undefined;
  return { verdict, feedback: text(span.attributes['crow.review.feedback']) };
}

function turnText(span: SpanRecord, clip: (value: string) => string): string {
  const review = reviewOf(span);
  if (review) {
    const said = oneLine(review.feedback);
    // A review often opens with its own verdict ("Approved: …", "Changes requested: …"): the row says it once.
    const gist = clip(said.replace(ECHOED_VERDICT[review.verdict] ?? /^$/, '') || said);
    switch (review.verdict) {
      case 'approved':
        return gist ? t`approved: ${gist}` : t('approved');
      case 'feedback':
        return gist ? t`asked for changes: ${gist}` : t('asked for changes');
      case 'cancelled':
        return t('review cancelled');
      default:
        return t('review failed');
    }
  }
  const stop = text(span.attributes['crow.turn.stop_reason']);
  const calls = num(span, 'crow.turn.tool_calls');
  const did = span.role === 'coagent' || span.role === 'reviewer' ? t('reviewed') : stop === 'task_complete' ? t('worked, then handed over') : t('worked');
  if (calls === undefined || calls <= 0) return did;
  return calls === 1 ? t`${did} (1 tool call)` : t`${did} (${calls} tool calls)`;
}

/** "model (1.2k in / 80 out, $0.003)": what the call read and wrote, and what it cost when priced. */
export function modelText(span: SpanRecord): string {
  const input = num(span, 'gen_ai.usage.input_tokens');
  const output = num(span, 'gen_ai.usage.output_tokens');
  const usd = num(span, 'crow.cost_usd');
  const parts: string[] = [];
  if (input !== undefined || output !== undefined) parts.push(t`${compactCount(input ?? 0)} in / ${compactCount(output ?? 0)} out`);
  if (usd !== undefined) parts.push(cost(usd));
  return parts.length > 0 ? t`model (${parts.join(', ')})` : t('model');
}

/** What a tool call did, in the words of its main argument: "read greeting.txt", "ran `make`". */
export function toolText(span: SpanRecord, clip: (value: string) => string = (value) => clipTo(value, CLIP)): string {
  const a = span.attributes;
  const tool = text(a['gen_ai.tool.name']) || span.name.replace(/^execute_tool /, '');
  const args = argumentsOf(a['gen_ai.tool.call.arguments']);
  const arg = (key: string): string => clip(oneLine(typeof args[key] === 'string' ? (args[key] as string) : ''));
  const said = ((): string => {
    switch (tool) {
      case 'read_file':
        return t`read ${arg('path') || t('a file')}`;
      case 'write_file':
        return t`wrote ${arg('path') || changed(span) || t('a file')}`;
      case 'edit_file':
        return t`edited ${arg('path') || changed(span) || t('a file')}`;
      case 'list_directory':
        return t`listed ${arg('path') || '.'}`;
      case 'glob':
        return t`looked for files ${arg('pattern')}`.trim();
      case 'grep':
        return t`searched for ${arg('pattern')}`.trim();
      case 'bash':
        return arg('command') ? t`ran \`${arg('command')}\`` : t('ran a command');
      case 'web_fetch':
        return t`fetched ${arg('url')}`.trim();
      case 'web_search':
        return t`searched the web for ${arg('query')}`.trim();
      case 'task':
        return arg('task') ? t`gave ${arg('agent') || t('a subagent')} a task: ${arg('task')}` : t`gave ${arg('agent') || t('a subagent')} a task`;
      case 'task_complete':
        return arg('summary') ? t`finished: ${arg('summary')}` : t('finished');
      case 'todo_write':
        return t('updated the todo list');
      case 'todo_read':
        return t('read the todo list');
      case 'think':
        return t('thought');
      case 'request_approval':
        return arg('question') ? t`asked you: ${arg('question')}` : t('asked you');
      default:
        return t`used ${tool}`;
    }
  })();
  return span.status === 'error' ? t`${said} \u2014 failed` : span.status === 'cancelled' ? t`${said} \u2014 cancelled` : said;
}

function handoffText(span: SpanRecord): string {
  const a = span.attributes;
  const to = text(a['handoff.to'] ?? a['crow.handoff.to']) || '?';
  switch (text(a['crow.handoff.purpose'])) {
    case 'review':
      return t`handed the work to ${to} for review`;
    case 'feedback':
      return t`sent the feedback to ${to}`;
    case 'summary_request':
      return t`asked ${to} for a summary`;
    case 'follow_up':
      return t`passed the follow-up to ${to}`;
    default:
      return t`handed over to ${to}`;
  }
}

function hookText(span: SpanRecord): string {
  const a = span.attributes;
  const event = text(a['crow.hook.event']) || t('hook');
  const decision = text(a['crow.hook.decision']);
  return decision ? t`${event} hook: ${decision}` : t`${event} hook`;
}

function changed(span: SpanRecord): string {
  const files = span.attributes['crow.tool.files_modified'];
  return Array.isArray(files) ? files.join(', ') : '';
}

/** A tool call's arguments as stored (a JSON string); {} when they are not a JSON object. */
function argumentsOf(value: unknown): Record<string, unknown> {
  if (typeof value !== 'string') return {};
  try {
    const parsed: unknown = JSON.parse(value);
    return parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

function oneLine(value: string): string {
  return value.replace(/\s+/g, ' ').trim();
}

function clipTo(value: string, max: number): string {
  return value.length > max ? `${value.slice(0, max - 1)}…` : value;
}
