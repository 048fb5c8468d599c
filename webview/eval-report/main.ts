/**
 * The charts and tables of an eval report page (src/eval/eval-report.ts):
 * reads the page's embedded JSON and draws with Chart.js, registered piece by
 * piece so the bundle holds only what these charts use. Everything the
 * markdown report says is here too, plus each run's diff and check log.
 */
import {
  BarController,
  BarElement,
  CategoryScale,
  Chart,
  Legend,
  LinearScale,
  PointElement,
  ScatterController,
  Tooltip,
} from 'chart.js';
import type { AgentSummary, ReportData, RunView } from './report-data';
import { t, usePageBundle } from './l10n';

Chart.register(BarController, BarElement, CategoryScale, LinearScale, PointElement, ScatterController, Legend, Tooltip);
// A report is read, printed and screenshotted: drawn at once, not grown into place.
Chart.defaults.animation = false;

// The display language's words (a page VS Code shows), before anything is drawn.
usePageBundle();

const data = JSON.parse(document.getElementById('eval-data')!.textContent!) as ReportData;
const { agents, summary } = data;
const colors = ['#4e79a7', '#f28e2b', '#59a14f', '#e15759', '#76b7b2', '#edc948', '#b07aa1', '#ff9da7'];
const colorOf = (i: number): string => colors[i % colors.length]!;
const priced = summary.agents.every((agent) => agent.medianCostUsd !== undefined);
const k = Math.max(1, ...summary.agents.map((agent) => agent.k));
const percent = (value: number): string => `${Math.round(value * 100)}%`;
const usd = (value: number | undefined): string => (value === undefined ? '—' : `$${value.toFixed(4)}`);
const count = (value: number): string => Math.round(value).toLocaleString('en-US');
const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;
const tokensOf = (run: RunView): number => run.tokens.input + run.tokens.output + run.tokens.cacheRead + run.tokens.cacheWrite;

document.getElementById('lede')!.textContent =
  `${t`${data.runs.length} runs of ${Object.keys(summary.tasks).length} tasks by ${agents.join(', ')}`} \u00b7 ${data.provenance} \u00b7 ${new Date(data.generatedAt).toLocaleString()}`;

/** A table of `rows` under `titles`, into the element with id `into`; a cell may carry a class. */
function table(into: string, titles: string[], rows: (string | { text: string; className: string })[][]): void {
  const element = document.createElement('table');
  const head = element.createTHead().insertRow();
  for (const title of titles) head.appendChild(document.createElement('th')).textContent = title;
  const body = element.createTBody();
  for (const row of rows) {
    const tr = body.insertRow();
    for (const value of row) {
      const td = tr.insertCell();
      if (typeof value === 'string') td.textContent = value;
      else {
        td.textContent = value.text;
        td.className = value.className;
      }
    }
  }
  document.getElementById(into)!.appendChild(element);
}

function shaded(cell: { passed: number; runs: number } | undefined): string | { text: string; className: string } {
  if (!cell) return '—';
  return { text: `${cell.passed}/${cell.runs}`, className: cell.passed === cell.runs ? 'pass' : cell.passed === 0 ? 'fail' : 'mixed' };
}

function agentRow(agent: AgentSummary): string[] {
  return [
    agent.agent,
    `${agent.passed}/${agent.runs}`,
    `${percent(agent.rate)} (${percent(agent.low)}–${percent(agent.high)})`,
    ...(k > 1 ? [percent(agent.passAtK), percent(agent.passHatK)] : []),
    usd(agent.medianCostUsd),
    usd(agent.totalCostUsd),
    seconds(agent.medianWallMs),
    count(agent.medianTokens),
    count(agent.totalTokens),
    usd(agent.costPerSolvedUsd),
    String(agent.reviewRounds),
  ];
}

table(
  'table',
  [t('agent'), t('solved'), t('rate (95% interval)'), ...(k > 1 ? [t`pass@${k}`, t`pass^${k}`] : []), t('median cost'), t('total cost'), t('median time'), t('median tokens'), t('total tokens'), t('cost per solved'), t('review rounds')],
  summary.agents.map(agentRow),
);

