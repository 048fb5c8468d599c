/**
 * axe-core in a Chromium page or frame (a webview's inner frame included):
 * its source injected as a script, run on the whole document, and the
 * critical and serious violations returned as lines a failure message can
 * print (rule id, impact, the failing elements' selectors, and axe's help).
 */
import { readFileSync } from 'node:fs';
import type { Frame, Page } from 'playwright-core';

/** One violation as a person reads it in a failure: "id (impact): help — targets". */
export interface AxeFinding {
  id: string;
  impact: string;
  help: string;
  targets: string[];
  /** axe's summary of why the first failing element fails (e.g. the contrast it measured). */
  why: string;
}

const SERIOUS = new Set(['critical', 'serious']);
let axeSource: string | undefined;

function source(): string {
  axeSource ??= readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
  return axeSource;
}

/** Runs axe on `where`'s document; only critical and serious violations come back. */
export async function seriousViolations(where: Page | Frame): Promise<AxeFinding[]> {
  const injected = await where.evaluate(() => typeof (window as unknown as { axe?: unknown }).axe === 'object');
  // A webview's CSP forbids script elements without its nonce; evaluate is not bound by it.
  if (!injected) await where.evaluate(source());
  const found = await where.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(context: Document, options: object): Promise<{ violations: RawViolation[] }> } }).axe;
    const result = await axe.run(document, { resultTypes: ['violations'] });
    return result.violations.map((v) => ({
      id: v.id,
      impact: v.impact ?? 'unknown',
      help: v.help,
      targets: v.nodes.map((node) => node.target.join(' ')),
      why: v.nodes[0]?.failureSummary ?? '',
    }));
    interface RawViolation {
      id: string;
      impact?: string;
      help: string;
      nodes: { target: string[]; failureSummary?: string }[];
    }
  });
  return found.filter((finding) => SERIOUS.has(finding.impact));
}

/** The findings as a failure message's lines, at most `limit` targets each. */
export function describeFindings(findings: AxeFinding[], limit = 6): string {
  return findings
    .map((f) => {
      const more = f.targets.length > limit ? ` … and ${f.targets.length - limit} more` : '';
      return `${f.id} (${f.impact}, ${f.targets.length}×): ${f.help}\n    ${f.targets.slice(0, limit).join('\n    ')}${more}\n    ${f.why.replace(/\n/g, ' ')}`;
    })
    .join('\n');
}
