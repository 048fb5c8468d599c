/**
 * The panel for the selected span: its headline figures by kind, totals for
 * prompts and agent turns, then every attribute. JSON (objects, and strings
 * holding JSON such as a tool call's arguments) is shown pretty-printed with
 * collapsible objects; strings keep their line breaks. Text only.
 */
import type { AttributeValue, SpanRecord } from '../../src/telemetry/span';
import { cost, count, duration, num, text, type Status } from './format';
import type { Totals } from './model';
import { reviewOf, storyLine } from './story';
import type { ViewMode } from './toolbar';
import { el } from './element';
import { t } from './l10n';

type Field = [label: string, value: string | Node];

/** A review's verdict in words (a function: the words are read when drawing, after the page's bundle). */
function verdictText(verdict: string): string {
  return ({ approved: t('approved'), feedback: t('asked for changes'), cancelled: t('cancelled before a verdict'), error: t('failed before a verdict') } as Record<string, string>)[verdict] ?? verdict;
}

/** What the panel shows of a span: `now` (set while the trace is recorded) times the spans still running. */
export interface DetailsView {
  span: SpanRecord | undefined;
  /** The span's status in the viewer (format.ts statusOf). */
  status: Status;
  totals: Totals | undefined;
  now: number | undefined;
  mode: ViewMode;
}

export function renderDetails(panel: HTMLElement, { span, status, totals, now, mode }: DetailsView): void {
  if (!span) {
    panel.replaceChildren(paragraph(t('Select a span to see its details.')));
    return;
  }
  const heading = el('h2', 'details-title');
  heading.textContent = mode === 'story' ? storyLine(span) : span.name;
  const sections = [heading];
  const review = reviewOf(span);
  if (review) sections.push(table(t('Review'), [[t('verdict'), verdictText(review.verdict)], [t('feedback'), review.feedback]].filter(([, value]) => value !== '') as Field[]));
  sections.push(table(t('Span'), spanFields(span, status, now)), table(kindTitle(span), kindFields(span)));
  if (totals) sections.push(table(t('Totals'), totalFields(totals)));
  const attributes = Object.entries(span.attributes).map(([key, value]): Field => [key, valueNode(value)]);
  sections.push(table(t('Attributes'), attributes));
  panel.replaceChildren(...sections);
}

function spanFields(span: SpanRecord, status: Status, now: number | undefined): Field[] {
  const took =
    span.end !== undefined ? duration(span.end - span.start) : status === 'loading' ? t('not known yet') : now !== undefined ? t`${duration(now - span.start)} so far` : t('never ended');
  const fields: Field[] = [
    [t('name'), span.name],
    [t('kind'), span.kind],
    [t('status'), status],
    [t('agent'), span.agent ?? ''],
    [t('role'), span.role ?? ''],
    [t('duration'), took],
    [t('started'), new Date(span.start).toISOString()],
    [t('span id'), span.spanId],
  ];
  if (span.statusMessage) fields.push([t('message'), span.statusMessage]);
  if (status === 'unfinished') fields.push([t('note'), t('The process recording this session stopped before this span ended.')]);
  if (status === 'loading') fields.push([t('note'), t('Its end is further on in the trace, which is still loading.')]);
  return fields.filter(([, value]) => value !== '');
}

function kindTitle(span: SpanRecord): string {
  return { llm_call: t('LLM call'), tool: t('Tool call'), handoff: t('Handoff'), prompt: t('Prompt'), agent_turn: t('Agent turn'), subagent: t('Subagent'), hook: t('Hook'), mcp: t('MCP exchange') }[span.kind];
}

