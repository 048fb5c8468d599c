/**
 * The consistency checks of /speckit.analyze that code can make exactly:
 * requirement and story coverage by tasks, tasks mapped to nothing, tags
 * and dependencies that do not line up, [P] tasks that would write the same
 * file, open questions, and a constitution left as a template. The model
 * judges the rest (duplication, vague wording, conflicts with principles).
 */
import { type ConstitutionRule, readConstitution, readSpec, REQUIREMENT_ID } from './spec-inventory';
import { type ParsedTasks, parseTasks, type SpecTask, TasksFileError } from './tasks-parser';

export type Severity = 'CRITICAL' | 'HIGH' | 'MEDIUM' | 'LOW';
export type FindingCategory = 'Coverage' | 'Consistency' | 'Ambiguity' | 'Constitution' | 'Format';

export interface Finding {
  /** "F1", "F2", … in report order. */
  id: string;
  category: FindingCategory;
  severity: Severity;
  /** "tasks.md:L12", "spec.md:L40". */
  location: string;
  summary: string;
  recommendation: string;
}

export interface CoverageRow {
  requirement: string;
  tasks: string[];
}

export interface Analysis {
  findings: Finding[];
  /** Requirements (every kind but success criteria) and the tasks that cite them. */
  coverage: CoverageRow[];
  rules: ConstitutionRule[];
  metrics: { requirements: number; stories: number; tasks: number; coveredRequirements: number; citedAnywhere: boolean };
}

export interface ArtifactTexts {
  spec: string;
  plan: string;
  tasks: string;
  constitution?: string;
}

const SEVERITY_ORDER: Record<Severity, number> = { CRITICAL: 0, HIGH: 1, MEDIUM: 2, LOW: 3 };
/** Phases whose tasks serve every story: no story tag expected. */
const SHARED_PHASE = /setup|foundation|polish|cross-cutting|infrastructure/i;

export function analyzeArtifacts(texts: ArtifactTexts): Analysis {
  const findings: Omit<Finding, 'id'>[] = [];
  const add = (category: FindingCategory, severity: Severity, location: string, summary: string, recommendation: string): void => {
    findings.push({ category, severity, location, summary, recommendation });
  };
  const spec = readSpec(texts.spec);
  const constitution = texts.constitution !== undefined ? readConstitution(texts.constitution) : { rules: [], placeholders: [] };
  let tasks: ParsedTasks | undefined;
  try {
    tasks = parseTasks(texts.tasks);
  } catch (err) {
    if (!(err instanceof TasksFileError)) throw err;
    for (const p of err.problems) add('Format', 'HIGH', `tasks.md:L${p.line}`, p.message, 'Fix the line so /speckit.implement can run it.');
  }
  for (const w of tasks?.warnings ?? []) add('Consistency', 'MEDIUM', `tasks.md:L${w.line}`, w.message, 'Reorder the tasks or correct the dependency.');

  const requirements = spec.requirements.filter((r) => r.kind !== 'SC');
  const defined = new Set(spec.requirements.map((r) => r.id));
  const list = tasks?.tasks ?? [];
  const cites = new Map(list.map((task) => [task.id, [...new Set(task.description.match(REQUIREMENT_ID) ?? [])]]));
  const citedAnywhere = [...cites.values()].some((ids) => ids.some((id) => defined.has(id)));
  const coverage = requirements.map((r) => ({ requirement: r.id, tasks: list.filter((t) => cites.get(t.id)!.includes(r.id)).map((t) => t.id) }));
  if (tasks && citedAnywhere) {
    for (const row of coverage.filter((c) => c.tasks.length === 0)) {
      const requirement = requirements.find((r) => r.id === row.requirement)!;
      add('Coverage', 'HIGH', `spec.md:L${requirement.line}`, `${row.requirement} has no task citing it.`, `Add a task for ${row.requirement}, or cite it in the task that covers it.`);
    }
  } else if (tasks && requirements.length > 0) {
    add('Coverage', 'LOW', 'tasks.md', 'No task cites a requirement id, so coverage can only be judged by reading.', 'Cite requirement ids (e.g. "(FR-001)") in task descriptions.');
  }
  for (const task of list) {
    for (const id of cites.get(task.id)!.filter((id) => !defined.has(id) && /^(FR|NFR|SC|SR)-/.test(id))) {
      add('Consistency', 'MEDIUM', `tasks.md:L${task.line}`, `${task.id} cites ${id}, which spec.md does not define.`, `Correct the id or add ${id} to spec.md.`);
    }
  }
  if (tasks) storyChecks(spec.stories, tasks, cites, add);
  if (tasks) for (const clash of parallelClashes(tasks)) add('Consistency', 'MEDIUM', `tasks.md:L${clash.line}`, clash.summary, 'Drop [P] from one of them or split the file.');

  for (const q of spec.openQuestions) add('Ambiguity', 'HIGH', `spec.md:L${q.line}`, `Open question: ${q.text}`, 'Answer it with /speckit.clarify.');
  for (const q of readSpec(texts.plan).openQuestions) add('Ambiguity', 'MEDIUM', `plan.md:L${q.line}`, `Open question: ${q.text}`, 'Decide it in plan.md (or research.md).');
  if (constitution.placeholders.length > 0) {
    const tokens = [...new Set(constitution.placeholders.map((p) => p.text))].slice(0, 5).join(', ');
    add('Constitution', 'MEDIUM', `constitution.md:L${constitution.placeholders[0]!.line}`, `The constitution still holds template placeholders (${tokens}).`, 'Fill it in with /speckit.constitution.');
  }
  if (constitution.rules.length > 0 && !/^#{1,6}\s+.*constitution check/im.test(texts.plan)) {
    add('Constitution', 'MEDIUM', 'plan.md', 'plan.md has no "Constitution Check" section although the constitution sets MUST rules.', 'Add the section to plan.md, checking each rule.');
  }

  const sorted = findings.sort((a, b) => SEVERITY_ORDER[a.severity] - SEVERITY_ORDER[b.severity]).map((f, i) => ({ id: `F${i + 1}`, ...f }));
  return {
    findings: sorted,
    coverage,
    rules: constitution.rules,
    metrics: {
      requirements: requirements.length,
      stories: spec.stories.length,
      tasks: list.length,
      coveredRequirements: coverage.filter((c) => c.tasks.length > 0).length,
      citedAnywhere,
    },
  };
}

