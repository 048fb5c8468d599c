/**
 * The charts and tables of an eval report page (src/eval/eval-report.ts):
 * reads the page's embedded JSON and draws with Chart.js, registered piece by
 * piece so the bundle holds only what these three charts use.
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
import type { ReportData } from './report-data';

Chart.register(BarController, BarElement, CategoryScale, LinearScale, PointElement, ScatterController, Legend, Tooltip);
// A report is read, printed and screenshotted: drawn at once, not grown into place.
Chart.defaults.animation = false;

const data = JSON.parse(document.getElementById('eval-data')!.textContent!) as ReportData;
const { agents, summary } = data;
const colors = ['#4e79a7', '#f28e2b', '#59a14f', '#e15759', '#76b7b2', '#edc948', '#b07aa1', '#ff9da7'];
const colorOf = (i: number): string => colors[i % colors.length]!;
const priced = summary.agents.every((agent) => agent.medianCostUsd !== undefined);

document.getElementById('lede')!.textContent =
  `${data.results.length} runs of ${Object.keys(summary.tasks).length} tasks by ${agents.join(', ')} · ${new Date(data.generatedAt).toLocaleString()}`;

// Success rate: a bar per agent, its 95% interval as a floating bar over it.
new Chart(document.getElementById('success') as HTMLCanvasElement, {
  type: 'bar',
  data: {
    labels: summary.agents.map((agent) => agent.agent),
    datasets: [
      { label: 'success rate', data: summary.agents.map((agent) => agent.rate * 100), backgroundColor: summary.agents.map((_, i) => colorOf(i)) },
      {
        label: '95% interval',
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
    scales: { x: { stacked: false }, y: { min: 0, max: 100, title: { display: true, text: '% of runs passing the hidden check' } } },
  },
});

// Cost (or tokens, without prices) against success: a point per agent.
new Chart(document.getElementById('scatter') as HTMLCanvasElement, {
  type: 'scatter',
  data: {
    datasets: summary.agents.map((agent, i) => ({
      label: agent.agent,
      data: [{ x: priced ? (agent.medianCostUsd ?? 0) : agent.medianTokens, y: agent.rate * 100 }],
      backgroundColor: colorOf(i),
      pointRadius: 8,
    })),
  },
  options: {
    maintainAspectRatio: false,
    scales: {
      x: { title: { display: true, text: priced ? 'median cost per run (USD)' : 'median tokens per run (no prices configured)' }, beginAtZero: true },
      y: { min: 0, max: 100, title: { display: true, text: 'success rate %' } },
    },
  },
});

// Per task: passes of runs for each agent, coloured.
const grid = document.createElement('table');
const head = grid.createTHead().insertRow();
for (const title of ['task', 'category', ...agents]) head.appendChild(document.createElement('th')).textContent = title;
const body = grid.createTBody();
for (const [task, { category, byAgent }] of Object.entries(summary.tasks).sort(([a], [b]) => a.localeCompare(b))) {
  const row = body.insertRow();
  row.insertCell().textContent = task;
  row.insertCell().textContent = category;
  for (const agent of agents) {
    const cell = byAgent[agent];
    const td = row.insertCell();
    td.textContent = cell ? `${cell.passed}/${cell.runs}` : '—';
    if (cell) td.className = cell.passed === cell.runs ? 'pass' : cell.passed === 0 ? 'fail' : 'mixed';
  }
}
document.getElementById('grid')!.appendChild(grid);

const table = document.createElement('table');
const tableHead = table.createTHead().insertRow();
for (const title of ['agent', 'solved', 'rate (95% interval)', 'median cost', 'median time', 'cost per solved', 'review rounds']) {
  tableHead.appendChild(document.createElement('th')).textContent = title;
}
const tableBody = table.createTBody();
const usd = (value: number | undefined): string => (value === undefined ? '—' : `$${value.toFixed(4)}`);
for (const agent of summary.agents) {
  const row = tableBody.insertRow();
  for (const text of [
    agent.agent,
    `${agent.passed}/${agent.runs}`,
    `${Math.round(agent.rate * 100)}% (${Math.round(agent.low * 100)}–${Math.round(agent.high * 100)}%)`,
    usd(agent.medianCostUsd),
    `${(agent.medianWallMs / 1000).toFixed(1)} s`,
    usd(agent.costPerSolvedUsd),
    String(agent.reviewRounds),
  ]) {
    row.insertCell().textContent = text;
  }
}
document.getElementById('table')!.appendChild(table);