// Success rate: a bar per agent, its 95% interval as a floating bar over it.
new Chart(document.getElementById('success') as HTMLCanvasElement, {
  type: 'bar',
  data: {
    labels: summary.agents.map((agent) => agent.agent),
    datasets: [
      { label: t('success rate'), data: summary.agents.map((agent) => agent.rate * 100), backgroundColor: summary.agents.map((_, i) => colorOf(i)) },
      {
        label: t('95% interval'),
        // A floating bar: Chart.js takes [from, to] pairs, which its types for a mixed bar chart do not know.
        data: summary.agents.map((agent) => [agent.low * 100, agent.high * 100]) as unknown as number[],
        backgroundColor: 'rgba(128,128,128,0.25)',
        borderColor: 'rgba(128,128,128,0.9)',
        borderWidth: 1,
        // Over the agent's bar rather than beside it, and narrower, so the bar shows through.
        grouped: false,
        barPercentage: 0.25,
        order: -1,
      },
    ],
  },
  options: {
    maintainAspectRatio: false,
    scales: { x: { stacked: false }, y: { min: 0, max: 100, title: { display: true, text: t('% of runs passing the hidden check') } } },
  },
});

// Cost (or tokens, without prices) against success: a point per agent, on an axis that leaves room on both sides of the points.
const xs = summary.agents.map((agent) => (priced ? (agent.medianCostUsd ?? 0) : agent.medianTokens));
const xMax = Math.max(...xs, 0);
const xMin = Math.min(...xs, xMax);
const pad = xMax === xMin ? Math.max(xMax * 0.5, priced ? 0.001 : 100) : (xMax - xMin) * 0.25;
const scatter = document.getElementById('scatter') as HTMLCanvasElement;
// The range given to the x axis, readable from the page (tests check that every point sits inside it).
scatter.dataset.xMin = String(Math.max(0, xMin - pad));
scatter.dataset.xMax = String(xMax + pad);
new Chart(scatter, {
  type: 'scatter',
  data: {
    datasets: summary.agents.map((agent, i) => ({
      label: agent.agent,
      data: [{ x: xs[i]!, y: agent.rate * 100 }],
      backgroundColor: colorOf(i),
      pointRadius: 8,
      // A point at 0% or 100% is drawn whole, not cut by the chart's edge.
      clip: false as const,
    })),
  },
  options: {
    maintainAspectRatio: false,
    layout: { padding: { top: 12, right: 12 } },
    scales: {
      x: {
        title: { display: true, text: priced ? t('median cost per run (USD)') : t('median tokens per run (no prices configured)') },
        min: Math.max(0, xMin - pad),
        max: xMax + pad,
        ticks: { includeBounds: false },
      },
      y: { min: 0, max: 100, title: { display: true, text: t('success rate %') } },
    },
  },
});

table(
  'categories',
  [t('category'), ...agents],
  Object.entries(summary.categories)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([category, byAgent]) => [category, ...agents.map((agent) => shaded(byAgent[agent]))]),
);

if (agents.length > 1) {
  table(
    'pairwise',
    [t('agent'), t('not'), t('tasks solved by the first only'), t('difference (95% paired bootstrap)'), t('exact McNemar p')],
    summary.pairwise.map((c) => [
      c.a,
      c.b,
      c.tasks.length === 0 ? t('none') : `${c.tasks.length}: ${c.tasks.join(', ')}`,
      t`${Math.round(c.difference * 100)} points (${Math.round(c.low * 100)} to ${Math.round(c.high * 100)}) over ${c.sharedTasks} tasks`,
      c.pValue >= 0.001 ? c.pValue.toFixed(3) : '< 0.001',
    ]),
  );
} else {
  document.getElementById('pairwise-section')!.hidden = true;
}

