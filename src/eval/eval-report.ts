/**
 * An evaluation's report: markdown for the terminal, and a self-contained
 * HTML page with everything the markdown has plus a drill-down per run
 * (its diff, its check log, the `crow trace` command that opens it), whose
 * charts are drawn by Chart.js (bundled into dist/webview/eval-report.js
 * and inlined, so the page works offline and from a file).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { EvalResult } from './eval-run';
import type { ReportData, RunView } from '../../webview/eval-report/report-data';
import { type EvalManifest, provenance } from './eval-manifest';
import { readArtifact } from './eval-artifacts';
import { summarize, totalTokens } from './eval-stats';
import { bestOfMarkdown, bestOfSummaries } from './eval-best-of-stats';
import { count, percent, pValue, seconds, signedPoints, usd } from './report-format';
import { english, type Translate } from '../vocabulary/translate';

export interface ReportOptions {
  manifest?: EvalManifest;
  /** A line about runs the report lacks (unfinished, missing shards). */
  note?: string;
}

export function markdownReport(results: readonly EvalResult[], agents: readonly string[], options: ReportOptions = {}): string {
  const summary = summarize(results, agents, options.manifest?.seed);
  const lines = ['# Crow eval', '', `${results.length} runs of ${Object.keys(summary.tasks).length} tasks · ${provenance(options.manifest)}.`];
  if (options.note) lines.push('', options.note);
  const k = Math.max(...summary.agents.map((a) => a.k), 1);
  lines.push(
    '',
    'Success rate: mean over tasks of the share of runs passing; its 95% interval counts each task once (repeats of a task are not independent).',
    '',
    `| agent | solved | success rate (95% interval) |${k > 1 ? ` pass@${k} | pass^${k} |` : ''} median cost | total cost | median time | median tokens | total tokens | cost per solved | review rounds |`,
    `|---|---|---|${k > 1 ? '---|---|' : ''}---|---|---|---|---|---|---|`,
  );
  for (const a of summary.agents) {
    const passK = k > 1 ? ` ${percent(a.passAtK)} | ${percent(a.passHatK)} |` : '';
    lines.push(
      `| ${a.agent} | ${a.passed}/${a.runs} | ${percent(a.rate)} (${percent(a.low)}–${percent(a.high)}) |${passK} ${usd(a.medianCostUsd)} | ${usd(a.totalCostUsd)} | ${seconds(a.medianWallMs)} | ${count(a.medianTokens)} | ${count(a.totalTokens)} | ${usd(a.costPerSolvedUsd)} | ${a.reviewRounds} |`,
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
    for (const c of summary.pairwise) {
      lines.push(
        `- ${c.a} not ${c.b}: ${c.tasks.length === 0 ? 'none' : `${c.tasks.length} (${c.tasks.join(', ')})`} · ` +
          `${c.a} − ${c.b}: ${signedPoints(c.difference)} (95% paired bootstrap ${signedPoints(c.low)} to ${signedPoints(c.high)}) over ${c.sharedTasks} shared tasks · exact McNemar p = ${pValue(c.pValue)}`,
      );
    }
  }
  lines.push(...bestOfMarkdown(bestOfSummaries(results, summary), summary));
  const failures = results.filter((result) => !result.passed);
  if (failures.length > 0) {
    lines.push('', '## Runs that failed', '');
    for (const run of failures) {
      const where = [`crow trace ${run.sessionId}`, ...(run.traceId ? [`trace id ${run.traceId}`] : []), ...(run.artifacts ? [`diff ${run.artifacts.diff}`, `check log ${run.artifacts.checkLog}`] : [])];
      lines.push(`- ${run.task} · ${run.agent} #${run.repeat}: ${run.ended}${run.reason ? ` — ${run.reason}` : ''} · ${count(totalTokens(run))} tokens (${where.join(' · ')})`);
    }
  }
  return `${lines.join('\n')}\n`;
}

/** How much of a run's check log and diff the page carries; the files hold the rest. */
const PAGE_TEXT_CHARS = 20_000;

/**
 * A self-contained HTML page. `out` is the evaluation's folder, whose runs/
 * hold the diffs and check logs shown per run. `nonce`, when given, is put
 * on the page's scripts and in its Content-Security-Policy (a VS Code
 * webview); the page loads nothing from anywhere. VS Code also gives its `t`
 * and the display language's bundle (`l10n`, put in the page as data the
 * script reads before it draws); `crow eval`'s page for a browser is English.
 */
export function htmlReport(
  results: readonly EvalResult[],
  agents: readonly string[],
  options: ReportOptions & { script: string; nonce?: string; out?: string; t?: Translate; l10n?: Record<string, string> },
): string {
  const t = options.t ?? english;
  const runs: RunView[] = results.map((run) => ({
    task: run.task,
    agent: run.agent,
    repeat: run.repeat,
    passed: run.passed,
    ended: run.ended,
    ...(run.reason !== undefined ? { reason: run.reason } : {}),
    tokens: run.tokens,
    ...(run.costUsd !== undefined ? { costUsd: run.costUsd } : {}),
    wallMs: run.wallMs,
    modelCalls: run.modelCalls,
    toolCalls: run.toolCalls,
    sessionId: run.sessionId,
    ...(run.traceId !== undefined ? { traceId: run.traceId } : {}),
    diff: options.out ? clipText(readArtifact(options.out, run.artifacts?.diff)) : '',
    checkLog: options.out ? clipText(readArtifact(options.out, run.artifacts?.checkLog)) : '',
  }));
  const summary = summarize(results, agents, options.manifest?.seed);
  const bestOf = bestOfSummaries(results, summary);
  const data: ReportData = {
    agents,
    summary,
    ...(bestOf.length > 0 ? { bestOf } : {}),
    runs,
    provenance: `${provenance(options.manifest)}${options.note ? ` · ${options.note}` : ''}`,
    generatedAt: new Date().toISOString(),
  };
  const nonce = options.nonce ?? 'crow-eval';
  // `</` inside the JSON would end the script element early: escape it.
  const json = JSON.stringify(data).replace(/</g, '\\u003c');
  // A data block like eval-data: never run, "<" escaped so no translation can close it.
  const l10n = options.l10n !== undefined ? `<script type="application/json" id="crow-l10n">${JSON.stringify(options.l10n).replace(/</g, '\\u003c')}</script>\n` : '';
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'nonce-${nonce}'; img-src data:">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${text(t('Crow eval report'))}</title>
<style>${STYLE}</style>
</head>
<body>
<h1>${text(t('Crow eval'))}</h1>
<p id="lede"></p>
<section><h2>${text(t('Agents'))}</h2><p class="note">${text(t('Success rate: mean over tasks of the share of runs passing; the 95% interval counts each task once.'))}</p><div id="table"></div></section>
<section><h2>${text(t('Success rate per agent (95% interval)'))}</h2><div class="chart"><canvas id="success"></canvas></div></section>
<section><h2>${text(t('Cost against success'))}</h2><div class="chart"><canvas id="scatter"></canvas></div></section>
<section><h2>${text(t('By category'))}</h2><div id="categories"></div></section>
<section id="pairwise-section"><h2>${text(t('Solved by one agent and not the other'))}</h2><div id="pairwise"></div></section>
${bestOf.length > 0 ? bestOfSection(t) : ''}<section><h2>${text(t('Per task'))}</h2><div id="grid"></div></section>
<section><h2>${text(t('Runs that failed'))}</h2><div id="failed"></div></section>
<section><h2>${text(t('Every run'))}</h2><p class="note">${text(t('Open a run for its diff, its check log and the command that shows its trace.'))}</p><div id="runs"></div></section>
${l10n}<script type="application/json" id="eval-data">${json}</script>
<script nonce="${nonce}">${options.script}</script>
</body>
</html>
`;
}

/** The section of crow eval --attempts N, on its reports only. */
function bestOfSection(t: Translate): string {
  const title = t('Best of N against one attempt');
  const note = t('The same tasks as a single run and as N attempts ranked by a judge, with the same token budget per task; the oracle counts a run when any attempt passed.');
  return `<section id="best-of-section"><h2>${text(title)}</h2><p class="note">${text(note)}</p><div id="best-of"></div></section>
`;
}

/** Words as HTML text: a translation holding markup is shown, never run. */
function text(words: string): string {
  return words.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
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
@media (prefers-color-scheme: dark) { body { color: #e6edf3; background: #0d1117; } td, th { border-color: #30363d !important; } pre { background: #161b22 !important; } }
h1 { font-size: 22px; } h2 { font-size: 16px; margin-top: 28px; }
.note { color: #656d76; margin: 4px 0 8px; }
.chart { position: relative; height: 320px; }
table { border-collapse: collapse; width: 100%; } td, th { border: 1px solid #d0d7de; padding: 4px 8px; text-align: left; vertical-align: top; }
td.pass { background: #2da44e33; } td.fail { background: #cf222e33; } td.mixed { background: #d2992233; }
details { border: 1px solid #d0d7de; border-radius: 6px; margin: 6px 0; padding: 4px 8px; }
summary { cursor: pointer; } summary .fail { color: #cf222e; } summary .pass { color: #1a7f37; }
pre { background: #f6f8fa; padding: 8px; overflow: auto; max-height: 360px; font-size: 12px; }
code { font-size: 12px; }
`;

function clipText(text: string): string {
  return text.length <= PAGE_TEXT_CHARS ? text : `${text.slice(0, PAGE_TEXT_CHARS / 2)}\n[… ${text.length - PAGE_TEXT_CHARS} characters: see the file …]\n${text.slice(-PAGE_TEXT_CHARS / 2)}`;
}

function cell(value: { passed: number; runs: number } | undefined): string {
  return value ? `${value.passed}/${value.runs}` : '—';
}
