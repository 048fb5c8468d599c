/** /speckit.analyze: code checks what it can exactly, the model judges the rest; no file changes. */
import { type Analysis, analyzeArtifacts, type Finding } from './analysis';
import { documentCommand } from './document-command';
import { documentText, featureWithTasks } from './feature-context';
import { CONSTITUTION_PATH } from './features';
import type { ProgrammaticCommand } from '../agents/programmatic-command';
import { readText } from './workspace-text';

export const analyzeCommand: ProgrammaticCommand = documentCommand({
  name: 'speckit.analyze',
  hooks: 'analyze',
  description: "Check the current feature's spec, plan and tasks against each other and the constitution; reports, changes nothing.",
  argumentHint: '[feature] [focus]',
  options: ['feature'],
  async prepare(run, args) {
    const { input } = run;
    const context = await featureWithTasks(run, args, { readOnly: true });
    if (typeof context === 'string') return context;
    const { files, feature } = context;
    const constitution = await readText(input.workspace, CONSTITUTION_PATH);
    const analysis = analyzeArtifacts({
      spec: (await readText(input.workspace, files.spec))!,
      plan: (await readText(input.workspace, files.plan))!,
      tasks: (await readText(input.workspace, files.tasks))!,
      ...(constitution !== undefined ? { constitution } : {}),
    });
    const { metrics } = analysis;
    return {
      folder: feature.dir,
      intro: `Feature ${feature.dir} (${context.how}). Automatic checks: ${countLine(analysis.findings)}.\n\n${findingsTable(analysis.findings)}`,
      prompt: run.render('analyze', {
        args: context.text,
        feature_dir: feature.dir,
        findings: analysis.findings,
        next_id: analysis.findings.length + 1,
        coverage: coverageLine(analysis),
        rules: analysis.rules,
        metrics,
        spec_path: files.spec,
        spec: await documentText(input, files.spec),
        plan_path: files.plan,
        plan: await documentText(input, files.plan),
        tasks_path: files.tasks,
        tasks: await documentText(input, files.tasks),
        constitution_path: CONSTITUTION_PATH,
        constitution: await documentText(input, CONSTITUTION_PATH),
      }),
      watch: [feature.dir, '.specify/memory'],
      permissions: input.session.permissions.forcing({ write: 'deny', execute: 'deny', network: 'deny' }),
      async check(changed) {
        if (changed.length > 0) {
          return { ok: false, message: `/speckit.analyze must not change files, yet ${changed.join(', ')} changed during the run: review them (git diff).` };
        }
        return { ok: true, message: `Analyzed ${feature.dir}: ${countLine(analysis.findings)} from the automatic checks; no file was changed.` };
      },
    };
  },
});

function countLine(findings: Finding[]): string {
  if (findings.length === 0) return 'no findings';
  const counts = (['CRITICAL', 'HIGH', 'MEDIUM', 'LOW'] as const)
    .map((severity) => [severity, findings.filter((f) => f.severity === severity).length] as const)
    .filter(([, n]) => n > 0)
    .map(([severity, n]) => `${n} ${severity.toLowerCase()}`);
  return `${findings.length} finding${findings.length === 1 ? '' : 's'} (${counts.join(', ')})`;
}

function findingsTable(findings: Finding[]): string {
  if (findings.length === 0) return '';
  const cell = (text: string): string => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
  const rows = findings.map((f) => `| ${f.id} | ${f.category} | ${f.severity} | ${cell(f.location)} | ${cell(f.summary)} | ${cell(f.recommendation)} |`);
  return ['| ID | Category | Severity | Location | Summary | Recommendation |', '|----|----------|----------|----------|---------|----------------|', ...rows].join('\n');
}

function coverageLine(analysis: Analysis): string {
  const { metrics, coverage } = analysis;
  if (metrics.requirements === 0) return 'spec.md defines no requirement ids.';
  if (!metrics.citedAnywhere) return `${metrics.requirements} requirements; no task cites a requirement id, so map them by meaning.`;
  const rows = coverage.map((row) => `${row.requirement} → ${row.tasks.join(', ') || 'none'}`).join('; ');
  return `${metrics.coveredRequirements} of ${metrics.requirements} requirements cited by tasks: ${rows}.`;
}