// crow eval --attempts N: each agent's single run beside its best-of arm and the oracle, the paired comparison, the judge's accuracy.
if (data.bestOf && data.bestOf.length > 0) {
  const figures = (name: string): AgentSummary | undefined => summary.agents.find((agent) => agent.agent === name);
  const rate = (value: number, low: number, high: number): string => `${percent(value)} (${percent(low)}–${percent(high)})`;
  for (const b of data.bestOf) {
    const single = figures(b.agent);
    const best = figures(b.label);
    if (!single || !best) continue;
    const c = b.comparison;
    const id = `best-of-${b.label}`;
    const holder = document.getElementById('best-of')!.appendChild(document.createElement('div'));
    holder.id = id;
    table(
      id,
      ['', t`${b.agent} (one attempt)`, b.label, t`oracle (any of ${b.count} passed)`],
      [
        [t('solved'), `${single.passed}/${single.runs}`, `${best.passed}/${best.runs}`, `${b.oracle.passed}/${b.oracle.runs}`],
        [t('success rate (95% interval)'), rate(single.rate, single.low, single.high), rate(best.rate, best.low, best.high), rate(b.oracle.rate, b.oracle.low, b.oracle.high)],
        [t('total cost'), usd(single.totalCostUsd), usd(best.totalCostUsd), '—'],
        [t('median time'), seconds(single.medianWallMs), seconds(best.medianWallMs), '—'],
        [t('total tokens'), count(single.totalTokens), count(best.totalTokens), '—'],
      ],
    );
    const note = holder.appendChild(document.createElement('p'));
    const p = c.pValue >= 0.001 ? c.pValue.toFixed(3) : '< 0.001';
    note.textContent = [
      `${b.label} \u2212 ${b.agent}: ${t`${Math.round(c.difference * 100)} points (95% paired bootstrap ${Math.round(c.low * 100)} to ${Math.round(c.high * 100)}) over ${c.sharedTasks} tasks`}`,
      t`exact McNemar p = ${p}`,
      t`judged by ${b.judge}: picked a passing attempt in ${b.judgeAccuracy.picked} of ${b.judgeAccuracy.of} runs where one passed; its ranking used in ${b.judged} of ${b.runs} runs.`,
    ].join(' \u00b7 ');
  }
}

table(
  'grid',
  [t('task'), t('category'), ...agents],
  Object.entries(summary.tasks)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([task, { category, byAgent }]) => [task, category, ...agents.map((agent) => shaded(byAgent[agent]))]),
);

const failed = data.runs.filter((run) => !run.passed);
if (failed.length === 0) document.getElementById('failed')!.textContent = t('None.');
else {
  table(
    'failed',
    [t('run'), t('ended'), t('why'), t('tokens'), t('trace')],
    failed.map((run) => [`${run.task} · ${run.agent} #${run.repeat}`, run.ended, run.reason ?? '', count(tokensOf(run)), traceLine(run)]),
  );
}

function traceLine(run: RunView): string {
  return run.traceId ? t`crow trace ${run.sessionId} (trace id ${run.traceId})` : `crow trace ${run.sessionId}`;
}

// Every run, each a <details> holding its figures, its diff and its check log.
const runs = document.getElementById('runs')!;
for (const run of [...data.runs].sort((a, b) => `${a.task}${a.agent}${a.repeat}`.localeCompare(`${b.task}${b.agent}${b.repeat}`))) {
  const details = document.createElement('details');
  const title = details.appendChild(document.createElement('summary'));
  const mark = title.appendChild(document.createElement('span'));
  mark.className = run.passed ? 'pass' : 'fail';
  mark.textContent = run.passed ? '✓ ' : '✗ ';
  title.appendChild(document.createTextNode(`${run.task} · ${run.agent} #${run.repeat} — ${run.ended}${run.reason ? `: ${run.reason}` : ''}`));
  const facts = details.appendChild(document.createElement('p'));
  facts.textContent = `${t`${count(tokensOf(run))} tokens \u00b7 ${run.modelCalls} model calls \u00b7 ${run.toolCalls} tool calls`} \u00b7 ${seconds(run.wallMs)} \u00b7 ${usd(run.costUsd)} \u00b7 `;
  facts.appendChild(document.createElement('code')).textContent = traceLine(run);
  for (const [label, text] of [
    [t('Diff'), run.diff || t('(no change)')],
    [t('Check log'), run.checkLog || t('(no output)')],
  ] as const) {
    details.appendChild(document.createElement('h3')).textContent = label;
    details.appendChild(document.createElement('pre')).textContent = text;
  }
  runs.appendChild(details);
}