type Add = (category: FindingCategory, severity: Severity, location: string, summary: string, recommendation: string) => void;

function storyChecks(stories: ReturnType<typeof readSpec>['stories'], tasks: ParsedTasks, cites: Map<string, string[]>, add: Add): void {
  const storyIds = new Set(stories.map((s) => s.id));
  for (const story of stories) {
    if (tasks.tasks.some((t) => t.story === story.id)) continue;
    const severity = story.priority === 'P1' ? 'CRITICAL' : 'HIGH';
    add('Coverage', severity, `spec.md:L${story.line}`, `User story ${story.id} (${story.title || 'untitled'}) has no task tagged [${story.id}].`, `Add tasks tagged [${story.id}] with /speckit.tasks.`);
  }
  for (const task of tasks.tasks) {
    const phase = tasks.phases[task.phase]!;
    if (task.story !== undefined && stories.length > 0 && !storyIds.has(task.story)) {
      add('Consistency', 'MEDIUM', `tasks.md:L${task.line}`, `${task.id} is tagged [${task.story}], but spec.md has no such user story.`, 'Correct the tag.');
    } else if (task.story !== undefined && phase.story !== undefined && task.story !== phase.story) {
      add('Consistency', 'MEDIUM', `tasks.md:L${task.line}`, `${task.id} is tagged [${task.story}] but sits in the phase of ${phase.story}.`, 'Move the task or correct its tag.');
    } else if (task.story === undefined && phase.story !== undefined) {
      add('Consistency', 'LOW', `tasks.md:L${task.line}`, `${task.id} sits in the phase of ${phase.story} but has no [${phase.story}] tag.`, `Tag it [${phase.story}].`);
    } else if (task.story === undefined && cites.get(task.id)!.length === 0 && !SHARED_PHASE.test(phase.title)) {
      add('Coverage', 'LOW', `tasks.md:L${task.line}`, `${task.id} maps to no user story or requirement.`, 'Tag it with its story or cite the requirement it serves, or drop it.');
    }
  }
}

/** Pairs of [P] tasks in the same phase that name the same file: running them together may collide. */
function parallelClashes(tasks: ParsedTasks): { line: number; summary: string }[] {
  const clashes: { line: number; summary: string }[] = [];
  const seen = new Map<string, SpecTask>();
  for (const task of tasks.tasks.filter((t) => t.parallel && !t.done)) {
    for (const file of task.files.filter((f) => !f.endsWith('/'))) {
      const key = `${task.phase}\u0000${file}`;
      const other = seen.get(key);
      if (other) clashes.push({ line: task.line, summary: `${other.id} and ${task.id} are both [P] in the same phase and both name ${file}.` });
      else seen.set(key, task);
    }
  }
  return clashes;
}