function kindFields(span: SpanRecord): Field[] {
  const a = span.attributes;
  const figure = (key: string, show: (n: number) => string): string => {
    const value = num(span, key);
    return value === undefined ? '' : show(value);
  };
  const fields: Field[] =
    span.kind === 'llm_call'
      ? [
          [t('model'), text(a['gen_ai.response.model'] ?? a['gen_ai.request.model'])],
          [t('provider'), text(a['gen_ai.provider.name'])],
          [t('tokens in'), figure('gen_ai.usage.input_tokens', count)],
          [t('tokens out'), figure('gen_ai.usage.output_tokens', count)],
          [t('cached'), figure('gen_ai.usage.cache_read.input_tokens', count)],
          [t('reasoning'), figure('gen_ai.usage.reasoning.output_tokens', count)],
          [t('time to first token'), figure('crow.time_to_first_token_ms', duration)],
          [t('cost'), figure('crow.cost_usd', cost)],
          [t('finish reason'), text(a['gen_ai.response.finish_reasons'])],
        ]
      : span.kind === 'tool'
        ? [
            [t('tool'), text(a['gen_ai.tool.name'])],
            [t('arguments'), a['gen_ai.tool.call.arguments'] === undefined ? '' : valueNode(a['gen_ai.tool.call.arguments'])],
            [t('status'), text(a['crow.tool.status'])],
            [t('duration'), figure('crow.tool.duration_ms', duration)],
            [t('files changed'), text(a['crow.tool.files_modified'])],
          ]
        : span.kind === 'handoff'
          ? [
              [t('from'), text(a['handoff.from'] ?? span.agent ?? '')],
              [t('to'), text(a['handoff.to'] ?? a['crow.handoff.to'])],
              [t('purpose'), text(a['crow.handoff.purpose'])],
              [t('text'), text(a['handoff.prompt'] ?? a['crow.handoff.text'])],
            ]
          : span.kind === 'prompt'
            ? [[t('prompt'), text(a['crow.prompt'])], [t('run'), text(a['crow.run.status'])]]
            : span.kind === 'hook'
              ? [
                  [t('event'), text(a['crow.hook.event'])],
                  [t('command'), text(a['crow.hook.command'])],
                  [t('matcher'), text(a['crow.hook.matcher'])],
                  [t('tool'), text(a['crow.hook.tool'])],
                  [t('decision'), text(a['crow.hook.decision'])],
                  [t('reason'), text(a['crow.hook.reason'])],
                  [t('exit code'), text(a['crow.hook.exit_code'])],
                  [t('duration'), figure('crow.hook.duration_ms', duration)],
                  [t('configured in'), text(a['crow.hook.source'])],
                ]
              : [];
  return fields.filter(([, value]) => value !== '');
}

/** A value as it reads best: JSON as a tree, text with its line breaks, anything else as text. */
export function valueNode(value: unknown): Node {
  if (typeof value === 'string') {
    const json = parsedJson(value);
    if (json !== undefined) return jsonNode(json, 0);
    const block = el('div', value.includes('\n') ? 'value-text multiline' : 'value-text');
    block.textContent = value;
    return block;
  }
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) return jsonNode(value, 0);
  const plain = el('span', 'value-text');
  plain.textContent = text(value as AttributeValue | undefined);
  return plain;
}

/** An object or array a string holds; undefined for any other string. */
function parsedJson(value: string): object | undefined {
  const trimmed = value.trim();
  if (!/^[[{]/.test(trimmed)) return undefined;
  try {
    const parsed: unknown = JSON.parse(trimmed);
    return parsed !== null && typeof parsed === 'object' ? parsed : undefined;
  } catch {
    return undefined;
  }
}

/** Objects and arrays fold (open two levels deep); leaves are JSON literals, strings with their line breaks. */
function jsonNode(value: unknown, depth: number): Node {
  if (value === null || typeof value !== 'object') {
    const leaf = el('span', `json-${value === null ? 'null' : typeof value}`);
    leaf.textContent = typeof value === 'string' ? JSON.stringify(value).slice(1, -1).replace(/\\n/g, '\n') : String(value);
    if (typeof value === 'string') leaf.classList.add('json-quoted');
    return leaf;
  }
  const entries = Array.isArray(value) ? value.map((item, i): [string, unknown] => [String(i), item]) : Object.entries(value);
  const fold = document.createElement('details');
  fold.className = 'json';
  fold.open = depth < 2;
  const summary = document.createElement('summary');
  const size = Array.isArray(value) ? (entries.length === 1 ? t('1 item') : t`${entries.length} items`) : entries.length === 1 ? t('1 key') : t`${entries.length} keys`;
  summary.textContent = Array.isArray(value) ? `[ ${size} ]` : `{ ${size} }`;
  fold.append(summary);
  for (const [key, item] of entries) {
    const line = el('div', 'json-entry');
    const name = el('span', 'json-key');
    name.textContent = `${key}: `;
    line.append(name, jsonNode(item, depth + 1));
    fold.append(line);
  }
  return fold;
}

function totalFields(totals: Totals): Field[] {
  const fields: Field[] = [
    [t('LLM calls'), count(totals.llmCalls)],
    [t('tool calls'), count(totals.toolCalls)],
    [t('tokens in'), count(totals.inputTokens)],
    [t('tokens out'), count(totals.outputTokens)],
    [t('cached'), count(totals.cachedTokens)],
    [t('cost'), totals.pricedCalls > 0 ? cost(totals.costUsd) : totals.llmCalls > 0 ? t('not priced') : ''],
    [t('errors'), count(totals.errors)],
  ];
  return fields.filter(([, value]) => value !== '');
}

function table(title: string, fields: Field[]): HTMLElement {
  const section = el('section', 'details-section');
  if (fields.length === 0) return section;
  const heading = el('h3', '');
  heading.textContent = title;
  const list = el('dl', '');
  for (const [label, value] of fields) {
    const term = el('dt', '');
    term.textContent = label;
    const description = el('dd', '');
    if (typeof value === 'string') description.textContent = value;
    else description.append(value);
    list.append(term, description);
  }
  section.append(heading, list);
  return section;
}

function paragraph(content: string): HTMLElement {
  const element = el('p', 'details-empty');
  element.textContent = content;
  return element;
}
