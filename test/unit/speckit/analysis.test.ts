import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { analyzeArtifacts } from '../../../src/speckit/analysis';
import { readConstitution, readSpec } from '../../../src/speckit/spec-inventory';

const fixture = (path: string) => readFileSync(join(__dirname, '../../fixtures/speckit', path), 'utf8');

const SPEC = `# Spec

### User Story 1 - Browse (Priority: P1)
### User Story 2 - Share (Priority: P2)

## Requirements

- **FR-001**: Photos MUST be grouped by day.
- **FR-002**: Albums MUST be sorted newest first.
- **FR-003**: Albums MUST be shareable by link [NEEDS CLARIFICATION: public or signed-in only?]

| SC-001 | Opens in under a second |
`;

const PLAN = '# Plan\n\n## Constitution Check\n\n- ok\n';

const TASKS = `# Tasks

## Phase 1: Setup

- [ ] T001 Create src/index.ts

## Phase 2: User Story 1 - Browse (Priority: P1)

- [ ] T002 [P] [US1] Group in src/group.ts (FR-001)
- [ ] T003 [P] [US1] Sort in src/group.ts (FR-002)
- [ ] T004 Wire it into src/app.ts
- [ ] T005 [US3] Cache thumbnails in src/cache.ts (FR-009)

## Phase 3: Extras

- [ ] T006 Add a dark theme to src/theme.ts (after T007)
- [ ] T007 Do something
`;

describe('speckit: what analysis checks in code', () => {
  it('reads requirement ids, stories and open questions from a spec, and MUST rules and placeholders from a constitution', () => {
    const spec = readSpec(SPEC);
    assert.deepEqual(spec.requirements.map((r) => [r.id, r.kind, r.line]), [['FR-001', 'FR', 8], ['FR-002', 'FR', 9], ['FR-003', 'FR', 10], ['SC-001', 'SC', 12]]);
    assert.deepEqual(spec.stories.map((s) => [s.id, s.title, s.priority]), [['US1', 'Browse', 'P1'], ['US2', 'Share', 'P2']]);
    assert.deepEqual(spec.openQuestions.map((q) => q.line), [10]);
    const constitution = readConstitution(fixture('specify-init/.specify/memory/constitution.md'));
    assert.deepEqual(constitution.rules.map((r) => [r.line, r.principle]), [[7, 'I. Library First'], [10, 'II. Tests Before Code (NON-NEGOTIABLE)'], [13, 'III. Plain Storage']]);
    assert.deepEqual(constitution.placeholders, []);
    assert.equal(readConstitution(fixture('specify-init/.specify/templates/constitution-template.md')).placeholders[0]!.text, '[PROJECT_NAME]');
  });

  it('finds coverage gaps, unmapped and mis-tagged tasks, [P] clashes, bad dependencies, open questions and a template constitution', () => {
    const { findings, coverage, metrics } = analyzeArtifacts({ spec: SPEC, plan: PLAN, tasks: TASKS, constitution: '# [PROJECT_NAME] Constitution\n\nCode MUST be tested.\n' });
    const lines = findings.map((f) => `${f.id} ${f.severity} ${f.category} ${f.location}: ${f.summary}`);
    assert.equal(findings.length, 11);
    const has = (pattern: RegExp) => assert.ok(lines.some((line) => pattern.test(line)), `${pattern} in\n${lines.join('\n')}`);
    has(/HIGH Coverage spec\.md:L10: FR-003 has no task citing it/);
    has(/HIGH Coverage spec\.md:L4: User story US2 \(Share\) has no task tagged \[US2\]/);
    has(/MEDIUM Consistency tasks\.md:L12: T005 cites FR-009, which spec\.md does not define/);
    has(/MEDIUM Consistency tasks\.md:L12: T005 is tagged \[US3\], but spec\.md has no such user story/);
    has(/LOW Consistency tasks\.md:L11: T004 sits in the phase of US1 but has no \[US1\] tag/);
    has(/LOW Coverage tasks\.md:L16: T006 maps to no user story or requirement/);
    has(/LOW Coverage tasks\.md:L17: T007 maps to no user story or requirement/);
    has(/MEDIUM Consistency tasks\.md:L10: T002 and T003 are both \[P\] in the same phase and both name src\/group\.ts/);
    has(/MEDIUM Consistency tasks\.md:L16: T006 depends on T007, which comes later in the file/);
    has(/HIGH Ambiguity spec\.md:L10: Open question: \[NEEDS CLARIFICATION: public or signed-in only\?\]/);
    has(/MEDIUM Constitution constitution\.md:L1: The constitution still holds template placeholders \(\[PROJECT_NAME\]\)/);
    assert.ok(!lines.some((line) => /T001 maps to no/.test(line)), 'setup tasks serve every story');
    assert.ok(!lines.some((line) => /SC-001 has no task/.test(line)), 'success criteria are left to judgement');
    assert.deepEqual(coverage, [{ requirement: 'FR-001', tasks: ['T002'] }, { requirement: 'FR-002', tasks: ['T003'] }, { requirement: 'FR-003', tasks: [] }]);
    assert.deepEqual(metrics, { requirements: 3, stories: 2, tasks: 7, coveredRequirements: 2, citedAnywhere: true });
    assert.deepEqual(findings.map((f) => f.severity), [...findings.map((f) => f.severity)].sort((a, b) => ['CRITICAL', 'HIGH', 'MEDIUM', 'LOW'].indexOf(a) - ['CRITICAL', 'HIGH', 'MEDIUM', 'LOW'].indexOf(b)));
  });

  it('judges a P1 story without tasks critical, and a missing constitution check in the plan', () => {
    const { findings } = analyzeArtifacts({ spec: SPEC, plan: '# Plan\n', tasks: '## Phase 1: A\n- [ ] T001 [US2] Share in src/share.ts (FR-003)\n', constitution: 'All code MUST be reviewed.\n' });
    assert.equal(findings[0]!.severity, 'CRITICAL');
    assert.match(findings[0]!.summary, /User story US1 \(Browse\) has no task tagged \[US1\]/);
    assert.ok(findings.some((f) => /plan\.md has no "Constitution Check" section/.test(f.summary)));
  });

  it('reports a broken tasks.md as format findings with line numbers, and a file citing no requirement once', () => {
    const broken = analyzeArtifacts({ spec: SPEC, plan: PLAN, tasks: '## Phase 1: A\n- [ ] T001 One\n- [ ] Two\n' });
    assert.deepEqual(broken.findings.filter((f) => f.category === 'Format').map((f) => f.location), ['tasks.md:L3']);
    const uncited = analyzeArtifacts({ spec: SPEC, plan: PLAN, tasks: '## Phase 1: User Story 1 - Browse\n- [ ] T001 [US1] Browse in src/a.ts\n' });
    assert.deepEqual(uncited.findings.filter((f) => f.category === 'Coverage' && f.severity === 'LOW').map((f) => f.summary), [
      'No task cites a requirement id, so coverage can only be judged by reading.',
    ]);
  });
});
