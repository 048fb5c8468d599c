/** What crow eval and its subcommands share: the evaluation's flags, --shard, and writing the reports. */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { htmlReport, markdownReport, type ReportOptions, reportScript } from '../../eval/eval-report';
import { UsageError } from './cli-io';

/** The flags of an evaluation, shared by crow eval and crow eval k8s (which passes them on to each shard). */
export const EVAL_OPTIONS = {
  agents: { type: 'string' },
  tasks: { type: 'string' },
  'tasks-dir': { type: 'string' },
  strict: { type: 'boolean' },
  repeat: { type: 'string' },
  concurrency: { type: 'string' },
  provider: { type: 'string' },
  model: { type: 'string' },
  'reviewer-model': { type: 'string' },
  'reviewer-provider': { type: 'string' },
  'role-model': { type: 'string', multiple: true },
  'budget-tokens': { type: 'string' },
  'budget-seconds': { type: 'string' },
  seed: { type: 'string' },
  backend: { type: 'string' },
  image: { type: 'string' },
} as const;

/** Writes report.md and report.html into `out`; returns the markdown. */
export function writeReports(out: string, results: Parameters<typeof markdownReport>[0], agents: readonly string[], options: ReportOptions): string {
  const markdown = markdownReport(results, agents, options);
  writeFileSync(join(out, 'report.md'), markdown, { mode: 0o600 });
  writeFileSync(join(out, 'report.html'), htmlReport(results, agents, { ...options, script: reportScript(), out }), { mode: 0o600 });
  return markdown;
}

/** "I/N" with 0 ≤ I < N. */
export function parseShard(text: string): { index: number; count: number } {
  const match = /^(\d+)\/(\d+)$/.exec(text.trim());
  const index = match ? Number(match[1]) : Number.NaN;
  const count = match ? Number(match[2]) : Number.NaN;
  if (!match || count < 1 || index >= count) throw new UsageError(`--shard wants I/N with 0 ≤ I < N (e.g. 0/4 … 3/4), got "${text}".`);
  return { index, count };
}

