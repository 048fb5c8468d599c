/**
 * An evaluation's report: markdown for the terminal, and a self-contained
 * HTML page whose charts are drawn by Chart.js (bundled into
 * dist/webview/eval-report.js and inlined, so the page works offline and
 * from a file).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { EvalResult } from './eval-run';
import type { ReportData } from '../../webview/eval-report/report-data';
import { summarize } from './eval-stats';

export function markdownReport(results: readonly EvalResult[], agents: readonly string[]): string {
  const summary = summarize(results, agents);
  const lines = ['# Crow eval', '', `${results.length} runs of ${Object.keys(summary.tasks).length} tasks.`, ''];
  lines.push('| agent | solved | success rate (95% interval) | median cost | median time | median tokens | cost per solved | review rounds |');
  lines.push('|---|---|---|---|---|---|---|---|');
  for (const a of summary.agents) {
    lines.push(
      `| ${a.agent} | ${a.passed}/${a.runs} | ${percent(a.rate)} (${percent(a.low)}–${percent(a.high)}) | ${usd(a.medianCostUsd)} | ${seconds(a.medianWallMs)} | ${Math.round(a.medianTokens).toLocaleString('en-US')} | ${usd(a.costPerSolvedUsd)} | ${a.reviewRounds} |`,
    );
  }
  lines.push('', '## By category', '', `| category | ${agents.join(' | ')} |`, `|---|${agents.map(() => '---').join('|')}|`);
  for (const [category, byAgent] of Object.entries(summary.categories).sort()) {
    lines.push(`| ${category} | ${agents.map((agent) => cell(byAgent[agent])).join(' | ')} |`);
  }
  lines.push('', '## By task', '', `| task | category | ${agents.join(' | ')} |`, `|---|---|${agents.map(() => '---').join('|')}|`);
  for (const [task, { category, byAgent }] of Object.entries(summary.tasks).sort()) {
    lines.push(`| ${task} | ${category} | ${agents.map((agent) => cell(byAgent[agent])).join(' | ')} |`);
  }
  if (agents.length > 1) {
    lines.push('', '## Solved by one agent and not the other', '');
    for (const { a, b, tasks } of summary.pairwise) lines.push(`- ${a} not ${b}: ${tasks.length === 0 ? 'none' : `${tasks.length} (${tasks.join(', ')})`}`);
  }
  const failures = results.filter((result) => !result.passed);
  if (failures.length > 0) {
    lines.push('', '## Runs that failed', '');
    for (const run of failures) {
      lines.push(`- ${run.task} · ${run.agent} #${run.repeat}: ${run.ended}${run.reason ? ` — ${run.reason}` : ''} (crow trace ${run.sessionId})`);
    }
  }
  return `${lines.join('\n')}\n`;
}

/**
 * A self-contained HTML page. `nonce`, when given, is put on the page's
 * scripts and in its Content-Security-Policy (a VS Code webview); the page
 * loads nothing from anywhere.
 */
export function htmlReport(results: readonly EvalResult[], agents: readonly string[], options: { script: string; nonce?: string }): string {
  const data: ReportData = { agents, summary: summarize(results, agents), results, generatedAt: new Date().toISOString() };
  const nonce = options.nonce ?? 'crow-eval';
  // `</` inside the JSON would end the script element early: escape it.
  const json = JSON.stringify(data).replace(/</g, '\\u003c');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'nonce-${nonce}'; img-src data:">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Crow eval report</title>
<style>${STYLE}</style>
</head>
<body>
<h1>Crow eval</h1>
<p id="lede"></p>
<section><h2>Success rate per agent (95% interval)</h2><div class="chart"><canvas id="success"></canvas></div></section>
<section><h2>Cost against success</h2><div class="chart"><canvas id="scatter"></canvas></div></section>
<section><h2>Per task</h2><div id="grid"></div></section>
<section><h2>Agents</h2><div id="table"></div></section>
<script type="application/json" id="eval-data">${json}</script>
<script nonce="${nonce}">${options.script}</script>
</body>
</html>
`;
}

/** The page's script, built by esbuild into dist/webview/eval-report.js. */
export function reportScript(): string {
  const candidates = [join(__dirname, 'webview'), join(__dirname, '..', '..', 'dist', 'webview'), join(__dirname, '..', '..', '..', 'dist', 'webview')];
  const dir = candidates.find((candidate) => existsSync(join(candidate, 'eval-report.js')));
  if (!dir) throw new Error('The eval report script is not built (no dist/webview/eval-report.js); run: npm run build');
  // The page is one file: a source map comment would point at nothing.
  return readFileSync(join(dir, 'eval-report.js'), 'utf8').replace(/\n\/\/# sourceMappingURL=.*\s*$/, '\n');
}

const STYLE = `
body { font: 14px/1.45 system-ui, sans-serif; margin: 24px auto; max-width: 1100px; padding: 0 16px; color: #1f2328; background: #fff; }
@media (prefers-color-scheme: dark) { body { color: #e6edf3; background: #0d1117; } td, th { border-color: #30363d !important; } }
h1 { font-size: 22px; } h2 { font-size: 16px; margin-top: 28px; }
.chart { position: relative; height: 320px; }
table { border-collapse: collapse; width: 100%; } td, th { border: 1px solid #d0d7de; padding: 4px 8px; text-align: left; }
td.pass { background: #2da44e33; } td.fail { background: #cf222e33; } td.mixed { background: #d2992233; }
`;

function cell(value: { passed: number; runs: number } | undefined): string {
  return value ? `${value.passed}/${value.runs}` : '—';
}

function percent(value: number): string {
  return `${Math.round(value * 100)}%`;
}

function usd(value: number | undefined): string {
  return value === undefined ? '—' : `$${value.toFixed(4)}`;
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}
